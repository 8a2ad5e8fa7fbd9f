#include "app/exec.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "app/cli.h"
#include "app/spawn.h"
#include "tlm/gpu_config.h"

namespace scgpu::cli {

namespace fs = std::filesystem;

namespace {

constexpr int kExitCannotExecute = 126;
constexpr int kExitNotFound = 127;
constexpr const char* kLibraryName = "libcudart.so.13";

void setEnv(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }

std::string absolute(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return ec ? path : p.string();
}

// The program as execvp would find it: a name with a slash is a path; otherwise each directory of
// $PATH in turn. Empty when there is none.
std::string findProgram(const std::string& name) {
  std::error_code ec;
  if (name.find('/') != std::string::npos) return fs::exists(name, ec) ? name : std::string();
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    std::size_t colon = dirs.find(':', at);
    if (colon == std::string::npos) colon = dirs.size();
    const std::string dir = colon > at ? dirs.substr(at, colon - at) : ".";
    const fs::path candidate = fs::path(dir) / name;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    at = colon + 1;
  }
  return {};
}

// Whether the program file names libcudart.so.13 (a program built with -cudart shared, or one that
// loads it itself). nvcc's default, -cudart static, builds NVIDIA's runtime into the program, where
// scgpu cannot take its place. Reads at most the first 64 MiB.
bool namesCudartLibrary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string needle = kLibraryName;
  std::string window;
  char buf[1 << 16];
  std::size_t read_total = 0;
  while (in && read_total < (64u << 20)) {
    in.read(buf, sizeof buf);
    const std::size_t n = std::size_t(in.gcount());
    if (n == 0) break;
    read_total += n;
    window.append(buf, n);
    if (window.find(needle) != std::string::npos) return true;
    window.erase(0, window.size() > needle.size() ? window.size() - needle.size() : 0);
  }
  return false;
}

}  // namespace

std::string cudartDirectory() {
  std::error_code ec;
  if (const char* env = std::getenv("SCGPU_CUDART_DIR"))
    return fs::exists(fs::path(env) / kLibraryName, ec) ? std::string(env) : std::string();
  const std::string self = selfExecutable();
  if (self.empty()) return {};
  const fs::path dir = fs::path(self).parent_path() / "cudart";
  return fs::exists(dir / kLibraryName, ec) ? dir.string() : std::string();
}

int execProgram(const ExecOptions& o) {
  std::vector<std::string> overrides = o.overrides;
  if (o.threads) overrides.push_back(fmt::format("simulation.host_threads={}", o.threads));
  if (o.max_cycles) overrides.push_back(fmt::format("limits.cycles_per_launch={}", o.max_cycles));
  // A bad config is reported here, with its file:line:col, rather than by the library inside the
  // program. Throws ConfigError (exit status 3).
  const std::string config_path = GpuConfig::resolve(o.config);
  (void)loadConfig(config_path, overrides);

  const std::string lib = cudartDirectory();
  if (lib.empty()) {
    std::fprintf(stderr, "scgpu exec: %s not found in $SCGPU_CUDART_DIR or in cudart/ beside %s (build it: "
                         "scripts/build.sh)\n", kLibraryName, selfExecutable().c_str());
    return kExitNotFound;
  }
  const std::string program = findProgram(o.program.at(0));
  if (program.empty()) {
    std::fprintf(stderr, "scgpu exec: %s: no such program%s\n", o.program[0].c_str(),
                 o.program[0].find('/') == std::string::npos ? " in $PATH" : "");
    return kExitNotFound;
  }

  if (!namesCudartLibrary(program))
    std::fprintf(stderr, "scgpu exec: warning: %s does not load %s: if it is a CUDA program, it was built with "
                         "NVIDIA's runtime linked in (nvcc's default, -cudart static) and will not run on scgpu; "
                         "build it with nvcc -cudart shared\n", program.c_str(), kLibraryName);

  const char* old_path = std::getenv("LD_LIBRARY_PATH");
  setEnv("LD_LIBRARY_PATH", old_path && *old_path ? lib + ":" + old_path : lib);
  setEnv("SCGPU_CUDART_CONFIG", absolute(config_path));
  std::string set;
  for (const std::string& s : overrides) set += s + "\n";
  setEnv("SCGPU_CUDART_SET", set);
  setEnv("SCGPU_CUDART_MODE", o.mode);
  setEnv("SCGPU_CUDART_STATS_JSON", o.stats_json.empty() ? "" : absolute(o.stats_json));
  setEnv("SCGPU_CUDART_TRACE", o.trace.empty() ? "" : absolute(o.trace));
  setEnv("SCGPU_CUDART_TIMELINE", o.timeline.empty() ? "" : absolute(o.timeline));
  setEnv("SCGPU_CONFIG_DIR", GpuConfig::configDir());
  setEnv("SCGPU_CUDART_TIMEOUT", o.timeout_s > 0 ? fmt::format("{}", o.timeout_s) : "");

  std::vector<char*> argv;
  for (const std::string& a : o.program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(program.c_str(), argv.data());
  const int err = errno;
  std::fprintf(stderr, "scgpu exec: cannot run %s: %s\n", program.c_str(), std::strerror(err));
  return err == ENOENT ? kExitNotFound : kExitCannotExecute;
}

}  // namespace scgpu::cli
