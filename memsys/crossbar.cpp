#include "memsys/crossbar.h"

#include <algorithm>
#include <stdexcept>

namespace scgpu::memsys {
namespace {

constexpr std::uint32_t kLineBytes = 128;   // the largest payload: one line (mem_request.h)
std::uint64_t lineOf(std::uint64_t addr) { return addr & ~std::uint64_t(kLineBytes - 1); }
constexpr std::uint32_t kSectorBytes = 32;  // sector size of sector_mask (mem_request.h)

std::uint32_t ceilDiv(std::uint32_t a, std::uint32_t b) { return (a + b - 1) / b; }

void setBit(std::vector<std::uint64_t>& bits, std::uint32_t i) { bits[i >> 6] |= std::uint64_t(1) << (i & 63); }
void clearBit(std::vector<std::uint64_t>& bits, std::uint32_t i) { bits[i >> 6] &= ~(std::uint64_t(1) << (i & 63)); }
bool anyBit(const std::vector<std::uint64_t>& bits) {
  for (std::uint64_t w : bits)
    if (w) return true;
  return false;
}

}  // namespace

// ---- Network ----

void Crossbar::Network::init(std::uint32_t inputs, std::uint32_t outputs) {
  in.assign(inputs, Input{});
  out.assign(outputs, Output{});
  for (Output& o : out) o.reqs.assign((inputs + 63) / 64, 0);
  eligible.assign((inputs + 63) / 64, 0);
  active.assign((outputs + 63) / 64, 0);
  ready_outputs.assign((outputs + 63) / 64, 0);
  drained_inputs.assign((inputs + 63) / 64, 0);
}

void Crossbar::Network::headChanged(std::uint32_t input) {
  Input& i = in[input];
  for (std::uint32_t o : i.registered) out[o].dropRequest(input);
  i.registered.clear();
  i.heads.clear();
  const std::size_t n = std::min<std::size_t>(window, i.queue.size());
  for (std::size_t k = 0; k < n; ++k) {
    const Packet& p = i.queue[k];
    i.heads.emplace_back(p.dst, p.eligible);
    if (k == i.taking) continue;  // being switched: its output holds the input already
    if (std::find(i.registered.begin(), i.registered.end(), p.dst) != i.registered.end()) continue;
    i.registered.push_back(p.dst);
    out[p.dst].addRequest(input);
    out[p.dst].retry_at = 0;
    setBit(active, p.dst);
  }
}

std::uint32_t Crossbar::Network::nextReady(std::uint32_t from) const {
  for (std::size_t w = from >> 6; w < ready_outputs.size(); ++w) {
    std::uint64_t word = ready_outputs[w];
    if (w == (from >> 6)) word &= ~std::uint64_t{0} << (from & 63);
    if (word) return std::uint32_t(w * 64) + std::uint32_t(__builtin_ctzll(word));
  }
  return std::uint32_t(out.size());
}

std::uint32_t Crossbar::Network::windowPacket(std::uint32_t input, std::uint32_t output) const {
  const Input& i = in[input];
  for (std::size_t k = 0; k < i.heads.size(); ++k)
    if (i.heads[k].first == output && k != i.taking) return std::uint32_t(k);
  return kNone;
}

void Crossbar::Network::push(std::uint32_t input, Packet p) {
  Input& i = in[input];
  i.flits += p.flits;
  i.queue.push_back(std::move(p));
  ++packets;
  if (i.queue.size() <= window) headChanged(input);
}

void Crossbar::Network::pop(std::uint32_t output) {
  Output& o = out[output];
  o.flits -= o.ready.front().flits;
  o.ready.pop_front();
  if (o.ready.empty()) clearBit(ready_outputs, output);
  --packets;
  --ready_packets;
}

std::uint32_t Crossbar::Network::arbitrate(std::uint32_t output, std::uint64_t cycle) {
  // The requests whose head packet may be switched this cycle go to the switch allocator. An
  // input taken by another output registers again (headChanged) when its packet is through; one
  // still reading, or whose packet is not yet eligible, can be granted from a known cycle.
  Output& o = out[output];
  std::uint64_t soonest = ~std::uint64_t{0};
  auto ready = [&](std::uint32_t i) {
    if (in[i].taking != kNone) return false;  // taken by another output
    const std::uint32_t k = windowPacket(i, output);
    if (k == kNone) return false;
    const std::uint64_t from = std::max(in[i].next_cycle, in[i].heads[k].second);
    if (from <= cycle) return true;
    soonest = std::min(soonest, from);
    return false;
  };
  const std::uint32_t start = arbiter->firstConsidered(output);
  if (start != CrossbarArbiter::kNone) {
    // The arbiter takes the first ready requester from `start` on: test them in that order and
    // stop at the first. (All are tested only when none can go, which retry_at needs anyway.)
    const std::uint32_t found = firstFromWhere(o.reqs, start, std::uint32_t(in.size()), ready);
    if (found == kNone) {
      o.retry_at = soonest;
      return kNone;
    }
    for (std::uint64_t& w : eligible) w = 0;
    setBit(eligible, found);
  } else {
    for (std::size_t w = 0; w < o.reqs.size(); ++w) {
      std::uint64_t keep = 0;
      for (std::uint64_t rest = o.reqs[w]; rest; rest &= rest - 1)
        if (ready(std::uint32_t(w * 64) + std::uint32_t(__builtin_ctzll(rest)))) keep |= rest & (~rest + 1);
      eligible[w] = keep;
    }
  }
  if (!anyBit(eligible)) {
    o.retry_at = soonest;
    return kNone;
  }
  const std::uint32_t g = arbiter->grant(output, eligible, cycle);
  return g == CrossbarArbiter::kNone ? kNone : g;
}

void Crossbar::Network::tick(std::uint64_t cycle) {
  if (packets == 0) return;
  for (std::uint32_t w = 0; w < active.size(); ++w) {
    std::uint64_t word = active[w];  // snapshot: outputs activated during this pass start next cycle
    while (word) {
      const std::uint32_t oi = w * 64 + std::uint32_t(__builtin_ctzll(word));
      word &= word - 1;
      Output& o = out[oi];
      if (o.granted == kNone && cycle >= o.retry_at) {
        o.granted = arbitrate(oi, cycle);
        if (o.granted != kNone) {
          o.dropRequest(o.granted);
          in[o.granted].taking = windowPacket(o.granted, oi);
        }
      }
      if (o.granted != kNone) {
        *conflicts += o.requesters;
        if (o.flits < out_cap) {
          Input& src = in[o.granted];
          Packet& p = src.queue[src.taking];
          ++p.sent;
          --src.flits;
          ++drained;
          setBit(drained_inputs, o.granted);
          ++o.flits;
          ++*o.busy;
          ++*flits_switched;
          if (p.sent == p.flits) {
            o.traversing.push_back(Timed{cycle + latency, p.flits, p.req});
            src.queue.erase(src.queue.begin() + src.taking);
            ++*packets_switched;
            const std::uint32_t g = o.granted;
            o.granted = kNone;
            arbiter->done(oi, g);
            // An input reads one flit per cycle: its next packet starts next cycle at the earliest.
            src.taking = kNone;
            src.next_cycle = cycle + 1;
            headChanged(g);
          }
        } else {
          ++*stalls;
        }
      }
      while (!o.traversing.empty() && o.traversing.front().arrive <= cycle) {
        o.ready.push_back(std::move(o.traversing.front()));
        setBit(ready_outputs, oi);
        ++ready_packets;
        o.traversing.pop_front();
      }
      if (o.granted == kNone && o.traversing.empty() && o.requesters == 0) clearBit(active, oi);
    }
  }
}

// ---- Crossbar ----

Crossbar::Crossbar(const CrossbarParams& params, std::uint32_t sm_ports, std::uint32_t l2_ports, const AddressMap& map,
                   StatsRegistry& stats, const std::string& name)
    : params_(params), sm_ports_(sm_ports), l2_ports_(l2_ports), map_(map) {
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(name + ": " + what);
  };
  need(sm_ports >= 1 && l2_ports >= 1, "the crossbar needs at least one SM port and one L2 port");
  need(map.slices() == l2_ports, "L2 ports (" + std::to_string(l2_ports) + ") must equal l2.slices (" +
                                     std::to_string(map.slices()) + ")");
  need(params.flit_bytes >= 1, "crossbar.flit_bytes must be at least 1");
  need(params.input_window_packets >= 1, "crossbar.input_window_packets must be at least 1");
  need(params.arbitration == "round_robin" || params.arbitration == "fixed_priority",
       "crossbar.arbitration must be round_robin or fixed_priority, got '" + params.arbitration + "'");
  // The larger of the two networks' largest packets (a line with its header).
  max_packet_flits_ = std::max(ceilDiv(params.request_header_bytes + kLineBytes, params.flit_bytes),
                               ceilDiv(params.request_header_bytes + kLineBytes, params.responseFlitBytes()));
  need(params.input_buffer_flits >= max_packet_flits_,
       "crossbar.input_buffer_flits (" + std::to_string(params.input_buffer_flits) +
           ") must hold the largest packet, header + 128-byte line = " + std::to_string(max_packet_flits_) + " flits");
  need(params.output_buffer_flits >= max_packet_flits_,
       "crossbar.output_buffer_flits (" + std::to_string(params.output_buffer_flits) +
           ") must hold the largest packet, header + 128-byte line = " + std::to_string(max_packet_flits_) + " flits");

