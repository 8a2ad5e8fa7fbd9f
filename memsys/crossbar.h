// The crossbar between the SMs and the L2 slices: two independent input-queued switches, a request
// network (SM ports -> L2 ports, routed by AddressMap::sliceOf) and a response network (L2 ports ->
// SM ports, routed by MemRequest::sm). Plain C++, ticked once per interconnect clock by its SystemC
// wrapper, which moves MemRequests in from and out to the SM and L2 sockets.
//
// Packets and flits. A packet is ceil((request_header_bytes + payload) / flit_bytes) flits (at least
// one). Payload: request network: read and fetch 0 (header only), write and atomic `bytes`;
// response network: read and fetch `bytes` (or 32 x sectors of sector_mask when bytes is 0), atomic
// `bytes`, write 0 (an acknowledgement). The header size is the same both ways.
//
// Timing (virtual cut-through at packet granularity, one flit per output per cycle):
// - A packet accepted at cycle c may be switched from cycle c+1 (it is written into the input buffer
//   at c). Each output port grants one input at a time among those whose head packet targets it
//   (round_robin: starting after the last input granted; fixed_priority: lowest input first), moves
//   one flit of the granted packet per cycle while its output buffer has room, and after the last
//   flit re-arbitrates. A packet reaches the output latency_cycles after its last flit is switched.
//   Unloaded: accepted at c, visible (has*) after the tick of cycle c + flits + latency_cycles.
// - Inputs are FIFOs with a window (input_window_packets, default 1): an output may take any of the
//   first `window` packets of an input's queue that is the first there for it, one packet per input
//   at a time. Packets of one (input, output) pair leave and arrive in order. With a window of 1 an
//   input leaves strictly in order (head-of-line blocking included).
// - Input buffers hold input_buffer_flits flits per port; canAccept*(port) is true when the buffer
//   has room for the largest packet (header + one 128-byte line) — the overloads taking the request
//   check that packet's own size. Output buffers hold output_buffer_flits per port, counting flits
//   from switching until the consumer pops the packet; a full output buffer stalls the switch.
//   Both must hold the largest packet (checked).
// Call order within a cycle: accepts, tick(cycle), then has/peek/pop.
//
// idle(): no packet anywhere in the crossbar (inputs, traversal, outputs waiting to be popped).
//
// Statistics under `name`: request_flits, response_flits (flits switched), request_packets,
// response_packets, request_stall_cycles, response_stall_cycles (output-cycles a granted flit waited
// for output buffer room), request_conflict_cycles, response_conflict_cycles (input-cycles a head
// packet waited for an output busy with another input), and per output port
// `name.l2[i].port_busy_cycles` (request network) and `name.sm[i].port_busy_cycles` (response
// network): cycles the port switched a flit.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "memsys/address_map.h"
#include "memsys/crossbar_arbiter.h"
#include "memsys/mem_request.h"
#include "memsys/memsys_params.h"
#include "base/stats.h"

namespace scgpu::memsys {

class Crossbar {
 public:
  // Throws std::invalid_argument on inconsistent parameters.
  Crossbar(const CrossbarParams& params, std::uint32_t sm_ports, std::uint32_t l2_ports, const AddressMap& map,
           StatsRegistry& stats, const std::string& name);

