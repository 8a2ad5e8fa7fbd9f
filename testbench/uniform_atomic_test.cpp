// Which global atomics the timing model sends as one request per warp (InstInfo kUniformAtomic),
// as ptxas aggregates them with REDUX: 32-bit integer add/min/max/and/or/xor on an address made of
// kernel parameters, constants and block-wide registers only. Each expectation follows from the
// address's definition in the PTX below.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ptx/decoder.h"
#include "ptx/parser.h"
#include "sm/exec/handlers.h"
#include "sm/timing/inst_class.h"

namespace scgpu::sm::timing {
namespace {

const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n) {
  .reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  // 0: a parameter's address: aggregated
  red.global.add.u32 [%rd2], %r2;
  // 1: plus a block-wide offset: aggregated (also when only some lanes take part)
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd2, %rd3;
  setp.lt.u32 %p1, %r2, 7;
  @%p1 atom.global.max.s32 %r4, [%rd4], %r2;
  // 2: plus the thread index: not
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  red.global.add.u32 [%rd6], 1;
  // 3: a uniform address, but a float add: not (REDUX sums integers)
  red.global.add.f32 [%rd2], 1.0;
  // 4: a uniform address, 64 bits: not
  red.global.add.u64 [%rd2], %rd5;
  // 5: an address loaded from memory: not
  ld.global.u64 %rd7, [%rd2];
  red.global.add.u32 [%rd7], 1;
  // 6: a register set on two paths of a branch on the thread index: not
  mov.u64 %rd8, %rd2;
  @%p1 bra SKIP;
  add.s64 %rd8, %rd2, 64;
SKIP:
  red.global.or.b32 [%rd8], %r2;
  ret;
}
)";

TEST(UniformAtomics, OnlyProvablyUniformIntegerAtomicsAreAggregated) {
  const ptx::Module ir = ptx::parseModule(kPtx, "uniform.ptx");
  ptx::DecodeEnv env;
  env.select_handler = &selectHandler;
  const ptx::Program prog = ptx::decodeKernel(ir, "k", env);
  const std::vector<InstInfo> info = classifyProgram(prog);
  std::vector<bool> aggregated;
  for (std::size_t pc = 0; pc < prog.code.size(); ++pc)
    if (prog.code[pc].op == ptx::Op::Atom || prog.code[pc].op == ptx::Op::Red)
      aggregated.push_back(info[pc].flags & kUniformAtomic);
  const std::vector<bool> want = {true, true, false, false, false, false, false};
  EXPECT_EQ(aggregated, want);
}

}  // namespace
}  // namespace scgpu::sm::timing
