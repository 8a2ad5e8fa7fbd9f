// Fuzz target `exec`: functional execution of small launches. The input is PTX text; its first
// kernel (in file order) runs in driver::Mode::Functional on the small device of harness.h (the
// tiny config with 16 MiB of memory and budgets of 100000 warp instructions per block and per
// launch), on a grid of 2 blocks of 64 threads (or the kernel's .reqntid). Its parameters are
// filled from four device buffers of 4 KiB (pointer-sized parameters, in turn), the element count
// 256 (4-byte parameters) and zeros (others); the buffers are read back afterwards.
//
// Correct rejections: ptx::ParseError, scgpu::InputError, driver::RuntimeError. A kernel fault
// (illegal address, trap, watchdog, ...) is an error code from launch(), which is a correct outcome.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "base/errors.h"
#include "driver/module.h"
#include "driver/runtime.h"
#include "fuzz/harness.h"
#include "ptx/parse_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scgpu;
  constexpr std::size_t kBuffers = 4, kBufferBytes = 4096, kMaxParamBytes = 32764;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    driver::Runtime runtime(fuzz::smallConfig(), driver::Mode::Functional);
    driver::Module& module = runtime.loadModuleString(text, "fuzz.ptx");
    const ptx::Function* first = nullptr;
    for (const ptx::Function& f : module.ir().functions)
      if (f.is_entry && f.has_body) {
        first = &f;
        break;
      }
    if (!first) return 0;
    driver::Function& fn = runtime.getFunction(module, first->name);

    std::vector<driver::DevicePtr> buffers;
    std::vector<std::uint32_t> init(kBufferBytes / 4);
    std::iota(init.begin(), init.end(), 0u);
    for (std::size_t i = 0; i < kBuffers; ++i) buffers.push_back(runtime.upload(init));

    driver::KernelArgs args;
    std::size_t pointers = 0, param_bytes = 0;
    for (const auto& p : fn.program().params) {
      param_bytes += p.size;
      if (param_bytes > kMaxParamBytes) return 0;  // more than CUDA passes; not this harness's subject
      if (p.size == 8) args.add(buffers[pointers++ % kBuffers]);
      else if (p.size == 4) args.add(std::uint32_t(256));
      else args.addBytes(std::vector<std::uint8_t>(p.size).data(), p.size);
    }

    const ptx::Program& prog = fn.program();
    driver::Dim3 block(64);
    if (prog.reqntid[0]) block = driver::Dim3(prog.reqntid[0], std::max(1u, prog.reqntid[1]), std::max(1u, prog.reqntid[2]));
    if (block.count() > 1024) return 0;
    (void)runtime.launch(fn, driver::Dim3(2), block, 0, args);
    (void)runtime.takePrintfOutput();
    for (driver::DevicePtr b : buffers) (void)runtime.download<std::uint32_t>(b, kBufferBytes / 4);
  } catch (const ptx::ParseError& e) {
    fuzz::checkMessage(e, "ptx::ParseError");
  } catch (const InputError& e) {
    fuzz::checkMessage(e, "InputError");
  } catch (const driver::RuntimeError& e) {
    fuzz::checkMessage(e, "driver::RuntimeError");
  }
  return 0;
}
