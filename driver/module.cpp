#include "driver/module.h"

#include <fmt/format.h>

#include "driver/runtime.h"
#include "ptx/decoder.h"
#include "sm/exec/handlers.h"

namespace scgpu::driver {

Module::Module(ptx::Module ir, memsys::BackingStore& memory, const DeviceProperties& props) : ir_(std::move(ir)) {
  ptx::DecodeEnv env;
  env.symbol_address = [this](const std::string& name, std::uint64_t& addr) { return globalAddress(name, addr); };
  env.select_handler = &sm::selectHandler;

  // Module variables live in device memory (constant banks are backed by it too), placed first
  // so that initializers and code can take their addresses.
  std::uint64_t const_bytes = 0;
  const auto layout = ptx::moduleGlobals(ir_);
  for (const auto& g : layout) {
    if (g.space == ptx::StateSpace::Const) const_bytes += g.size;
    std::uint64_t addr = memory.allocate(std::max<std::uint64_t>(g.size, 1), g.name);
    if (!addr) throw RuntimeError(Error::MemoryAllocation, fmt::format("no device memory for variable '{}'", g.name));
    globals_[g.name] = addr;
  }
  if (const_bytes > props.total_const_mem)
    throw ptx::ParseError(ir_.source_name, 0, 0,
                          fmt::format("module declares {} bytes of .const data; the device has {}", const_bytes,
                                      props.total_const_mem));
  for (const auto& g : layout) {
    auto bytes = ptx::initialBytes(*g.decl, g.size, env, ir_.source_name);
    memory.write(globals_[g.name], bytes.data(), bytes.size());
  }
  for (const auto& f : ir_.functions) {
    if (!f.is_entry || !f.has_body) continue;
    functions_[f.name] = std::make_unique<Function>(ptx::decodeKernel(ir_, f.name, env));
  }
}

Function* Module::function(const std::string& kernel) {
  auto it = functions_.find(kernel);
  return it == functions_.end() ? nullptr : it->second.get();
}

bool Module::globalAddress(const std::string& name, std::uint64_t& addr) const {
  auto it = globals_.find(name);
  if (it == globals_.end()) return false;
  addr = it->second;
  return true;
}

std::vector<std::string> Module::kernelNames() const {
  std::vector<std::string> names;
  for (const auto& [name, f] : functions_) names.push_back(name);
  return names;
}

}  // namespace scgpu::driver
