// Registers the RTL implementations with the boundaries they implement, from a static initialiser:
// this object is linked into every executable that can run RTL (an OBJECT library, so the linker
// keeps it), and the model then finds them when the config asks for `impl: rtl` or `cosim`.
#include "rtl/coalescer_rtl.h"
#include "rtl/dram_sched_rtl.h"
#include "rtl/warp_sched_rtl.h"
#include "rtl/xbar_arbiter_rtl.h"
// L2 tag/MSHR stage
#include "rtl/l2_tag_mshr_rtl.h"

namespace scgpu::rtl {
namespace {

struct Registrar {
  Registrar() {
    sm::timing::registerRtlCoalescer(makeRtlCoalescer);
    sm::timing::registerRtlWarpScheduler(makeRtlWarpScheduler);
    memsys::registerRtlCrossbarArbiter(makeRtlCrossbarArbiter);
    // L2 tag/MSHR stage
    memsys::registerRtlL2TagMshr(makeRtlL2TagMshr);
    memsys::registerRtlDramScheduler(makeRtlDramScheduler);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace scgpu::rtl
