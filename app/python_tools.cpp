#include "app/python_tools.h"

#include <cstdlib>

#include <fmt/format.h>

#include "app/spawn.h"

namespace scgpu::cli {

namespace {
// Debian's interpreter: the one scripts/setup.sh installs the packages for.
constexpr const char* kPython = "/usr/bin/python3";
}  // namespace

int runPythonTool(const std::string& tool, const std::vector<std::string>& args) {
  // The child inherits this environment: the package from the source tree, and the simulator
  // the sweep runs is this one (same build, same configs) unless the user chose another.
  std::string path = std::string(SCGPU_SOURCE_DIR) + "/python";
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  setenv("PYTHONPATH", path.c_str(), 1);
  if (!std::getenv("SCGPU")) setenv("SCGPU", selfExecutable().c_str(), 1);
  setenv("SCGPU_TOOLS_PROG", "scgpu", 1);
  std::vector<std::string> argv = {kPython, "-m", "scgpu_tools", tool};
  argv.insert(argv.end(), args.begin(), args.end());
  const int status = spawnAndWait(argv, false);
  if (status < 0) {
    fmt::print(stderr, "scgpu: error: cannot start {} (scgpu {} needs Debian's python3 with pandas, matplotlib "
                       "and python3-distributed: run scripts/setup.sh)\n", kPython, tool);
    return 3;
  }
  return status;
}

}  // namespace scgpu::cli
