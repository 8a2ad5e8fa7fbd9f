// Fuzz target `launch`: launch files (docs/launch-files.md). The input is the YAML of a launch
// file placed in fuzz/data/launch/, so that it can name the small PTX, raw and .npy files there
// (add_one.ptx, saxpy.ptx, x.npy, ...). It is parsed with parseLaunchString; a launch that parses
// is then run as `scgpu run file.yaml` runs it (runLaunch), with its `output:` keys dropped so that
// nothing is written, on the small functional device of harness.h (16 MiB, small budgets).
//
// Correct rejections: scgpu::InputError (ConfigError from the launch file, LimitError),
// cli::NpyError (a data file), ptx::ParseError (the PTX it names), driver::RuntimeError (out of
// device memory). A kernel fault is a launch outcome, not an error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/launch_file.h"
#include "app/npy.h"
#include "base/errors.h"
#include "driver/runtime.h"
#include "fuzz/harness.h"
#include "ptx/parse_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scgpu;
  static const std::string path = fuzz::fuzzDir() + "/data/launch/fuzz.yaml";
  const std::string yaml(reinterpret_cast<const char*>(data), size);
  try {
    cli::LaunchSpec spec = cli::parseLaunchString(yaml, path);
    for (cli::BufferSpec& b : spec.buffers) b.output.clear();
    driver::Runtime runtime(fuzz::smallConfig(), driver::Mode::Functional);
    (void)cli::runLaunch(spec, runtime);
  } catch (const InputError& e) {
    fuzz::checkMessage(e, "InputError");
  } catch (const cli::NpyError& e) {
    fuzz::checkMessage(e, "cli::NpyError");
  } catch (const ptx::ParseError& e) {
    fuzz::checkMessage(e, "ptx::ParseError");
  } catch (const driver::RuntimeError& e) {
    fuzz::checkMessage(e, "driver::RuntimeError");
  }
  return 0;
}
