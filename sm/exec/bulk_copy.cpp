// cp.async.bulk{.tensor}, cp.reduce.async.bulk{.tensor} and their L2 prefetches: the copy engine
// (the TMA unit) moving bytes or a box of a tensor between global and shared memory, or between
// the shared memories of a cluster. The functional core copies at once and completes the
// mbarrier's transaction bytes at once; with ExecContext::bulk set (the timing model) the
// completions are recorded instead, with the global sectors the copy touched, and applied when the
// copy's memory accesses are done (sm/timing). A thread may not read a copy's destination before
// the mbarrier phase (or the bulk group) completes, so no program can tell the data arrived early.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "sm/exec/handlers.h"
#include "sm/exec/mbarrier.h"
#include "sm/exec/mem_access.h"
#include "sm/exec/float_util.h"
#include "sm/tensor_map.h"

namespace scgpu::sm {
namespace {

using ptx::BulkOp;
using ptx::DecodedInst;
using ptx::SubOp;
using namespace fp;

constexpr std::uint64_t kRunBytes = 4096;  // runs never cross a 4 KiB page of the translation

std::uint64_t valueOf(const ExecContext& c, std::uint32_t slot, int lane) {
  return slot == ptx::kNoSlot ? 0 : c.R[std::size_t(slot) * kWarpSize + lane];
}
std::uint64_t addressOf(const ExecContext& c, const BulkOp::Addr& a, int lane) {
  return valueOf(c, a.base, lane) + std::uint64_t(a.offset);
}

[[noreturn]] void bulkFault(const char* kind, const std::string& msg, int lane, std::uint64_t addr) {
  throw FaultSignal{kind, msg, std::uint32_t(lane), addr};
}

// Host bytes of global [va, va + len), which must lie in one 4 KiB page: translated and checked once.
std::uint8_t* globalRun(ExecContext& c, int lane, std::uint64_t va, std::uint64_t len, bool write) {
  const std::uint64_t pa = checkedGlobal<ptx::Space::Global>(c, lane, va, std::uint32_t(len), write);
  if (c.effects) return const_cast<std::uint8_t*>(c.effects->peek(pa));
  return c.launch->memory->hostPtr(pa);
}

// Calls f(va, len, offset) for the 4 KiB-page pieces of [va, va + len).
template <typename F>
void forRuns(std::uint64_t va, std::uint64_t len, F&& f) {
  std::uint64_t done = 0;
  while (done < len) {
    const std::uint64_t a = va + done;
    const std::uint64_t n = std::min(len - done, kRunBytes - (a % kRunBytes));
    f(a, n, done);
    done += n;
  }
}

void readGlobal(ExecContext& c, int lane, std::uint64_t va, std::uint8_t* out, std::uint64_t len) {
  forRuns(va, len, [&](std::uint64_t a, std::uint64_t n, std::uint64_t off) {
    std::memcpy(out + off, globalRun(c, lane, a, n, false), n);
  });
  if (c.bulk) c.bulk->touch(va, len);
}

// A global write: held back to the end of the cycle in the timing model, as a store is.
void writeGlobal(ExecContext& c, int lane, std::uint64_t va, const std::uint8_t* in, std::uint64_t len) {
  forRuns(va, len, [&](std::uint64_t a, std::uint64_t n, std::uint64_t off) {
    if (!c.effects) {
      std::memcpy(globalRun(c, lane, a, n, true), in + off, n);
      return;
    }
    const std::uint64_t pa = checkedGlobal<ptx::Space::Global>(c, lane, a, std::uint32_t(n), true);
    for (std::uint64_t i = 0; i < n; i += 32)
      c.effects->store(pa + i, in + off + i, std::uint32_t(std::min<std::uint64_t>(32, n - i)));
  });
  if (c.bulk) {
    c.bulk->touch(va, len);
    c.bulk->write = true;
  }
}

// One element of a reduction into `dst`: dst = dst op src.
template <typename T>
T reduceValue(T d, T s, SubOp op) {
  switch (op) {
    case SubOp::AAdd: return T(d + s);
    case SubOp::AMin: return std::min(d, s);
    case SubOp::AMax: return std::max(d, s);
    case SubOp::AAnd: return T(d & s);
    case SubOp::AOr: return T(d | s);
    case SubOp::AXor: return T(d ^ s);
    case SubOp::AInc: return d >= s ? T(0) : T(d + 1);
    case SubOp::ADec: return (d == 0 || d > s) ? s : T(d - 1);
    default: return d;
  }
}
template <>
float reduceValue<float>(float d, float s, SubOp op) {
  return op == SubOp::AAdd ? d + s : op == SubOp::AMin ? std::fmin(d, s) : op == SubOp::AMax ? std::fmax(d, s) : d;
}
template <>
double reduceValue<double>(double d, double s, SubOp op) {
  return op == SubOp::AAdd ? d + s : op == SubOp::AMin ? std::fmin(d, s) : op == SubOp::AMax ? std::fmax(d, s) : d;
}

// The element kinds a reduction knows, from the PTX type (non-tensor) or the tensor map's type.
enum class RedKind : std::uint8_t { U32, S32, U64, S64, F32, F64, F16, BF16 };

template <typename T>
void reduceAs(std::uint8_t* dst, const std::uint8_t* src, SubOp op) {
  T d, s;
  std::memcpy(&d, dst, sizeof d);
  std::memcpy(&s, src, sizeof s);
  d = reduceValue(d, s, op);
  std::memcpy(dst, &d, sizeof d);
}
// f16/bf16: the exact sum (or min/max) rounded to nearest (.noftz: subnormals are kept).
void reduceHalf(std::uint8_t* dst, const std::uint8_t* src, SubOp op, bool bf16) {
  std::uint16_t d, s;
  std::memcpy(&d, dst, 2);
  std::memcpy(&s, src, 2);
  const double fd = bf16 ? bf16ToFloat(d) : halfToFloat(d), fs = bf16 ? bf16ToFloat(s) : halfToFloat(s);
  const double r = reduceValue(fd, fs, op);  // exact for two f16 (and nearly always two bf16)
  d = bf16 ? doubleToBf16(r, RMode::Rn) : doubleToHalf(r, RMode::Rn);
  std::memcpy(dst, &d, 2);
}
void reduceElement(std::uint8_t* dst, const std::uint8_t* src, SubOp op, RedKind k) {
  switch (k) {
    case RedKind::U32: reduceAs<std::uint32_t>(dst, src, op); break;
    case RedKind::S32: reduceAs<std::int32_t>(dst, src, op); break;
    case RedKind::U64: reduceAs<std::uint64_t>(dst, src, op); break;
    case RedKind::S64: reduceAs<std::int64_t>(dst, src, op); break;
    case RedKind::F32: reduceAs<float>(dst, src, op); break;
    case RedKind::F64: reduceAs<double>(dst, src, op); break;
    case RedKind::F16: reduceHalf(dst, src, op, false); break;
    case RedKind::BF16: reduceHalf(dst, src, op, true); break;
  }
}
std::uint32_t redBytes(RedKind k) {
  return k == RedKind::U64 || k == RedKind::S64 || k == RedKind::F64 ? 8 : k == RedKind::F16 || k == RedKind::BF16 ? 2 : 4;
}

RedKind redKindOf(ptx::Type t, int lane) {
  using ptx::Type;
  switch (t) {
    case Type::U32: case Type::B32: return RedKind::U32;
    case Type::S32: return RedKind::S32;
    case Type::U64: case Type::B64: return RedKind::U64;
    case Type::S64: return RedKind::S64;
    case Type::F32: return RedKind::F32;
    case Type::F64: return RedKind::F64;
    case Type::F16: return RedKind::F16;
    case Type::BF16: return RedKind::BF16;
    default: bulkFault("illegal instruction", "cp.reduce.async.bulk: element type without a reduction", lane, 0);
  }
}
RedKind redKindOf(TmaType t, int lane) {
  switch (t) {
    case TmaType::U32: return RedKind::U32;
    case TmaType::S32: return RedKind::S32;
    case TmaType::U64: return RedKind::U64;
    case TmaType::S64: return RedKind::S64;
    case TmaType::F32: case TmaType::F32Ftz: return RedKind::F32;
    case TmaType::F64: return RedKind::F64;
    case TmaType::F16: return RedKind::F16;
    case TmaType::BF16: return RedKind::BF16;
    default: bulkFault("illegal instruction", "cp.reduce.async.bulk.tensor: the tensor map's element type has no reduction", lane, 0);
  }
}

// Reduces `len` bytes of elements from `src` into global [va, va + len): applied at the end of the
// cycle in the timing model (GlobalEffects::call), in issue order, like an atomic.
void reduceGlobal(ExecContext& c, int lane, std::uint64_t va, const std::uint8_t* src, std::uint64_t len, SubOp op,
                  RedKind k) {
  const std::uint32_t eb = redBytes(k);
  if (va % eb) memFault("misaligned address", "a", va, eb, lane, "reduction");
  forRuns(va, len, [&](std::uint64_t a, std::uint64_t n, std::uint64_t off) {
    const std::uint64_t pa = checkedGlobal<ptx::Space::Global>(c, lane, a, std::uint32_t(n), true);
    std::vector<std::uint8_t> bytes(src + off, src + off + n);
    memsys::BackingStore* mem = c.launch->memory;
    auto apply = [mem, pa, bytes = std::move(bytes), op, k, eb]() {
      for (std::uint64_t i = 0; i + eb <= bytes.size(); i += eb) reduceElement(mem->hostPtr(pa + i), bytes.data() + i, op, k);
    };
    GlobalEffects::callOrRun(c.effects, std::move(apply));
  });
  if (c.bulk) {
    c.bulk->touch(va, len);
    c.bulk->write = true;
  }
}

// Shared memory of the executing block (or, for shared::cluster addresses, another block's).
std::uint8_t* sharedBytes(ExecContext& c, int lane, std::uint64_t addr, std::uint32_t len, bool write) {
  return resolve<ptx::Space::Shared>(c, lane, addr, len, write);
}

// complete_tx on the mbarrier at shared::cluster address `mbar`: now, or when the copy is done.
void completeTx(ExecContext& c, int lane, std::uint64_t mbar, std::uint32_t bytes) {
  if (mbar % 8) memFault("misaligned address", "shared", mbar, 8, lane, "mbarrier complete_tx");
  std::uint8_t* p = sharedBytes(c, lane, mbar, 8, true);
  if (c.bulk) {
    BlockState* b = mbar >= kClusterSharedStride ? clusterBlockOf(*c.block, mbar) : c.block;
    c.bulk->completions.push_back({b, std::uint32_t(mbar % kClusterSharedStride), bytes});
    return;
  }
  mbarrierCompleteTx(p, bytes);
}

// The shared::cluster address of `addr`'s offset in the block of rank `rank` of the cluster.
std::uint64_t inRank(std::uint64_t addr, std::uint32_t rank) {
  return (std::uint64_t(rank) + 1) * kClusterSharedStride + addr % kClusterSharedStride;
}

// The destinations of a copy into shared memory: the block itself, or each block of cta_mask.
template <typename F>
void forDestinations(ExecContext& c, const BulkOp& b, int lane, F&& f) {
  if (!b.multicast) {
    f(addressOf(c, b.dst, lane), addressOf(c, b.mbar, lane));
    return;
  }
  const std::uint32_t mask = std::uint32_t(valueOf(c, b.cta_mask, lane) & 0xFFFF);
  for (std::uint32_t r = 0; r < 16; ++r)
    if (mask >> r & 1) f(inRank(addressOf(c, b.dst, lane), r), inRank(addressOf(c, b.mbar, lane), r));
}

void plainCopy(ExecContext& c, const BulkOp& b, int lane) {
  const std::uint64_t size = valueOf(c, b.size, lane) & 0xFFFFFFFFu;
  const std::uint64_t src = addressOf(c, b.src, lane);
  if (b.kind == BulkOp::Kind::Prefetch) {  // a hint: never faults
    if (c.bulk) {
      c.bulk->touch(src, size);
      c.bulk->prefetch = true;
    }
    return;
  }
  if (size % 16) bulkFault("misaligned address", fmt::format("bulk copy of {} bytes (a multiple of 16 is required)", size), lane, src);
  const std::uint64_t dst0 = addressOf(c, b.dst, lane);
  if (src % 16 || dst0 % 16)
    bulkFault("misaligned address", "bulk copy address not a multiple of 16 bytes", lane, src % 16 ? src : dst0);
  std::vector<std::uint8_t> buf(size);
  // Read the source.
  if (b.dir == BulkOp::Dir::GlobalToShared) readGlobal(c, lane, src, buf.data(), size);
  else
    for (std::uint64_t i = 0; i < size; i += 16) std::memcpy(buf.data() + i, sharedBytes(c, lane, src + i, 16, false), 16);
  if (c.bulk) c.bulk->shared_bytes += size;
  // Write the destination.
  if (b.dir == BulkOp::Dir::SharedToGlobal) {
    if (b.kind == BulkOp::Kind::Reduce) reduceGlobal(c, lane, dst0, buf.data(), size, b.red, redKindOf(b.red_type, lane));
    else writeGlobal(c, lane, dst0, buf.data(), size);
    return;
  }
  forDestinations(c, b, lane, [&](std::uint64_t dst, std::uint64_t mbar) {
    if (b.kind == BulkOp::Kind::Reduce) {
      const RedKind k = redKindOf(b.red_type, lane);
      const std::uint32_t eb = redBytes(k);
      for (std::uint64_t i = 0; i < size; i += eb) reduceElement(sharedBytes(c, lane, dst + i, eb, true), buf.data() + i, b.red, k);
    } else {
      for (std::uint64_t i = 0; i < size; i += 16) std::memcpy(sharedBytes(c, lane, dst + i, 16, true), buf.data() + i, 16);
    }
    completeTx(c, lane, mbar, std::uint32_t(size));
  });
}

TensorMap readTensorMap(ExecContext& c, const BulkOp& b, int lane) {
  std::uint64_t a = addressOf(c, b.tmap, lane);
  if (b.tmap_param) a += kParamWindowBase;  // [param, {...}]: the parameter's offset
  if (a % kTensorMapAlign) bulkFault("misaligned address", "tensor map not 64-byte aligned", lane, a);
  std::uint8_t bytes[kTensorMapBytes];
  for (std::uint32_t i = 0; i < kTensorMapBytes; i += 16)
    std::memcpy(bytes + i, resolve<ptx::Space::Generic>(c, lane, a + i, 16, false), 16);
  TensorMap m;
  std::string why;
  if (!decodeTensorMap(bytes, m, &why)) bulkFault("illegal instruction", "cp.async.bulk.tensor: " + why, lane, a);
  return m;
}

// The fill of an out-of-bound element: zero, or the NaN that CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_
// REQUEST_ZERO_FMA asks for. The H100 fills f32 elements with 0x7FF77FF7 (docs/data/h100_tma_probe.txt,
// f32_nanfill): the pattern 0x7FF7 repeated, which the other widths are taken to repeat too.
void oobFill(const TensorMap& m, std::uint8_t* p) {
  const std::uint32_t eb = m.elementBytes();
  std::memset(p, 0, eb);
  if (!m.oob_nan) return;
  const std::uint64_t nan = 0x7FF77FF77FF77FF7ull;
  std::memcpy(p, &nan, eb);
}

// Where byte `off` of a box of `row_bytes` rows lies in shared memory from `base`: rows are dense
// without a swizzle; with one, each row starts a span of its own (a 64-byte row under the 128-byte
// swizzle leaves 64 bytes unwritten: H100, docs/data/h100_tma_probe.txt, u32_128B_narrow), and
// 16-byte chunks move within the span.
struct BoxPlacement {
  std::uint64_t row_bytes, smem_row;
  TmaSwizzle swizzle;
  BoxPlacement(std::uint64_t row, TmaSwizzle s) : row_bytes(row), swizzle(s) {
    const std::uint64_t span = s == TmaSwizzle::B32 ? 32 : s == TmaSwizzle::B64 ? 64 : 128;
    smem_row = s == TmaSwizzle::None ? row : (row + span - 1) / span * span;
  }
  std::uint64_t operator()(std::uint64_t base, std::uint64_t off) const {
    return swizzleSharedAddress(base + off / row_bytes * smem_row + off % row_bytes, swizzle);
  }
};

// A load's box, gathered: into the shared memory of each destination CTA, and its bytes counted
// off each one's mbarrier.
void deliverBox(ExecContext& c, const BulkOp& b, int lane, const std::vector<std::uint8_t>& box, const BoxPlacement& placed) {
  if (c.bulk) c.bulk->shared_bytes += box.size();
  forDestinations(c, b, lane, [&](std::uint64_t dst, std::uint64_t mbar) {
    for (std::uint64_t off = 0; off < box.size(); off += 16)
      std::memcpy(sharedBytes(c, lane, placed(dst, off), 16, true), box.data() + off, 16);
    completeTx(c, lane, mbar, std::uint32_t(box.size()));
  });
}

// An im2col load (or its L2 prefetch), as the PTX ISA describes the mode and the H200 does it
// (cuda_programs/api/tma_im2col, docs/data/h200_tma_im2col.txt): dimension 0 holds the channels,
// the last the images (N), those between are spatial (W, H, D). In spatial dimension s the
// bounding box holds the base positions lower[s] .. size[s] - 1 + upper[s]; the coordinates give
// the first pixel's base, its first channel and its image; each next pixel's base is one element
// stride on along W, wrapping to lower[W] (and a stride on along H) past the box's end, H into D
// and D into the next image. A pixel is channels c .. c + channelsPerPixel - 1 at its base plus the
// im2col offsets, one row of the box; elements outside the tensor are the fill.
void im2colCopy(ExecContext& c, const BulkOp& b, const TensorMap& m, int lane) {
  const std::uint32_t spatial = m.rank - 2, last = m.rank - 1;
  std::int64_t coord[5] = {}, base[3] = {}, off[3] = {};
  for (std::uint32_t d = 0; d < m.rank; ++d) coord[d] = std::int32_t(valueOf(c, b.coords[d], lane));
  for (std::uint32_t s = 0; s < spatial; ++s) {
    base[s] = coord[1 + s];
    off[s] = std::uint16_t(valueOf(c, b.im2col_offsets[s], lane));
  }
  std::int64_t image = coord[last];
  const std::uint32_t eb = m.elementBytes(), channels = m.channels_per_pixel;
  const std::uint64_t row_bytes = std::uint64_t(channels) * eb;
  const BoxPlacement placed(row_bytes, m.swizzle);
  const bool prefetch = b.kind == BulkOp::Kind::Prefetch;
  if (prefetch) {
    if (!c.bulk) return;
    c.bulk->prefetch = true;
  }
  const std::uint64_t smem = prefetch ? 0 : addressOf(c, b.dst, lane);
  if (smem % 128) bulkFault("misaligned address", "tensor copy's shared-memory address not a multiple of 128 bytes", lane, smem);
  // The channels in the tensor: one run of global memory a pixel.
  const std::int64_t lo = std::clamp<std::int64_t>(-coord[0], 0, channels);
  const std::int64_t hi = std::clamp<std::int64_t>(std::int64_t(m.size[0]) - coord[0], lo, channels);
  std::vector<std::uint8_t> box(m.boxBytes());
  for (std::uint32_t p = 0; p < m.pixels_per_column; ++p) {
    bool inside = image >= 0 && std::uint64_t(image) < m.size[last];
    std::uint64_t goff = std::uint64_t(image) * m.stride_bytes[last];
    for (std::uint32_t s = 0; s < spatial; ++s) {
      const std::int64_t g = base[s] + off[s];
      if (g < 0 || std::uint64_t(g) >= m.size[1 + s]) inside = false;
      goff += std::uint64_t(g) * m.stride_bytes[1 + s];
    }
    std::uint8_t* row = box.data() + std::uint64_t(p) * row_bytes;
    for (std::int64_t i = 0; i < std::int64_t(channels); ++i)
      if (!inside || i < lo || i >= hi) oobFill(m, row + i * eb);
    if (inside && hi > lo) {
      const std::uint64_t va = m.global_address + goff + std::uint64_t(coord[0] + lo) * eb;
      if (prefetch) c.bulk->touch(va, std::uint64_t(hi - lo) * eb);
      else readGlobal(c, lane, va, row + lo * eb, std::uint64_t(hi - lo) * eb);
    }
    std::uint32_t s = 0;
    for (; s < spatial; ++s) {
      base[s] += m.element_stride[1 + s];
      if (base[s] <= std::int64_t(m.size[1 + s]) - 1 + m.upper_corner[s]) break;
      base[s] = m.lower_corner[s];
    }
    if (s == spatial) image += m.element_stride[last];
  }
  if (!prefetch) deliverBox(c, b, lane, box, placed);
}

// A tiled tensor copy: for each row of the box (dimension 0), the in-bound elements are one run
// of global memory; the row sits densely in shared memory, 16-byte chunks placed by the swizzle.
void tensorCopy(ExecContext& c, const BulkOp& b, int lane) {
  const TensorMap m = readTensorMap(c, b, lane);
  if (m.rank != b.rank)
    bulkFault("illegal instruction", fmt::format("a {}-d tensor copy with a tensor map of rank {}", b.rank, m.rank), lane,
              addressOf(c, b.tmap, lane));
  if (m.im2col != b.im2col)
    bulkFault("illegal instruction",
              m.im2col ? "a .tile tensor copy with an im2col tensor map" : "an .im2col tensor copy with a tiled tensor map",
              lane, addressOf(c, b.tmap, lane));
  if (m.im2col) return im2colCopy(c, b, m, lane);
  std::int64_t coord[5] = {};
  for (std::uint32_t d = 0; d < m.rank; ++d) coord[d] = std::int32_t(valueOf(c, b.coords[d], lane));
  const std::uint32_t eb = m.elementBytes();
  std::uint32_t n[5] = {1, 1, 1, 1, 1};
  for (std::uint32_t d = 0; d < m.rank; ++d) n[d] = m.boxCount(d);
  const std::uint64_t row_bytes = std::uint64_t(n[0]) * eb;
  const BoxPlacement placed(row_bytes, m.swizzle);
  const std::uint64_t box_bytes = m.boxBytes();
  if (b.kind == BulkOp::Kind::Prefetch) {
    if (!c.bulk) return;
    c.bulk->prefetch = true;
  }
  const bool to_shared = b.dir == BulkOp::Dir::GlobalToShared;
  const std::uint64_t smem = b.kind == BulkOp::Kind::Prefetch ? 0 : addressOf(c, to_shared ? b.dst : b.src, lane);
  if (smem % 128) bulkFault("misaligned address", "tensor copy's shared-memory address not a multiple of 128 bytes", lane, smem);
  const RedKind rk = b.kind == BulkOp::Kind::Reduce ? redKindOf(m.type, lane) : RedKind::U32;
  std::vector<std::uint8_t> box(box_bytes);
  if (!to_shared && b.kind != BulkOp::Kind::Prefetch) {  // gather the box out of (swizzled) shared memory
    for (std::uint64_t off = 0; off < box_bytes; off += 16)
      std::memcpy(box.data() + off, sharedBytes(c, lane, placed(smem, off), 16, false), 16);
    if (c.bulk) c.bulk->shared_bytes += box_bytes;
  }
  // Rows: every index of dimensions 1..4.
  const std::uint64_t rows = box_bytes / row_bytes;
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::uint64_t rest = r, goff = 0;
    bool inside = true;
    for (std::uint32_t d = 1; d < m.rank; ++d) {
      const std::int64_t g = coord[d] + std::int64_t(rest % n[d]) * m.element_stride[d];
      rest /= n[d];
      if (g < 0 || std::uint64_t(g) >= m.size[d]) inside = false;
      goff += std::uint64_t(g) * m.stride_bytes[d];
    }
    std::uint8_t* row = box.data() + r * row_bytes;
    const std::int64_t lo = std::clamp<std::int64_t>(-coord[0], 0, n[0]);
    const std::int64_t hi = std::clamp<std::int64_t>(std::int64_t(m.size[0]) - coord[0], lo, n[0]);
    const std::uint64_t first_va = m.global_address + goff + std::uint64_t(coord[0] + lo) * eb;
    const std::uint64_t run = inside ? std::uint64_t(hi - lo) * eb : 0;
    if (to_shared || b.kind == BulkOp::Kind::Prefetch) {
      for (std::int64_t i = 0; i < std::int64_t(n[0]); ++i)
        if (!inside || i < lo || i >= hi) oobFill(m, row + i * eb);
      if (b.kind == BulkOp::Kind::Prefetch) {
        if (run) c.bulk->touch(first_va, run);
      } else if (run) {
        readGlobal(c, lane, first_va, row + lo * eb, run);
      }
    } else if (run) {  // out-of-bound elements are not written
      if (b.kind == BulkOp::Kind::Reduce) reduceGlobal(c, lane, first_va, row + lo * eb, run, b.red, rk);
      else writeGlobal(c, lane, first_va, row + lo * eb, run);
    }
  }
  if (!to_shared || b.kind == BulkOp::Kind::Prefetch) return;
  deliverBox(c, b, lane, box, placed);
}

void cpBulk(ExecContext& c, const DecodedInst& in) {
  const BulkOp& b = c.program->bulk_ops[in.target];
  forLanes(c.mask, [&](int lane) {
    if (b.tensor) tensorCopy(c, b, lane);
    else plainCopy(c, b, lane);
  });
}

void nop(ExecContext&, const DecodedInst&) {}

}  // namespace

ptx::ExecFn selectBulkCopyHandler(const DecodedInst& in) {
  switch (in.op) {
    case ptx::Op::CpBulk: return &cpBulk;
    case ptx::Op::CpBulkCommit: case ptx::Op::CpBulkWait: return &nop;  // the timing model times the groups
    default: return nullptr;
  }
}

}  // namespace scgpu::sm
