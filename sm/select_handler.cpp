#include "sm/exec/alu.h"
#include "sm/exec/handlers.h"

namespace scgpu::sm {

ptx::ExecFn selectHandler(const ptx::DecodedInst& in) {
  switch (in.op) {
    case ptx::Op::Ld: case ptx::Op::St: case ptx::Op::Atom: case ptx::Op::Red: case ptx::Op::Cvta:
    case ptx::Op::Isspacep: case ptx::Op::Prefetch: case ptx::Op::Fence: case ptx::Op::CpAsync:
    case ptx::Op::CpAsyncCommit: case ptx::Op::CpAsyncWait:
      return selectMemoryHandler(in);
    case ptx::Op::Bra: case ptx::Op::BrxIdx: case ptx::Op::Call: case ptx::Op::Ret: case ptx::Op::Exit:
    case ptx::Op::Trap: case ptx::Op::Brkpt: case ptx::Op::Bar: case ptx::Op::Nanosleep: case ptx::Op::BarCluster:
    case ptx::Op::Mapa: case ptx::Op::Getctarank:
      return selectControlHandler(in);
    case ptx::Op::Shfl: case ptx::Op::Vote: case ptx::Op::Match: case ptx::Op::Redux: case ptx::Op::Activemask:
      return selectWarpHandler(in);
    case ptx::Op::Mma: case ptx::Op::Wmma: case ptx::Op::Ldmatrix: case ptx::Op::Stmatrix: case ptx::Op::Movmatrix:
      return selectTensorHandler(in);
    case ptx::Op::Mbarrier:
      return selectMbarrierHandler(in);
    case ptx::Op::CpBulk: case ptx::Op::CpBulkCommit: case ptx::Op::CpBulkWait:
      return selectBulkCopyHandler(in);
    case ptx::Op::Wgmma: case ptx::Op::WgmmaFence: case ptx::Op::WgmmaCommit: case ptx::Op::WgmmaWait:
      return selectWgmmaHandler(in);
    case ptx::Op::Tex: case ptx::Op::Tld4: case ptx::Op::Txq: case ptx::Op::Suld: case ptx::Op::Sust: case ptx::Op::Suq:
      return selectTextureHandler(in);
    case ptx::Op::Mov:
      if (in.src[0] == ptx::kNoSlot && in.nsrc == 0) return selectControlHandler(in);  // %clock and friends
      return selectAluHandler(in);
    default:
      return selectAluHandler(in);
  }
}

}  // namespace scgpu::sm
