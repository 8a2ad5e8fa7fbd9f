// A loaded PTX module: its module-scope variables placed in device memory with their initial
// values, and every kernel decoded once into a program, so all errors surface at load time.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "driver/device_properties.h"
#include "memsys/backing_store.h"
#include "ptx/decoded.h"
#include "ptx/ir.h"

namespace scgpu::driver {

class Function {
 public:
  explicit Function(ptx::Program program) : program_(std::move(program)) {}
  const ptx::Program& program() const { return program_; }
  // The program in the order the timing model issues it (ptx/schedule.h), made on first use.
  const ptx::Program& timingProgram() const;
  const std::string& name() const { return program_.kernel_name; }

 private:
  ptx::Program program_;
  mutable std::unique_ptr<ptx::Program> timing_program_;
};

class Module {
 public:
  // Parses nothing: takes the IR, allocates and initialises variables, decodes every kernel.
  // Throws ptx::ParseError for anything wrong or unsupported in the PTX.
  // With globals_base != 0 the variables are not allocated but placed from globals_base on, in
  // declaration order, each kAllocAlign-aligned, inside memory the caller mapped there
  // (LOAD_MODULE); RuntimeError(InvalidValue) when they do not fit in that mapping.
  Module(ptx::Module ir, memsys::BackingStore& memory, const DeviceProperties& props, std::uint64_t globals_base = 0);

  // Bytes a globals region must have for this IR's variables placed as above.
  static std::uint64_t globalsBytes(const ptx::Module& ir);
  // Throws ptx::ParseError (at the variable that does not fit) when placing the IR's variables on
  // top of `in_use` bytes would exceed `capacity`, or its .const data exceeds `const_capacity`.
  static void checkPlacement(const ptx::Module& ir, std::uint64_t in_use, std::uint64_t capacity,
                             std::uint64_t const_capacity);

  Function* function(const std::string& kernel);
  bool globalAddress(const std::string& name, std::uint64_t& addr) const;
  const ptx::Module& ir() const { return ir_; }
  std::vector<std::string> kernelNames() const;

 private:
  ptx::Module ir_;
  std::map<std::string, std::uint64_t> globals_;
  std::map<std::string, std::unique_ptr<Function>> functions_;
};

}  // namespace scgpu::driver
