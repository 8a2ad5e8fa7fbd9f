// Kernel faults: each produces a report naming the kernel, block, warp, thread, PC and PTX line,
// the runtime returns the matching error, and nothing crashes or hangs.
#include <gtest/gtest.h>

#include "driver/module.h"
#include "driver/runtime.h"
#include "kernels/workload.h"
#include "tlm/gpu_config.h"

namespace scgpu {
namespace {

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Runtime;

std::string ptx(const std::string& body) { return ".version 8.0\n.target sm_90\n.address_size 64\n" + body; }

struct Faulted {
  Error error;
  sm::FaultReport report;
};

Faulted runFault(Runtime& rt, const std::string& body, const std::string& kernel, Dim3 grid, Dim3 block,
                 const KernelArgs& args) {
  auto& m = rt.loadModuleString(ptx(body), "fault.ptx");
  Error e = rt.launch(rt.getFunction(m, kernel), grid, block, 0, args);
  EXPECT_TRUE(rt.lastFault().has_value());
  return {e, rt.lastFault().value_or(sm::FaultReport{})};
}

TEST(Fault, OutOfBoundsStoreNamesTheThreadAndLine) {
  Runtime rt;
  DevicePtr buf = rt.malloc(256);
  auto f = runFault(rt, R"(
.visible .entry oob(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 45;
  @%p1 bra DONE;
  st.global.u32 [%rd1+1048576], %r1;
DONE:
  ret;
}
)", "oob", Dim3(3), Dim3(64), KernelArgs().add(buf));
  EXPECT_EQ(f.error, Error::IllegalAddress);
  EXPECT_EQ(f.report.kind, "illegal address");
  EXPECT_EQ(f.report.kernel, "oob");
  EXPECT_EQ(f.report.block[0], 0u);  // the first block to fault
  EXPECT_EQ(f.report.thread[0], 45u);
  EXPECT_EQ(f.report.warp, 1u);
  EXPECT_EQ(f.report.lane, 13u);
  EXPECT_NE(f.report.ptx_location.find("fault.ptx:14:"), std::string::npos) << f.report.ptx_location;
  EXPECT_NE(f.report.toString().find("st.global.u32"), std::string::npos) << f.report.toString();
  EXPECT_EQ(rt.getLastError(), Error::IllegalAddress);
  EXPECT_EQ(rt.getLastError(), Error::Success);  // cleared by the first read
}

TEST(Fault, MisalignedLoad) {
  Runtime rt;
  DevicePtr buf = rt.malloc(256);
  auto f = runFault(rt, R"(
.visible .entry mis(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1+2];
  ret;
}
)", "mis", Dim3(1), Dim3(32), KernelArgs().add(buf));
  EXPECT_EQ(f.error, Error::MisalignedAddress);
  EXPECT_EQ(f.report.kind, "misaligned address");
  EXPECT_EQ(f.report.lane, 0u);
}

TEST(Fault, TrapInOneThread) {
  Runtime rt;
  auto f = runFault(rt, R"(
.visible .entry tr()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  add.u32 %r1, %r1, %r2;
  setp.eq.u32 %p1, %r1, 38;
  @%p1 trap;
  ret;
}
)", "tr", Dim3(2), Dim3(64), KernelArgs());
  EXPECT_EQ(f.error, Error::LaunchFailure);
  EXPECT_EQ(f.report.kind, "trap");
  EXPECT_EQ(f.report.block[0], 0u);
  EXPECT_EQ(f.report.thread[0], 38u);
  EXPECT_EQ(f.report.warp, 1u);
  EXPECT_EQ(f.report.lane, 6u);
}

TEST(Fault, BarrierThatCanNeverComplete) {
  Runtime rt;
  auto f = runFault(rt, R"(
.visible .entry dead()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra FIRST;
  bar.sync 2, 64;
  bra.uni DONE;
FIRST:
  bar.sync 1, 64;
DONE:
  ret;
}
)", "dead", Dim3(1), Dim3(64), KernelArgs());
  EXPECT_EQ(f.error, Error::BarrierDeadlock);
  EXPECT_EQ(f.report.kind, "barrier deadlock");
  EXPECT_NE(f.report.message.find("barrier 1"), std::string::npos) << f.report.message;
  EXPECT_NE(f.report.message.find("barrier 2"), std::string::npos) << f.report.message;
}

TEST(Fault, BarrierIdOutOfRangeIsAnIllegalInstruction) {
  Runtime rt;
  auto f = runFault(rt, R"(
.visible .entry badbar()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 20;
  bar.sync %r1;
  ret;
}
)", "badbar", Dim3(1), Dim3(32), KernelArgs());
  EXPECT_EQ(f.error, Error::IllegalInstruction);
}

TEST(Fault, WatchdogStopsAnEndlessLoop) {
  Runtime rt(GpuConfig::loadDefault({"limits.watchdog_warp_instructions_per_block=100000"}));
  auto f = runFault(rt, R"(
.visible .entry spin()
{
LOOP:
  bra.uni LOOP;
}
)", "spin", Dim3(1), Dim3(32), KernelArgs());
  EXPECT_EQ(f.report.kind, "watchdog");
  EXPECT_NE(f.report.message.find("warp 0"), std::string::npos) << f.report.message;
}

TEST(Fault, DeviceAssertFromCompiledCuda) {
  // kernels/cuda/faults.cu, compiled by nvcc: the assert names the CUDA file and line.
  Runtime rt;
  auto& m = rt.loadModuleFile(kernels::ptxPath("faults", "sm_90"));
  DevicePtr buf = rt.malloc(4096);
  rt.memset(buf, 0, 4096);
  auto& fn = rt.getFunction(m, "assert_kernel");
  const auto& params = fn.program().params;
  KernelArgs args;
  for (const auto& p : params) {
    if (p.size == 8) args.add(buf);
    else args.add(std::uint32_t(64));
  }
  Error e = rt.launch(fn, Dim3(1), Dim3(64), 0, args);
  ASSERT_TRUE(rt.lastFault().has_value());
  EXPECT_EQ(e, Error::Assert);
  EXPECT_EQ(rt.lastFault()->kind, "assert");
  EXPECT_NE(rt.lastFault()->message.find("faults.cu"), std::string::npos) << rt.lastFault()->message;
  EXPECT_NE(rt.lastFault()->source_location.find("faults.cu"), std::string::npos) << rt.lastFault()->toString();
  // Each failing thread of the first failing warp prints what a GPU prints (an H200 printed
  // "FILE:LINE: FUNCTION: block: [1,0,0], thread: [28,0,0] Assertion `gtid < N` failed." for
  // each failing thread of the CUDA samples' simpleAssert): here every lane of warp 0, as in[] is 0.
  const std::string out = rt.takePrintfOutput();
  std::size_t lines = 0;
  for (std::size_t at = out.find("Assertion `"); at != std::string::npos; at = out.find("Assertion `", at + 1)) ++lines;
  EXPECT_EQ(lines, 32u) << out;
  EXPECT_NE(out.find("block: [0,0,0], thread: [31,0,0] Assertion `"), std::string::npos) << out;
  EXPECT_NE(out.find("faults.cu:"), std::string::npos) << out;
}

}  // namespace
}  // namespace scgpu
