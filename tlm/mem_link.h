// One direction of a block boundary. A LinkOut (initiator socket) sends messages to a LinkIn
// (target socket) with the TLM-2.0 base protocol: BEGIN_REQ forward; the target either accepts at
// once (END_REQ on the return path, TLM_UPDATED) or holds the transaction until it has room and
// then sends END_REQ backward. Until that END_REQ the link takes nothing more: that is the
// back-pressure. Each block boundary is a set of such links (requests one way, responses the
// other), so every queue in the chip has exactly one producer, which keeps the model deterministic.
//
// The message rides in a tlm_generic_payload as a LinkExtension<Msg>; for memory requests the
// payload's address, command and length mirror it for tools that look only at the generic payload.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "memsys/mem_request.h"

namespace scgpu {

template <typename Msg>
struct LinkExtension : tlm::tlm_extension<LinkExtension<Msg>> {
  Msg msg{};
  tlm::tlm_extension_base* clone() const override { return new LinkExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { msg = static_cast<const LinkExtension&>(other).msg; }
};

// The payloads a LinkOut makes: a generic payload that also keeps a pointer to its own
// LinkExtension, so that neither end looks the extension up (a library call) per message. Tools
// that see only the generic payload find the message as the extension.
template <typename Msg>
struct LinkPayload : tlm::tlm_generic_payload {
  LinkExtension<Msg>* ext = nullptr;
};

// Fills the generic-payload fields that mirror a message (memory requests only).
inline void describe(tlm::tlm_generic_payload& p, const memsys::MemRequest& r) {
  p.set_address(r.addr);
  p.set_command(r.op == memsys::MemOp::Write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_data_length(r.bytes);
  p.set_streaming_width(r.bytes);
}
template <typename Msg>
inline void describe(tlm::tlm_generic_payload& p, const Msg&) {
  p.set_command(tlm::TLM_IGNORE_COMMAND);
}

template <typename Msg>
class LinkOut : public tlm::tlm_bw_transport_if<> {
 public:
  explicit LinkOut(const char* name) : socket(name) { socket.bind(*this); }
  // The payloads own their extensions: ~tlm_generic_payload frees every extension still set.
  ~LinkOut() override = default;
  tlm::tlm_initiator_socket<> socket;

  // True when the link can take a message now. A link the target released (END_REQ) at the
  // current time takes the next message only from the sender's next edge: the release happens in
  // the target's transfer step, and whether the sender's own transfer at that time runs before or
  // after it is up to SystemC's process order, which must not change results.
  bool ready() const {
    if (blocked_) return false;
    if (released_) {
      if (released_at_ == sc_core::sc_time_stamp()) return false;
      released_ = false;  // an earlier release: look at the clock no more
    }
    return true;
  }
  // Hands a message to the target, which now owns it (accepted at once or held for later); the
  // caller drops it from its own queue. Requires ready().
  void send(const Msg& m) {
    sc_assert(!blocked_);
    LinkPayload<Msg>* p = acquire();
    p->ext->msg = m;
    p->set_data_ptr(nullptr);  // values live in the functional core; the timing model moves none
    describe(*p, m);
    p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    if (socket->nb_transport_fw(*p, phase, t) == tlm::TLM_UPDATED && phase == tlm::END_REQ)
      free_.push_back(p);
    else
      blocked_ = true;  // held by the target until its END_REQ
  }

  // True while the target holds the last message (until its END_REQ): nothing can be sent before
  // that release, which calls the onRelease callback, so a sender may sleep until then.
  bool heldByTarget() const { return blocked_; }
  // Called when the target releases a held message (from the target's transfer step), e.g. to
  // wake a sender that sleeps while the link is held.
  void onRelease(std::function<void()> f) { on_release_ = std::move(f); }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time&) override {
    sc_assert(phase == tlm::END_REQ);
    blocked_ = false;
    released_ = true;
    released_at_ = sc_core::sc_time_stamp();
    free_.push_back(static_cast<LinkPayload<Msg>*>(&p));  // it made every payload that comes back
    if (on_release_) on_release_();
    return tlm::TLM_ACCEPTED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  LinkPayload<Msg>* acquire() {
    if (free_.empty()) {
      all_.push_back(std::make_unique<LinkPayload<Msg>>());
      all_.back()->ext = new LinkExtension<Msg>;
      all_.back()->set_extension(all_.back()->ext);
      free_.push_back(all_.back().get());
    }
    LinkPayload<Msg>* p = free_.back();
    free_.pop_back();
    return p;
  }
  std::vector<std::unique_ptr<LinkPayload<Msg>>> all_;
  std::vector<LinkPayload<Msg>*> free_;
  std::function<void()> on_release_;
  bool blocked_ = false;
  mutable bool released_ = false;  // since the END_REQ at released_at_, not yet looked at later
  sc_core::sc_time released_at_;
};

template <typename Msg>
class LinkIn : public tlm::tlm_fw_transport_if<> {
 public:
  // `accept` offers a message to the receiving component: true if it took it. `wake` is called
  // when one arrived, taken or held (to wake the receiver's clock domain, or the receiver in it:
  // a held message needs the receiver's transfer step to retry it).
  LinkIn(const char* name, std::function<bool(const Msg&)> accept, std::function<void()> wake)
      : socket(name), accept_(std::move(accept)), wake_(std::move(wake)) {
    socket.bind(*this);
  }
  tlm::tlm_target_socket<> socket;

  // Accepts a held message once the component has room; the owner calls it every cycle.
  void retry() {
    if (!held_ || !accept_(messageOf(*held_))) return;
    tlm::tlm_generic_payload* p = held_;
    held_ = nullptr;
    p->set_response_status(tlm::TLM_OK_RESPONSE);
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    socket->nb_transport_bw(*p, phase, t);
    wake_();
  }
  bool holding() const { return held_ != nullptr; }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time&) override {
    sc_assert(phase == tlm::BEGIN_REQ && !held_);
    if (accept_(messageOf(p))) {
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      phase = tlm::END_REQ;
      wake_();
      return tlm::TLM_UPDATED;
    }
    held_ = &p;
    wake_();
    return tlm::TLM_ACCEPTED;
  }
  // Only the non-blocking, back-pressured protocol is modelled on these links.
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) override {
    p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }

 private:
  static const Msg& messageOf(tlm::tlm_generic_payload& p) {
    // Every payload on a link is made by its LinkOut (a LinkPayload with its extension set).
    return static_cast<LinkPayload<Msg>&>(p).ext->msg;
  }
  std::function<bool(const Msg&)> accept_;
  std::function<void()> wake_;
  tlm::tlm_generic_payload* held_ = nullptr;
};

using MemOut = LinkOut<memsys::MemRequest>;
using MemIn = LinkIn<memsys::MemRequest>;

// The GigaThread engine's boundary to an SM: a block to start, and a block that retired.
struct BlockDispatch {
  std::uint32_t kernel = 0;  // the GigaThread engine's id of the kernel (GpuTop registers it with each SM)
  std::uint32_t block = 0;   // linear block index in the grid
};
struct BlockRetired {
  std::uint32_t kernel = 0;
  std::uint32_t block = 0;
  std::uint32_t sm = 0;
};

}  // namespace scgpu
