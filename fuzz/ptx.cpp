// Fuzz target `ptx`: the PTX front end. The input is PTX text; it is parsed and every kernel decoded
// (linked, laid out, handlers selected) as driver::Runtime::loadModuleString does, on the default
// config (configs/tiny.yaml, 4 GiB of device memory for module variables).
//
// Correct rejections: ptx::ParseError (file:line:col), scgpu::InputError (a LimitError from the
// PTX input limits), driver::RuntimeError (no device memory for a module variable).
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/errors.h"
#include "driver/module.h"
#include "driver/runtime.h"
#include "fuzz/harness.h"
#include "ptx/parse_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scgpu;
  static const GpuConfig config = GpuConfig::loadDefault();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    driver::Runtime runtime(config, driver::Mode::Functional);
    driver::Module& module = runtime.loadModuleString(text, "fuzz.ptx");
    for (const std::string& name : module.kernelNames()) runtime.getFunction(module, name);
  } catch (const ptx::ParseError& e) {
    fuzz::checkMessage(e, "ptx::ParseError");
  } catch (const InputError& e) {
    fuzz::checkMessage(e, "InputError");
  } catch (const driver::RuntimeError& e) {
    fuzz::checkMessage(e, "driver::RuntimeError");
  }
  return 0;
}
