// Address resolution for memory instructions: from a lane's address in a state space to host
// bytes, with the checks a GPU makes (alignment, bounds, live allocation), raising the fault it
// would raise.
#pragma once

#include <cinttypes>
#include <cstdio>
#include <string>

#include "memsys/backing_store.h"
#include "sm/address_space.h"
#include "sm/cluster.h"
#include "sm/exec_context.h"
#include "sm/fault.h"
#include "sm/global_effects.h"
#include "sm/launch_state.h"
#include "sm/simt.h"

namespace scgpu::sm {

[[noreturn]] inline void memFault(const char* kind, const char* space, std::uint64_t addr, std::uint32_t size,
                                  int lane, const char* what) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%u-byte %s of %s address 0x%016" PRIx64 " %s", size, what, space, addr,
                what[0] == 'w' ? "" : "");
  std::string msg = buf;
  msg += std::string(kind) == "misaligned address" ? " (not a multiple of the access size)" : "";
  throw FaultSignal{kind, msg, std::uint32_t(lane), addr};
}

// The physical address of a global access at virtual `va`, through the launch's page tables; a
// page fault names the level and the reason of the failed walk.
inline std::uint64_t translateGlobal(ExecContext& c, int lane, std::uint64_t va, std::uint32_t size, bool write) {
  // The timing model keeps the last page per SM (SMs tick on several host threads), the
  // functional core per launch.
  memsys::LastPage& last = c.effects ? c.effects->page : c.launch->page;
  const std::uint64_t root = c.launch->page_table_root;
  std::uint64_t pa;
  if (last.hit(root, va, write, &pa)) return pa;
  const memsys::Translation t = c.launch->mmu->translate(root, va, write);
  if (!t.ok) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%u-byte %s of global address 0x%016" PRIx64 ": page fault at level %u (%s)", size,
                  write ? "write" : "read", va, t.level, memsys::faultReasonName(t.reason));
    // CUDA reports an unmapped page as an illegal address; the report and ERR_MMU_FAULT say more.
    throw FaultSignal{"illegal address", buf, std::uint32_t(lane), va, t.faultWord(write)};
  }
  last.remember(root, va, t);
  return t.pa;
}

// The physical address of an aligned global (or constant) access: translated, and checked to lie
// in a live allocation. Through the SM's read-only view of the store in the timing model
// (c.effects), through the store itself in the functional core.
template <ptx::Space S>
inline std::uint64_t checkedGlobal(ExecContext& c, int lane, std::uint64_t addr, std::uint32_t size, bool write) {
  if (S == ptx::Space::Global && c.launch->page_table_root) addr = translateGlobal(c, lane, addr, size, write);
  const bool valid = c.effects ? c.effects->valid(addr, size) : c.launch->memory->valid(addr, size);
  if (!valid)
    memFault("illegal address", S == ptx::Space::Const ? "constant" : "global", addr, size, lane,
             write ? "write" : "read");
  return addr;
}

// Where a write (or atomic) of a lane lands in global memory when the timing model holds it back
// (c.effects set and the address global, generic addresses resolved): true with *pa set.
template <ptx::Space S>
inline bool heldBackGlobal(ExecContext& c, int lane, std::uint64_t addr, std::uint32_t size, std::uint64_t* pa) {
  if (!c.effects) return false;
  if constexpr (S == ptx::Space::Generic) {
    if (inAnyWindow(addr)) return false;
  } else if constexpr (S != ptx::Space::Global) {
    return false;
  }
  if (addr & (size - 1)) memFault("misaligned address", "a", addr, size, lane, "write");
  *pa = checkedGlobal<ptx::Space::Global>(c, lane, addr, size, true);
  return true;
}

