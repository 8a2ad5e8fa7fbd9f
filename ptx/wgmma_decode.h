// Decoding of the sm_90a warpgroup matrix instructions (PTX ISA 8.x, "Asynchronous Warpgroup
// Level Matrix Multiply-Accumulate"): wgmma.fence, wgmma.commit_group, wgmma.wait_group and
// wgmma.mma_async with register or descriptor A and descriptor B. The decoder (decoder.cpp) calls
// it with access to its register slots; semantics are in sm/exec/wgmma.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ptx/decoded.h"
#include "ptx/ir.h"

namespace scgpu::ptx {

struct WgmmaDecodeHooks {
  std::string file;                                             // for error locations
  std::function<std::uint32_t(const Operand&)> dst;             // a data register written
  std::function<std::uint32_t(const Operand&, Type)> source;    // a register or constant read
  std::function<std::uint32_t(const Operand&)> pred;            // a predicate register or 0/1
};

// Decodes `in` when its opcode is wgmma (else false): sets out.op (and out.imm for wait_group);
// for mma_async fills `t` and sets *has_operands (the caller stores t in Program::tensor_ops and
// points out.target at it). Malformed text throws a ParseError marked malformed (the module does
// not load); forms the core does not implement throw an unmarked one (the kernel is refused at
// launch).
bool decodeWgmma(const Instruction& in, DecodedInst& out, TensorOp& t, bool* has_operands, const WgmmaDecodeHooks& h);

// The N values the ISA allows for wgmma.mma_async with accumulator `d` and inputs `a`.
bool wgmmaValidN(MatElem a, unsigned n);

}  // namespace scgpu::ptx
