#include "driver/module.h"

#include <fmt/format.h>

#include "driver/runtime.h"
#include "ptx/schedule.h"
#include "ptx/decoder.h"
#include "sm/exec/handlers.h"

namespace scgpu::driver {
namespace {

// a + b, saturating: sizes of variables that will be refused anyway must not wrap to small ones.
std::uint64_t satAdd(std::uint64_t a, std::uint64_t b) { return a + b < a ? ~std::uint64_t{0} : a + b; }

}  // namespace

std::uint64_t Module::globalsBytes(const ptx::Module& ir) {
  std::uint64_t total = 0;
  for (const auto& g : ptx::moduleGlobals(ir)) total = satAdd(total, memsys::BackingStore::roundedSize(g.size));
  return total;
}

void Module::checkPlacement(const ptx::Module& ir, std::uint64_t in_use, std::uint64_t capacity,
                            std::uint64_t const_capacity) {
  std::uint64_t const_bytes = 0;
  for (const auto& g : ptx::moduleGlobals(ir)) {
    if (g.space == ptx::StateSpace::Const) const_bytes = satAdd(const_bytes, g.size);
    in_use = satAdd(in_use, memsys::BackingStore::roundedSize(g.size));
    if (in_use > capacity)
      throw ptx::ParseError(
          ir.source_name, g.decl->loc.line, g.decl->loc.col,
          fmt::format("the device memory in use after placing module variable '{}' ({} bytes) is {}, above the limit "
                      "memory.global_size_bytes = {} (raise it with --set memory.global_size_bytes=N)",
                      g.name, g.size, in_use, capacity));
  }
  if (const_bytes > const_capacity)
    throw ptx::ParseError(ir.source_name, 0, 0,
                          fmt::format("module declares {} bytes of .const data; the device has {}", const_bytes,
                                      const_capacity));
}

Module::Module(ptx::Module ir, memsys::BackingStore& memory, const DeviceProperties& props, std::uint64_t globals_base)
    : ir_(std::move(ir)) {
  ptx::DecodeEnv env;
  env.symbol_address = [this](const std::string& name, std::uint64_t& addr) { return globalAddress(name, addr); };
  env.select_handler = &sm::selectHandler;
  env.max_shared_bytes = props.shared_mem_per_block_optin;

  // Module variables live in device memory (constant banks are backed by it too), placed first
  // so that initializers and code can take their addresses. Their sizes are checked against the
  // device's memory before anything is placed: a module that cannot fit costs nothing.
  const auto layout = ptx::moduleGlobals(ir_);
  // With a globals region the caller has checked and mapped it (LOAD_MODULE).
  checkPlacement(ir_, globals_base ? 0 : memory.bytesAllocated(), globals_base ? ~std::uint64_t{0} : memory.capacity(),
                 props.total_const_mem);
  std::uint64_t place = globals_base;
  for (const auto& g : layout) {
    if (globals_base) {
      const std::uint64_t bytes = memsys::BackingStore::roundedSize(g.size);
      if (!memory.valid(place, bytes))
        throw RuntimeError(Error::InvalidValue,
                           fmt::format("module variable '{}' ({} bytes) placed at 0x{:x} lies outside the globals "
                                       "region mapped at 0x{:x}",
                                       g.name, g.size, place, globals_base));
      globals_[g.name] = place;
      place += bytes;
      continue;
    }
    std::uint64_t addr = memory.allocate(std::max<std::uint64_t>(g.size, 1), g.name);
    if (!addr) throw RuntimeError(Error::MemoryAllocation, fmt::format("no device memory for variable '{}'", g.name));
    globals_[g.name] = addr;
  }
  // Only the initializers are written (and zeros among them touch no page): the rest of every
  // variable is device memory never written, which reads as zero and costs no host memory.
  for (const auto& g : layout) {
    const auto bytes = ptx::initializerBytes(*g.decl, g.size, env, ir_.source_name);
    if (!bytes.empty()) memory.write(globals_[g.name], bytes.data(), bytes.size());
  }
  // decodeKernels returns the kernels in file order, as this loop visits them.
  std::vector<ptx::Program> programs = ptx::decodeKernels(ir_, env, ptxLimits());
  std::size_t next = 0;
  for (const auto& f : ir_.functions) {
    if (!f.is_entry || !f.has_body) continue;
    functions_[f.name] = std::make_unique<Function>(std::move(programs[next++]));
  }
}

const ptx::Program& Function::timingProgram() const {
  if (!timing_program_) timing_program_ = std::make_unique<ptx::Program>(ptx::scheduleLikePtxas(program_));
  return *timing_program_;
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
