// The order in which the timing model issues a kernel's PTX: as ptxas schedules it. ptxas starts
// loads as early as their operands allow and stores as late, so that load latencies overlap; the
// timing model issues in program order, so it runs a copy of the kernel reordered the same way
// within each basic block. Every thread computes exactly what the PTX order computes.
#pragma once

#include "ptx/decoded.h"

namespace scgpu::ptx {

// A copy of `program` in which each load (global, shared, constant, parameter, ldmatrix,
// wmma.load) sits as early in its basic block as it may legally be (past arithmetic and
// tensor-core ops it does not depend on, and stores it cannot alias; volatile and generic loads
// past arithmetic only; never past another load), and each shared or local store as late (past
// arithmetic and loads it cannot alias; never past another store).
//
// Then the arithmetic between them is list-scheduled as ptxas interleaves independent chains:
// ready instructions with the longest dependent path first, ties in PTX order. The two steps repeat
// until nothing moves, so a load whose address arithmetic sat behind a dependent fma goes up with
// it. IEEE-rounded division, square root and reciprocal and 64-bit integer division stay in place
// (ptxas gives them a branch to a slow path, which ends its basic block).
Program scheduleLikePtxas(const Program& program);

// Whether ptxas fuses `i` and the next instruction `j` into one SASS instruction (IADD3, LOP3, LEA,
// IMAD.WIDE): unguarded integer ops of those kinds with one register result, j reading i's. The
// timing model folds j away (sm/timing/inst_class.cpp, sm.fuse_like_ptxas) when i's result has
// no other reader; the scheduling keeps such pairs adjacent.
bool fusablePair(const DecodedInst& i, const DecodedInst& j);

}  // namespace scgpu::ptx