  req_.init(sm_ports, l2_ports);
  // With multicast_responses, response input l2_ports + s takes the copies for SM s.
  const std::uint32_t rsp_inputs = l2_ports + (params.multicast_responses ? sm_ports : 0);
  rsp_.init(rsp_inputs, sm_ports);
  sent_lines_.resize(l2_ports);
  for (Network* n : {&req_, &rsp_}) {
    n->in_cap = params.input_buffer_flits;
    n->out_cap = params.output_buffer_flits;
    n->latency = params.latency_cycles;
    n->window = params.input_window_packets;
  }
  if (params.request_window_packets) req_.window = params.request_window_packets;
  if (params.response_window_packets) rsp_.window = params.response_window_packets;
  const bool rr = params.arbitration == "round_robin";
  req_.arbiter = makeCrossbarArbiter(params.requestImpl(), ArbiterParams{sm_ports, l2_ports, rr}, name + ".request_arbiter");
  rsp_.arbiter = makeCrossbarArbiter(params.responseImpl(), ArbiterParams{rsp_inputs, sm_ports, rr}, name + ".response_arbiter");
  auto c = [&](const std::string& n, const char* d) { return stats.counter(name + "." + n, d); };
  req_.flits_switched = c("request_flits", "flits switched on the request network");
  rsp_.flits_switched = c("response_flits", "flits switched on the response network");
  req_.packets_switched = c("request_packets", "packets switched on the request network");
  rsp_.packets_switched = c("response_packets", "packets switched on the response network");
  req_.stalls = c("request_stall_cycles", "output-cycles a granted flit waited for L2-side output buffer room");
  response_copies_ = c("response_copies",
                       "read responses sent from the data of an earlier one still in the slice's output buffer");
  rsp_.stalls = c("response_stall_cycles", "output-cycles a granted flit waited for SM-side output buffer room");
  req_.conflicts = c("request_conflict_cycles", "input-cycles a head packet waited for an output busy with another input");
  rsp_.conflicts = c("response_conflict_cycles", "input-cycles a head packet waited for an output busy with another input");
  for (std::uint32_t i = 0; i < l2_ports; ++i)
    req_.out[i].busy = c("l2[" + std::to_string(i) + "].port_busy_cycles", "cycles this L2-side output switched a flit");
  for (std::uint32_t i = 0; i < sm_ports; ++i)
    rsp_.out[i].busy = c("sm[" + std::to_string(i) + "].port_busy_cycles", "cycles this SM-side output switched a flit");
}

