#include "sm/fault.h"

#include <fmt/format.h>

namespace scgpu::sm {

std::string FaultReport::toString() const {
  std::string s = fmt::format("GPU fault: {} in kernel '{}'\n", kind, kernel);
  s += fmt::format("  block ({},{},{}), warp {}, thread ({},{},{}) [lane {}], pc {}\n", block[0], block[1], block[2],
                   warp, thread[0], thread[1], thread[2], lane, pc);
  if (!instruction.empty()) s += fmt::format("  instruction: {}\n", instruction);
  if (!ptx_location.empty()) s += fmt::format("  at {}", ptx_location);
  if (!source_location.empty()) s += fmt::format(" ({})", source_location);
  if (!ptx_location.empty()) s += "\n";
  if (!message.empty()) s += fmt::format("  {}\n", message);
  return s;
}

}  // namespace scgpu::sm
