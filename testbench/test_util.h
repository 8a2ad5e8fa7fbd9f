// Small helpers the tests share.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace scgpu::test {

// The whole contents of a file ("" when it cannot be read: the test's own checks then fail).
inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace scgpu::test
