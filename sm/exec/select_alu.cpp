// selectAluHandler: routes an instruction to the family that implements it (integer/bit, f32/f64,
// half precision, comparison/selection, conversion/move); nullptr when the op, type and modifier
// combination is not supported.
#include "sm/exec/alu.h"

namespace scgpu::sm {

using ptx::ExecFn;
using ptx::Op;
using ptx::Type;

ExecFn selectAluHandler(const ptx::DecodedInst& in) {
  switch (in.op) {
    case Op::Setp: case Op::Set: case Op::Selp: case Op::Slct:
      return alu::selectCompareHandler(in);
    case Op::Mov: case Op::Cvt: case Op::CvtPack:
      return alu::selectConvertHandler(in);
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Mad: case Op::Mul24: case Op::Mad24:
    case Op::Sad: case Op::Div: case Op::Rem: case Op::Abs: case Op::Neg: case Op::Min:
    case Op::Max: case Op::Popc: case Op::Clz: case Op::Bfind: case Op::Brev: case Op::Bfe:
    case Op::Bfi: case Op::Prmt: case Op::Lop3: case Op::Shf: case Op::Shl: case Op::Shr:
    case Op::And: case Op::Or: case Op::Xor: case Op::Not: case Op::Cnot: case Op::Dp4a:
    case Op::Dp2a: case Op::Fns: case Op::Fma: case Op::Rcp: case Op::Sqrt: case Op::Rsqrt:
    case Op::Sin: case Op::Cos: case Op::Lg2: case Op::Ex2: case Op::Tanh: case Op::Copysign:
    case Op::Testp:
      switch (in.type) {
        case Type::F32: case Type::F64:
          return alu::selectFloatHandler(in);
        case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2:
          return alu::selectHalfHandler(in);
        default:
          return alu::selectIntHandler(in);
      }
    default:
      return nullptr;
  }
}

}  // namespace scgpu::sm
