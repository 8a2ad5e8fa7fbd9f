// The product's RTL coalescer: the Verilated rtl/lsu_coalescer.sv behind its transactor, with the
// parameter checks a config must pass. Registered as the "rtl" implementation by registrations.cpp.
#include "rtl/coalescer_rtl.h"

#include <fmt/format.h>

#include <stdexcept>

#include "Vlsu_coalescer.h"
#include "Vlsu_coalescer_wave.h"
#include "rtl/coalescer_transactor.h"
#include "rtl/rtl_params.h"

namespace scgpu::rtl {

std::unique_ptr<sm::timing::Coalescer> makeRtlCoalescer(const sm::timing::CoalescerParams& p, const std::string& instance) {
  // Verilator fixes the parameters when it builds the model: a config asking for others is an error
  // naming the config key and the RTL parameter.
  if (p.line_bytes != kCoalescerLineBytes)
    throw std::invalid_argument(fmt::format("sm.l1.line_bytes = {}, but the RTL coalescer (rtl/lsu_coalescer.sv) was "
                                            "built with LINE_BYTES = {}",
                                            p.line_bytes, kCoalescerLineBytes));
  if (p.sector_bytes != kCoalescerSectorBytes)
    throw std::invalid_argument(fmt::format("sm.l1.sector_bytes = {}, but the RTL coalescer (rtl/lsu_coalescer.sv) "
                                            "was built with SECTOR_BYTES = {}",
                                            p.sector_bytes, kCoalescerSectorBytes));
  return std::make_unique<CoalescerTransactor<Vlsu_coalescer, Vlsu_coalescer_wave>>(instance);
}

}  // namespace scgpu::rtl