const std::string* Crossbar::divergence() const {
  if (const std::string* d = req_.arbiter->divergence()) return d;
  return rsp_.arbiter->divergence();
}

std::uint32_t Crossbar::packetFlits(const MemRequest& req, bool response) const {
  std::uint32_t payload = 0;
  switch (req.op) {
    case MemOp::Read:
    case MemOp::Fetch:
      payload = response ? (req.bytes ? req.bytes : sectorCount(req.sector_mask) * kSectorBytes) : 0;
      break;
    case MemOp::Write: payload = response ? 0 : req.bytes; break;
    case MemOp::Atomic: payload = req.bytes; break;
  }
  const std::uint32_t flit = response ? params_.responseFlitBytes() : params_.flit_bytes;
  return std::max<std::uint32_t>(1, ceilDiv(params_.request_header_bytes + payload, flit));
}

bool Crossbar::canAcceptRequest(std::uint32_t sm) const {
  return req_.in[sm].flits + max_packet_flits_ <= req_.in_cap;
}
bool Crossbar::canAcceptRequest(std::uint32_t sm, const MemRequest& req) const {
  return req_.in[sm].flits + packetFlits(req, false) <= req_.in_cap;
}
bool Crossbar::canAcceptResponse(std::uint32_t l2) const {
  return rsp_.in[l2].flits + max_packet_flits_ <= rsp_.in_cap;
}
bool Crossbar::canAcceptResponse(std::uint32_t l2, const MemRequest& resp, std::uint64_t cycle) const {
  return rsp_.in[responseInput(l2, resp, cycle)].flits + packetFlits(resp, true) <= rsp_.in_cap;
}

