// All seven fuzz targets in one libFuzzer binary (a single file to carry to another machine for a
// campaign): $SCGPU_FUZZ_TARGET, or the program's name fuzz_<target> (a link), picks the target.
// Each harness is compiled into it with its LLVMFuzzerTestOneInput renamed scgpuFuzz_<target>
// (fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" int scgpuFuzz_ptx(const std::uint8_t*, std::size_t);
extern "C" int scgpuFuzz_config(const std::uint8_t*, std::size_t);
extern "C" int scgpuFuzz_launch(const std::uint8_t*, std::size_t);
extern "C" int scgpuFuzz_stats(const std::uint8_t*, std::size_t);
extern "C" int scgpuFuzz_exec(const std::uint8_t*, std::size_t);
extern "C" int scgpuFuzz_wire(const std::uint8_t*, std::size_t);
extern "C" int scgpuFuzz_wire_client(const std::uint8_t*, std::size_t);

namespace {

using Harness = int (*)(const std::uint8_t*, std::size_t);
Harness harness = nullptr;

Harness byName(const std::string& name) {
  if (name == "ptx") return scgpuFuzz_ptx;
  if (name == "config") return scgpuFuzz_config;
  if (name == "launch") return scgpuFuzz_launch;
  if (name == "stats") return scgpuFuzz_stats;
  if (name == "exec") return scgpuFuzz_exec;
  if (name == "wire") return scgpuFuzz_wire;
  if (name == "wire_client") return scgpuFuzz_wire_client;
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  std::string name;
  if (const char* env = std::getenv("SCGPU_FUZZ_TARGET")) {
    name = env;
  } else if (*argc > 0) {
    const char* base = std::strrchr((*argv)[0], '/');
    base = base ? base + 1 : (*argv)[0];
    if (std::strncmp(base, "fuzz_", 5) == 0) name = base + 5;
  }
  harness = byName(name);
  if (!harness) {
    std::fprintf(stderr, "fuzz_all: set SCGPU_FUZZ_TARGET to ptx, config, launch, stats, exec, wire or wire_client (got '%s')\n",
                 name.c_str());
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return harness(data, size); }
