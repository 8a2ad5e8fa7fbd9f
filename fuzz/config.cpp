// Fuzz target `config`: GPU descriptions. The input is YAML text, optionally followed by a NUL byte
// and `--set` overrides, one per line ("sm.count=4"). It is loaded with GpuConfig::fromString
// (`extends:` of the shipped configs works: configs/ is found through $SCGPU_CONFIG_DIR or the
// source tree), the device properties are derived from it, and its effective dump must load back:
// docs/config.md promises that dump() "loads back to the same typed parameters", so a dump that
// is refused, or that dumps differently, is a finding.
//
// Correct rejections: scgpu::InputError (ConfigError, LimitError) with a message.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "base/errors.h"
#include "driver/device_properties.h"
#include "fuzz/harness.h"
#include "tlm/gpu_config.h"

namespace {

// The dump without its comment lines (the header names the source and the overrides, which differ
// between the original and the reloaded config).
std::string withoutComments(const std::string& yaml) {
  std::istringstream in(yaml);
  std::string line, out;
  while (std::getline(in, line))
    if (line.empty() || line[0] != '#') out += line + "\n";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scgpu;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string yaml = input.substr(0, nul);
  std::vector<std::string> overrides;
  if (nul != std::string::npos) {
    std::istringstream lines(input.substr(nul + 1));
    std::string line;
    while (std::getline(lines, line))
      if (!line.empty()) overrides.push_back(line);
  }

  std::string dump;
  try {
    const GpuConfig config = GpuConfig::fromString(yaml, "fuzz.yaml", overrides);
    (void)driver::DeviceProperties::fromConfig(config);
    (void)config.dump(true);
    dump = config.dump();
  } catch (const InputError& e) {
    fuzz::checkMessage(e, "InputError");
    return 0;
  }

  try {
    const GpuConfig reloaded = GpuConfig::fromString(dump, "dump.yaml");
    if (withoutComments(reloaded.dump()) != withoutComments(dump))
      fuzz::finding("the effective config dumps differently after loading it back:\n--- first\n" + dump +
                    "--- reloaded\n" + reloaded.dump());
  } catch (const InputError& e) {
    fuzz::finding(std::string("the effective config does not load back: ") + e.what() + "\n--- dump\n" + dump);
  }
  return 0;
}