std::uint32_t Crossbar::responseInput(std::uint32_t l2, const MemRequest& resp, std::uint64_t cycle) const {
  if (!params_.multicast_responses || resp.op != MemOp::Read || resp.sm >= sm_ports_) return l2;
  const std::uint64_t line = lineOf(resp.addr);
  for (const Packet& q : rsp_.in[l2].queue)
    if (q.req.op == MemOp::Read && q.req.sm != resp.sm && lineOf(q.req.addr) == line &&
        (resp.sector_mask & ~q.req.sector_mask) == 0)
      return l2_ports_ + resp.sm;
  if (params_.multicast_window_cycles) {
    const auto& sent = sent_lines_[l2];
    auto it = sent.find(line);
    if (it != sent.end() && it->second.sm != resp.sm && cycle <= it->second.cycle + params_.multicast_window_cycles &&
        (resp.sector_mask & ~it->second.sectors) == 0)
      return l2_ports_ + resp.sm;
  }
  return l2;
}

void Crossbar::acceptRequest(std::uint32_t sm, const MemRequest& req, std::uint64_t cycle) {
  if (sm >= sm_ports_) throw std::logic_error("crossbar: request from SM port " + std::to_string(sm) + " out of range");
  if (!canAcceptRequest(sm, req))
    throw std::logic_error("crossbar: acceptRequest on SM port " + std::to_string(sm) + " without room");
  Packet p;
  p.req = req;
  p.dst = map_.sliceOf(req.addr);
  p.flits = packetFlits(req, false);
  p.eligible = cycle + 1;
  req_.push(sm, std::move(p));
}

void Crossbar::acceptResponse(std::uint32_t l2, const MemRequest& resp, std::uint64_t cycle) {
  if (l2 >= l2_ports_) throw std::logic_error("crossbar: response from L2 port " + std::to_string(l2) + " out of range");
  if (resp.sm >= sm_ports_)
    throw std::logic_error("crossbar: response for SM " + std::to_string(resp.sm) + " out of range");
  // The input once (with copies it scans the slice's output buffer): its room, then the push.
  const std::uint32_t input = responseInput(l2, resp, cycle);
  Packet p;
  p.req = resp;
  p.dst = resp.sm;
  p.flits = packetFlits(resp, true);
  p.eligible = cycle + 1;
  if (rsp_.in[input].flits + p.flits > rsp_.in_cap)
    throw std::logic_error("crossbar: acceptResponse on L2 port " + std::to_string(l2) + " without room");
  if (input != l2) {
    ++*response_copies_;
  } else if (params_.multicast_window_cycles && resp.op == MemOp::Read) {
    // The line as the slice sent it; entries older than the window are dropped now and then.
    auto& sent = sent_lines_[l2];
    if (sent.size() >= 4096) {
      for (auto it = sent.begin(); it != sent.end();)
        it = it->second.cycle + params_.multicast_window_cycles < cycle ? sent.erase(it) : std::next(it);
    }
    sent[lineOf(resp.addr)] = SentLine{cycle, resp.sector_mask, resp.sm};
  }
  rsp_.push(input, std::move(p));
}

void Crossbar::tick(std::uint64_t cycle) {
  req_.tick(cycle);
  rsp_.tick(cycle);
}

std::uint32_t Crossbar::flitsInFlight(std::uint32_t port) const { return req_.in[port].flits + rsp_.out[port].flits; }

}  // namespace scgpu::memsys