  // Request network.
  bool canAcceptRequest(std::uint32_t sm) const;
  bool canAcceptRequest(std::uint32_t sm, const MemRequest& req) const;
  void acceptRequest(std::uint32_t sm, const MemRequest& req, std::uint64_t cycle);
  bool hasRequest(std::uint32_t l2) const { return !req_.out[l2].ready.empty(); }
  bool anyRequest() const { return req_.ready_packets != 0; }  // hasRequest of some slice
  // The first slice from `from` on with a request to pop (the slice count: none), without asking
  // each (likewise the first SM with a response).
  std::uint32_t nextRequestSlice(std::uint32_t from) const { return req_.nextReady(from); }
  // Counts the times an input of the response network gained room: a port refused for want of
  // room needs looking at again only after this changed (a response's room may be a copy input's,
  // so it is not the input's own; requests use requestInputsDrained).
  std::uint64_t responseRoomEvents() const { return rsp_.drained; }
  // Bitset of the request inputs a flit left since clearRequestInputsDrained(): only they can have
  // gained room (a request input's room is its own occupancy: canAcceptRequest).
  const std::vector<std::uint64_t>& requestInputsDrained() const { return req_.drained_inputs; }
  void clearRequestInputsDrained() {
    for (std::uint64_t& w : req_.drained_inputs) w = 0;
  }
  const MemRequest& peekRequest(std::uint32_t l2) const { return req_.out[l2].ready.front().req; }
  void popRequest(std::uint32_t l2) { req_.pop(l2); }

  // Response network.
  bool canAcceptResponse(std::uint32_t l2) const;
  bool canAcceptResponse(std::uint32_t l2, const MemRequest& resp, std::uint64_t cycle) const;
  // Room for the largest packet at the input `resp` would enter (what the L2 side's link asks,
  // as canAcceptResponse(l2) does without copies).
  bool roomForResponse(std::uint32_t l2, const MemRequest& resp, std::uint64_t cycle) const {
    return rsp_.in[responseInput(l2, resp, cycle)].flits + max_packet_flits_ <= rsp_.in_cap;
  }
  // The response network input a response from slice l2 arriving at `cycle` enters: l2, or with
  // multicast_responses the copy input of its SM when its line's data is still in the slice's
  // output buffer or went to another SM within multicast_window_cycles.
  std::uint32_t responseInput(std::uint32_t l2, const MemRequest& resp, std::uint64_t cycle) const;
  void acceptResponse(std::uint32_t l2, const MemRequest& resp, std::uint64_t cycle);
  bool hasResponse(std::uint32_t sm) const { return !rsp_.out[sm].ready.empty(); }
  bool anyResponse() const { return rsp_.ready_packets != 0; }  // hasResponse of some SM
  std::uint32_t nextResponseSm(std::uint32_t from) const { return rsp_.nextReady(from); }
  const MemRequest& peekResponse(std::uint32_t sm) const { return rsp_.out[sm].ready.front().req; }
  void popResponse(std::uint32_t sm) { rsp_.pop(sm); }

  void tick(std::uint64_t cycle);
  bool idle() const { return req_.packets == 0 && rsp_.packets == 0; }

  // Flits held at SM port `port`: its request input buffer plus its response output buffer.
  std::uint32_t flitsInFlight(std::uint32_t port) const;
  // Finer views for tracing.
  std::uint32_t requestInputFlits(std::uint32_t sm) const { return req_.in[sm].flits; }
  std::uint32_t requestOutputFlits(std::uint32_t l2) const { return req_.out[l2].flits; }
  std::uint32_t responseInputFlits(std::uint32_t l2) const { return rsp_.in[l2].flits; }
  std::uint32_t responseOutputFlits(std::uint32_t sm) const { return rsp_.out[sm].flits; }

  // Packet size in flits on the request (response = false) or response network.
  std::uint32_t packetFlits(const MemRequest& req, bool response) const;

  // Co-simulation of the switch allocators: the first grant on which an RTL arbiter differed from
  // its model (null otherwise); the chip stops the run with it.
  const std::string* divergence() const;

