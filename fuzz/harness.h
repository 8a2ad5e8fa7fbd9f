// What the harnesses in fuzz/ share: where their data lives, per-process temporary files, the
// small device they run kernels on, and the rule for exceptions.
//
// The rule: an input that scgpu refuses with one of the project's input exceptions, carrying a
// message, is a correct rejection. Anything else that escapes a harness (std::out_of_range from a
// stoul, std::bad_alloc, nlohmann::json's type_error, an exception with an empty message) is a
// finding: the harness lets it escape, so libFuzzer reports it as a crash (uncaught exception ->
// abort), as it does sanitizer reports, leaks, timeouts and memory over -rss_limit_mb.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "tlm/gpu_config.h"

namespace scgpu::fuzz {

// The fuzz/ directory: $SCGPU_FUZZ_DIR (a copy of the tree elsewhere), else the source tree's.
inline std::string fuzzDir() {
  if (const char* env = std::getenv("SCGPU_FUZZ_DIR")) return env;
  return SCGPU_FUZZ_DIR;
}

// A file name in the temporary directory that no other process uses: fuzzers run in parallel
// (-fork, -jobs), so the name carries the process id.
inline std::string tempPath(const std::string& suffix) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/scgpu-fuzz-" + std::to_string(::getpid()) + "-" + suffix;
}

// Writes `bytes` to `path`; aborts when it can't (the harness, not the input, is broken then).
inline void writeFile(const std::string& path, std::string_view bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "fuzz harness: cannot write %s\n", path.c_str());
    std::abort();
  }
}

// The tiny config (configs/tiny.yaml) with small memory and small instruction budgets, so that a
// kernel that loops forever ends in a watchdog fault within a fraction of a second.
inline const GpuConfig& smallConfig() {
  static const GpuConfig config = GpuConfig::loadDefault({
      "memory.global_size_bytes=16777216",
      "limits.watchdog_warp_instructions_per_block=100000",
      "limits.warp_instructions_per_launch=100000",
      "limits.call_depth_frames=64",
      "limits.printf_fifo_size_bytes=65536",
  });
  return config;
}

// Called for an exception the harness accepts as a rejection: it must say what is wrong.
inline void checkMessage(const std::exception& e, const char* type) {
  if (std::string_view(e.what()).empty()) {
    std::fprintf(stderr, "fuzz harness: %s with an empty message\n", type);
    std::abort();
  }
}

// A broken invariant found by a harness (not by a sanitizer): print and abort, so that libFuzzer
// saves the input.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz harness: FINDING: %s\n", what.c_str());
  std::abort();
}

}  // namespace scgpu::fuzz