// Bytes for an access of `size` bytes at `addr` in space S by `lane`. `write` only selects the
// wording of the fault and rejects writes to read-only spaces.
template <ptx::Space S>
inline std::uint8_t* resolve(ExecContext& c, int lane, std::uint64_t addr, std::uint32_t size, bool write) {
  const char* what = write ? "write" : "read";
  if constexpr (S == ptx::Space::Generic) {
    if (inSharedWindow(addr)) return resolve<ptx::Space::Shared>(c, lane, addr - kSharedWindowBase, size, write);
    if (inLocalWindow(addr)) return resolve<ptx::Space::Local>(c, lane, addr - kLocalWindowBase, size, write);
    if (inParamWindow(addr)) return resolve<ptx::Space::KernelParam>(c, lane, addr - kParamWindowBase, size, write);
    return resolve<ptx::Space::Global>(c, lane, addr, size, write);
  } else {
    if (addr & (size - 1)) memFault("misaligned address", "a", addr, size, lane, what);
    if constexpr (S == ptx::Space::Global || S == ptx::Space::Const) {
      const std::uint64_t pa = checkedGlobal<S>(c, lane, addr, size, write);
      // The timing model reads without changing the store (its writes are held back and never
      // come here: heldBackGlobal).
      if (c.effects) return const_cast<std::uint8_t*>(c.effects->peek(pa));
      return c.launch->memory->hostPtr(pa);
    } else if constexpr (S == ptx::Space::Shared) {
      BlockState* b = c.block;
      if (addr >= kClusterSharedStride) {  // distributed shared memory: another block of the cluster
        b = clusterBlockOf(*c.block, addr);
        if (!b) memFault("illegal address", "shared::cluster (no running block of the cluster)", addr, size, lane, what);
        addr %= kClusterSharedStride;
      }
      if (addr + size > b->shared.size() || addr + size < addr)
        memFault("illegal address", "shared", addr, size, lane, what);
      return b->shared.data() + addr;
    } else if constexpr (S == ptx::Space::Local) {
      if (addr + size > c.warp->local_stride || addr + size < addr)
        memFault("illegal address", "local", addr, size, lane, what);
      return localBytes(*c.warp, lane, addr);
    } else {  // KernelParam
      if (write) memFault("illegal address", "kernel parameter (read-only)", addr, size, lane, what);
      if (addr + size > c.launch->params.size() || addr + size < addr)
        memFault("illegal address", "kernel parameter", addr, size, lane, what);
      return c.launch->params.data() + addr;
    }
  }
}

// Records a lane's access for the timing model (generic addresses resolved to their space).
template <ptx::Space S>
inline void traceAccess(ExecContext& c, int lane, std::uint64_t addr, std::uint32_t bytes, bool write, bool atomic) {
  MemTrace& t = *c.trace;
  ptx::Space space = S;
  if constexpr (S == ptx::Space::Generic) {
    if (inSharedWindow(addr)) { space = ptx::Space::Shared; addr -= kSharedWindowBase; }
    else if (inLocalWindow(addr)) { space = ptx::Space::Local; addr -= kLocalWindowBase; }
    else if (inParamWindow(addr)) { space = ptx::Space::KernelParam; addr -= kParamWindowBase; }
    else space = ptx::Space::Global;
  }
  // A shared::cluster address of the block itself is an ordinary shared access; another block's
  // says whether that block is in the same TPC (the LSU times it as distributed shared memory).
  if (space == ptx::Space::Shared && addr >= kClusterSharedStride) {
    const BlockState* target = clusterBlockOf(*c.block, addr);
    addr %= kClusterSharedStride;
    if (target != c.block)
      addr += dsmemTag(target && target->tpc == c.block->tpc ? kDsmemNear : kDsmemFar,
                       target ? target->cluster_rank : 0);
  }
  t.generic = S == ptx::Space::Generic;
  t.mask |= 1u << lane;
  t.bytes = bytes;
  t.write = write;
  t.atomic = atomic;
  t.addr[lane] = addr;
  t.space[lane] = space;
}

// A lane's effective address: base slot plus offset.
inline std::uint64_t effectiveAddress(const ExecContext& c, const ptx::DecodedInst& in, int lane) {
  std::uint64_t base = in.aux == ptx::kNoSlot ? 0 : c.R[std::size_t(in.aux) * kWarpSize + lane];
  return base + std::uint64_t(in.imm);
}

}  // namespace scgpu::sm
