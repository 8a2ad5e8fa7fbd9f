#include <fmt/format.h>

#include "ptx/decoded.h"

namespace scgpu::ptx {

std::string Program::ptxLocation(std::uint32_t pc) const {
  if (pc >= code.size()) return module_name;
  return fmt::format("{}:{}:{}", module_name, code[pc].ptx_line, code[pc].ptx_col);
}

std::string Program::sourceLocation(std::uint32_t pc) const {
  if (pc >= code.size() || code[pc].debug_line == 0) return "";
  const std::uint32_t f = code[pc].debug_file;
  const auto it = files ? files->find(f) : std::map<std::uint32_t, std::string>::const_iterator{};
  const std::string file =
      files && it != files->end() && !it->second.empty() ? it->second : fmt::format("file{}", f);
  return fmt::format("{}:{}", file, code[pc].debug_line);
}

const char* toString(Op op) {
  static const char* names[] = {
      "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max",
      "popc", "clz", "bfind", "brev", "bfe", "bfi", "prmt", "lop3", "shf", "shl", "shr", "and", "or", "xor", "not", "cnot",
      "dp4a", "dp2a", "fns",
      "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign", "testp",
      "setp", "set", "selp", "slct",
      "mov", "cvt", "cvt.pack", "cvta", "isspacep",
      "ld", "st", "atom", "red", "prefetch", "fence",
      "bra", "brx.idx", "call", "ret", "exit", "trap", "brkpt", "bar", "nanosleep",
      "barrier.cluster", "mapa", "getctarank",
      "shfl", "vote", "match", "redux", "activemask",
      "mma", "wmma", "ldmatrix", "stmatrix", "movmatrix",
      "cp.async", "cp.async.commit_group", "cp.async.wait_group", "mbarrier",
      "cp.async.bulk", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group",
      "wgmma.mma_async", "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group",
      "tex", "tld4", "txq", "suld", "sust", "suq", "nop"};
  static_assert(sizeof(names) / sizeof(names[0]) == std::size_t(Op::Count), "one name per Op");
  return op < Op::Count ? names[std::size_t(op)] : "?";
}

}  // namespace scgpu::ptx
