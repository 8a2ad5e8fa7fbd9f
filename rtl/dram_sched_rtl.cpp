// The product's RTL DRAM command scheduler: the checks of the channel's parameters against the
// ones the block was built with, then the Verilated rtl/dram_cmd_sched.sv behind its transactor
// (dram_sched_transactor.h). Registered as the "rtl" implementation by registrations.cpp.
#include "rtl/dram_sched_rtl.h"

#include <fmt/format.h>

#include <stdexcept>

#include "Vdram_cmd_sched.h"
#include "Vdram_cmd_sched_wave.h"
#include "rtl/dram_sched_transactor.h"
#include "rtl/rtl_params.h"

namespace scgpu::rtl {

std::unique_ptr<memsys::DramScheduler> makeRtlDramScheduler(const memsys::DramSchedParams& p,
                                                            const std::string& instance) {
  auto refuse = [&](const std::string& what) {
    throw std::invalid_argument(fmt::format("{}: {}", instance, what));
  };
  const std::uint32_t banks = p.bank_groups * p.banks_per_group;
  if (banks > kDramBanks)
    refuse(fmt::format("dram.bank_groups x dram.banks_per_group = {} banks, but the RTL scheduler "
                       "(rtl/dram_cmd_sched.sv) was built with NUM_BANKS = {}",
                       banks, kDramBanks));
  for (const auto& [key, entries] : {std::pair<const char*, std::uint32_t>{"read_queue_entries", p.read_queue_entries},
                                      {"write_queue_entries", p.write_queue_entries}})
    if (entries > kDramQueueDepth)
      refuse(fmt::format("dram.{} = {}, but the RTL scheduler (rtl/dram_cmd_sched.sv) was built with QUEUE_DEPTH = {}",
                         key, entries, kDramQueueDepth));
  // The channel tags every queued burst and frees a tag when its column command issues.
  if (p.read_queue_entries + p.write_queue_entries > (1u << kDramTagBits))
    refuse(fmt::format("dram.read_queue_entries + dram.write_queue_entries = {} bursts, but the RTL scheduler "
                       "(rtl/dram_cmd_sched.sv) was built with TAG_BITS = {} (at most {} tags)",
                       p.read_queue_entries + p.write_queue_entries, kDramTagBits, 1u << kDramTagBits));
  if (p.rows > (1u << kDramRowBits))
    refuse(fmt::format("dram.rows = {}, but the RTL scheduler (rtl/dram_cmd_sched.sv) was built with ROW_BITS = {} "
                       "(at most {} rows)",
                       p.rows, kDramRowBits, 1u << kDramRowBits));
  if (p.controller_latency_cycles >= (1u << kDramWaitBits))
    refuse(fmt::format("dram.controller_latency_cycles = {}, but the RTL scheduler (rtl/dram_cmd_sched.sv) was "
                       "built with WAIT_BITS = {} (at most {})",
                       p.controller_latency_cycles, kDramWaitBits, (1u << kDramWaitBits) - 1));
  // The largest value a timing counter is loaded with, and each parameter, must fit TIME_BITS.
  const DramTimingParams& t = p.timing;
  const std::uint64_t limit = (1ull << kDramTimeBits) - 1;
  const std::pair<const char*, std::uint64_t> loads[] = {
      {"tRCD", t.tRCD}, {"tRC", t.tRC}, {"tCCD_S", t.tCCD_S}, {"tCCD_L", t.tCCD_L}, {"tRRD_S", t.tRRD_S},
      {"tRRD_L", t.tRRD_L}, {"tFAW", t.tFAW}, {"tRTW", t.tRTW}, {"tREFI", t.tREFI}, {"tRFC", t.tRFC},
      {"tRAS + tRP", std::uint64_t(t.tRAS) + t.tRP}, {"tRTP + tRP", std::uint64_t(t.tRTP) + t.tRP},
      {"tCL + burst", std::uint64_t(t.tCL) + p.burst_cycles},
      {"tCWL + burst + tWTR", std::uint64_t(t.tCWL) + p.burst_cycles + t.tWTR},
      {"tCWL + burst + tWR + tRP", std::uint64_t(t.tCWL) + p.burst_cycles + t.tWR + t.tRP}};
  for (const auto& [name, v] : loads)
    if (v > limit)
      refuse(fmt::format("dram.timing: {} = {} cycles, but the RTL scheduler (rtl/dram_cmd_sched.sv) was built "
                         "with TIME_BITS = {} (at most {})",
                         name, v, kDramTimeBits, limit));
  return std::make_unique<DramSchedTransactor<Vdram_cmd_sched, Vdram_cmd_sched_wave>>(p, instance);
}

}  // namespace scgpu::rtl
