// mbarrier.*: the barrier object is 8 bytes of shared memory, opaque to PTX. scgpu's layout:
//   bits  0..19  expected arrivals per phase (init's count)
//   bits 20..39  arrivals still pending in the current phase
//   bits 40..61  pending transaction bytes (expect_tx adds, complete_tx subtracts; 22-bit two's
//                complement, so that a complete_tx may come before its expect_tx)
//   bit  63      the current phase's parity
// A phase completes when no arrival and no transaction is pending: the parity flips and the
// pending arrivals are reloaded. An arrive returns a state whose bit 63 is the parity of the phase
// it arrived on; test_wait/try_wait on that state (or, .parity, on a parity) is true once that
// phase has completed. Lanes act one after another in lane order. The timing model issues these
// on the integer pipe (their shared-memory atomic is not timed).
#include "sm/exec/mbarrier.h"

#include "sm/exec/handlers.h"
#include "sm/exec/mem_access.h"

namespace scgpu::sm {
namespace {

using ptx::DecodedInst;
using ptx::SubOp;

constexpr std::uint64_t kCountMask = (1ull << 20) - 1;
constexpr std::uint64_t kTxMask = (1ull << 22) - 1;

struct Barrier {
  std::uint32_t expected = 0, pending = 0;
  std::int32_t tx = 0;
  std::uint32_t parity = 0;
  static Barrier load(std::uint64_t w) {
    Barrier b;
    b.expected = std::uint32_t(w & kCountMask);
    b.pending = std::uint32_t((w >> 20) & kCountMask);
    const std::uint32_t tx = std::uint32_t((w >> 40) & kTxMask);
    b.tx = std::int32_t(tx << 10) >> 10;  // sign-extend 22 bits
    b.parity = std::uint32_t(w >> 63);
    return b;
  }
  std::uint64_t store() const {
    return std::uint64_t(expected) | std::uint64_t(pending) << 20 | (std::uint64_t(std::uint32_t(tx)) & kTxMask) << 40 |
           std::uint64_t(parity) << 63;
  }
  void completeIfDone() {
    if (pending == 0 && tx == 0) {
      parity ^= 1;
      pending = expected;
    }
  }
};

// The barrier's 8 bytes for `lane` (shared, or a generic address in the shared window).
std::uint8_t* barrierBytes(ExecContext& c, const DecodedInst& in, int lane, bool write) {
  const std::uint64_t addr = effectiveAddress(c, in, lane);
  if (in.space == ptx::Space::Shared) return resolve<ptx::Space::Shared>(c, lane, addr, 8, write);
  if (!inSharedWindow(addr))
    throw FaultSignal{"illegal address",
                      "mbarrier on a generic address outside shared memory (an mbarrier lives in shared memory)",
                      std::uint32_t(lane), addr};
  return resolve<ptx::Space::Generic>(c, lane, addr, 8, write);
}

void mbarrier(ExecContext& c, const DecodedInst& in) {
  const auto src = [&](int lane) { return c.R[std::size_t(in.src[0]) * kWarpSize + lane]; };
  std::uint32_t pred = 0;
  forLanes(c.mask, [&](int lane) {
    const bool reads_only = in.sub == SubOp::MbarTestWait || in.sub == SubOp::MbarTryWait;
    if (in.sub == SubOp::MbarPendingCount) {  // from a state, not the object: scgpu's states hold no count
      c.R[std::size_t(in.dst[0]) * kWarpSize + lane] = 0;
      return;
    }
    std::uint8_t* p = barrierBytes(c, in, lane, !reads_only);
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    Barrier b = Barrier::load(w);
    switch (in.sub) {
      case SubOp::MbarInit: {
        const std::uint64_t n = src(lane) & 0xFFFFFFFFu;
        if (n == 0 || n > kCountMask)
          throw FaultSignal{"illegal instruction", "mbarrier.init count must be in [1, 2^20 - 1]", std::uint32_t(lane), 0};
        b = Barrier{};
        b.expected = b.pending = std::uint32_t(n);
        break;
      }
      case SubOp::MbarInval: b = Barrier{}; break;
      case SubOp::MbarExpectTx: b.tx += std::int32_t(src(lane)); break;
      case SubOp::MbarCompleteTx: b.tx -= std::int32_t(src(lane)); b.completeIfDone(); break;
      case SubOp::MbarArrive: case SubOp::MbarArriveDrop: {
        if (in.flags & ptx::kMbarExpectTx) b.tx += std::int32_t(src(lane));
        const std::uint32_t n = (in.flags & ptx::kHasCount) ? std::uint32_t(src(lane)) : 1u;
        if (in.dst[0] != ptx::kNoSlot) c.R[std::size_t(in.dst[0]) * kWarpSize + lane] = std::uint64_t(b.parity) << 63;
        if (n > b.pending)
          throw FaultSignal{"illegal instruction",
                            "mbarrier.arrive: more arrivals than the phase expects (or the barrier is not initialised)",
                            std::uint32_t(lane), 0};
        b.pending -= n;
        if (in.sub == SubOp::MbarArriveDrop) b.expected -= std::min(b.expected, n);
        b.completeIfDone();
        break;
      }
      case SubOp::MbarTestWait: case SubOp::MbarTryWait: {
        const std::uint32_t phase = (in.flags & ptx::kMbarParity) ? std::uint32_t(src(lane) & 1) : std::uint32_t(src(lane) >> 63);
        if (b.parity != phase) pred |= 1u << lane;  // that phase has completed
        return;
      }
      default: break;
    }
    w = b.store();
    std::memcpy(p, &w, 8);
  });
  if (in.sub == SubOp::MbarTryWait && c.suspend_try_wait && pred != c.mask) {
    c.suspended = true;  // FunctionalEngine::step undoes the issue
    return;
  }
  if (in.sub == SubOp::MbarTestWait || in.sub == SubOp::MbarTryWait) {
    std::uint32_t& pr = c.P[in.dst[0]];
    pr = (pr & ~c.mask) | pred;
  }
}

}  // namespace

void mbarrierCompleteTx(std::uint8_t* object, std::uint32_t bytes) {
  std::uint64_t w;
  std::memcpy(&w, object, 8);
  Barrier b = Barrier::load(w);
  b.tx -= std::int32_t(bytes);
  b.completeIfDone();
  w = b.store();
  std::memcpy(object, &w, 8);
}

bool mbarrierWaitPending(ExecContext& c, const DecodedInst& in) {
  bool pending = false;
  try {
    forLanes(c.mask, [&](int lane) {
      std::uint64_t w;
      std::memcpy(&w, barrierBytes(c, in, lane, false), 8);
      const std::uint64_t s = c.R[std::size_t(in.src[0]) * kWarpSize + lane];
      const std::uint32_t phase = (in.flags & ptx::kMbarParity) ? std::uint32_t(s & 1) : std::uint32_t(s >> 63);
      pending |= Barrier::load(w).parity == phase;
    });
  } catch (const FaultSignal&) {
    return false;
  }
  return pending;
}

ptx::ExecFn selectMbarrierHandler(const DecodedInst& in) { return in.op == ptx::Op::Mbarrier ? &mbarrier : nullptr; }

}  // namespace scgpu::sm
