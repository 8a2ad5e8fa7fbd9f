// The product's RTL L2 tag/MSHR stage: the Verilated rtl/l2_tag_mshr.sv behind its transactor
// (rtl/l2_tag_transactor.h), with the checks a config's slice geometry must pass. Registered as the
// "rtl" implementation by registrations.cpp.
#include "rtl/l2_tag_mshr_rtl.h"

#include <fmt/format.h>

#include <stdexcept>

#include "Vl2_tag_mshr.h"
#include "Vl2_tag_mshr_wave.h"
#include "rtl/rtl_params.h"
#include "rtl/l2_tag_transactor.h"

namespace scgpu::rtl {
namespace {

unsigned log2u(std::uint64_t v) { return unsigned(63 - __builtin_clzll(v)); }

}  // namespace

std::unique_ptr<memsys::L2TagMshr> makeRtlL2TagMshr(const memsys::L2TagParams& p, const std::string& instance) {
  const CacheParams& c = p.cache;
  // The geometry the config asks for; the model's own checks (powers of two, multiples) come first.
  memsys::SectorCache geometry(c);
  const std::uint32_t sets = geometry.sets();
  auto refuse = [&](const std::string& what, std::uint64_t value, const char* param, std::uint64_t built) {
    throw std::invalid_argument(fmt::format("{}: {} = {}, but the RTL tag/MSHR stage (rtl/l2_tag_mshr.sv) was built "
                                            "with {} = {}",
                                            instance, what, value, param, built));
  };
  if (sets > kL2Sets)
    refuse("l2.cache.size_bytes / (line_bytes x associativity), the sets,", sets, "SETS", kL2Sets);
  if (c.associativity > kL2Ways) refuse("l2.cache.associativity", c.associativity, "WAYS", kL2Ways);
  if (c.line_bytes / c.sector_bytes > kL2Sectors)
    refuse("l2.cache.line_bytes / sector_bytes, the sectors per line,", c.line_bytes / c.sector_bytes, "SECTORS",
           kL2Sectors);
  if (c.mshr_entries > kL2MshrEntries) refuse("l2.cache.mshr_entries", c.mshr_entries, "ENTRIES", kL2MshrEntries);
  if (c.mshr_max_merge > kL2MshrMerge) refuse("l2.cache.mshr_max_merge", c.mshr_max_merge, "MERGE", kL2MshrMerge);
  if (64 - log2u(c.line_bytes) > kL2LineBits)
    refuse("64 - log2(l2.cache.line_bytes), the line-number bits,", 64 - log2u(c.line_bytes), "LINE_W", kL2LineBits);
  return std::make_unique<L2TagTransactor<Vl2_tag_mshr, Vl2_tag_mshr_wave>>(p, sets);
}

}  // namespace scgpu::rtl