 private:
  struct Packet {
    MemRequest req;
    std::uint32_t dst = 0, flits = 0, sent = 0;
    std::uint64_t eligible = 0;  // first cycle it may be switched
  };
  struct Timed {
    std::uint64_t arrive;
    std::uint32_t flits;
    MemRequest req;
  };
  struct Input {
    std::deque<Packet> queue;
    std::uint32_t flits = 0;
    std::vector<std::uint32_t> registered;  // outputs whose reqs hold this input (its window's packets)
    // (dst, eligible) of the window's packets in queue order, beside the queue: arbitration looks
    // at every requesting input's window, and the packets themselves are large.
    std::vector<std::pair<std::uint32_t, std::uint64_t>> heads;
    std::uint64_t next_cycle = 0;           // first cycle it may start another packet
    std::uint32_t taking = ~0u;             // the packet an output is taking (its queue index), or none
  };
  struct Output {
    std::uint32_t granted = kNone;
    std::uint32_t flits = 0;            // output buffer occupancy
    // No requesting input can be granted before this cycle unless headChanged registers one (an
    // input taken by another output, still reading, or whose packet is not yet eligible): under a
    // hot output every other output's requesters wait so, and finding that out each cycle was a
    // tenth of a serialised-atomics run.
    std::uint64_t retry_at = 0;
    std::vector<std::uint64_t> reqs;    // bitset of inputs with a packet for this output in their window
    std::uint32_t requesters = 0;       // bits set in reqs (counted each cycle as conflicts)
    void addRequest(std::uint32_t input) {
      std::uint64_t& w = reqs[input >> 6];
      const std::uint64_t bit = std::uint64_t{1} << (input & 63);
      requesters += (w & bit) == 0;
      w |= bit;
    }
    void dropRequest(std::uint32_t input) {
      std::uint64_t& w = reqs[input >> 6];
      const std::uint64_t bit = std::uint64_t{1} << (input & 63);
      requesters -= (w & bit) != 0;
      w &= ~bit;
    }
    std::deque<Timed> traversing;       // switched, arriving at `arrive`
    std::deque<Timed> ready;            // arrived, waiting to be popped
    Counter* busy = nullptr;
  };
  static constexpr std::uint32_t kNone = ~0u;

  struct Network {
    std::vector<Input> in;
    std::vector<Output> out;
    std::vector<std::uint64_t> active;  // bitset of outputs with work (requests, grant, traversal)
    std::vector<std::uint64_t> ready_outputs;  // bitset of outputs with arrived packets (ready not empty)
    std::uint32_t nextReady(std::uint32_t from) const;
    std::uint64_t packets = 0;          // packets anywhere in this network
    std::uint64_t ready_packets = 0;    // of them, arrived and waiting to be popped
    std::uint64_t drained = 0;          // flits that left inputs (room gained), ever
    std::vector<std::uint64_t> drained_inputs;  // bitset of inputs a flit left since the owner cleared it
    std::uint32_t in_cap = 0, out_cap = 0, latency = 0, window = 1;
    std::unique_ptr<CrossbarArbiter> arbiter;  // the switch allocator: model, RTL or both
    std::vector<std::uint64_t> eligible;       // scratch: this cycle's requests of one output
    Counter *flits_switched = nullptr, *packets_switched = nullptr, *stalls = nullptr, *conflicts = nullptr;

    void init(std::uint32_t inputs, std::uint32_t outputs);
    void push(std::uint32_t input, Packet p);
    void pop(std::uint32_t output);
    void tick(std::uint64_t cycle);
    // Registers the packets of the input's window (not the one being switched) with their outputs.
    void headChanged(std::uint32_t input);
    // The first packet of the input's window for `output` (the one it would switch), or kNone.
    std::uint32_t windowPacket(std::uint32_t input, std::uint32_t output) const;
    std::uint32_t arbitrate(std::uint32_t output, std::uint64_t cycle);
  };

  CrossbarParams params_;
  std::uint32_t sm_ports_, l2_ports_;
  AddressMap map_;  // a copy: the crossbar does not depend on the caller's lifetime
  std::uint32_t max_packet_flits_;
  Counter* response_copies_ = nullptr;
  // Per slice, the read lines it last sent (not as copies): when, which sectors, to which SM.
  // Only looked up by line (never walked in an order that matters).
  struct SentLine {
    std::uint64_t cycle;
    std::uint32_t sectors;
    std::uint32_t sm;
  };
  std::vector<std::unordered_map<std::uint64_t, SentLine>> sent_lines_;
  Network req_, rsp_;
};

}  // namespace scgpu::memsys
