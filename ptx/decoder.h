// Turns a parsed PTX module into executable programs: for one kernel, it links the kernel with
// every function it can reach, assigns register and predicate slots, lays out shared, local and
// parameter storage, resolves labels, symbols and calls, computes reconvergence points, and picks
// each instruction's semantic handler. Everything that can be wrong with the PTX is found here,
// at load time, and reported with file:line:col.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ptx/decoded.h"
#include "ptx/ir.h"
#include "ptx/limits.h"
#include "ptx/parse_error.h"

namespace scgpu::ptx {

struct DecodeEnv {
  // Device address of a module-scope .global or .const variable; false when unknown.
  std::function<bool(const std::string& name, std::uint64_t& address)> symbol_address;
  // The handler for a decoded instruction; nullptr when the form is not supported.
  std::function<ExecFn(const DecodedInst&)> select_handler;
  // The device's shared memory per block (opt-in): static .shared variables beyond it are refused
  // at load, naming the variable. The default is what the program's 32-bit fields hold.
  std::uint64_t max_shared_bytes = 0xFFFFFFFFull;
};

Program decodeKernel(const Module& module, const std::string& kernel_name, const DecodeEnv& env);
// Every kernel (.entry with a body) of the module, in file order, with one index of the module's
// names shared by all (decodeKernel per kernel rebuilds it: quadratic in a module of many
// kernels). The instructions of all programs together are bounded by limits.statements, since a
// function called by many kernels is linked into each.
std::vector<Program> decodeKernels(const Module& module, const DecodeEnv& env, const Limits& limits = {});

// Layout of a module's .global/.const variables: name, size, alignment and initial bytes.
// Initializers that hold symbol addresses are resolved by the caller through `symbol_address`.
// A size whose dimensions overflow 64 bits is a ParseError at the variable.
struct GlobalLayout {
  std::string name;
  StateSpace space;
  std::uint64_t size = 0;
  std::uint32_t align = 1;
  const VarDecl* decl = nullptr;
};
std::vector<GlobalLayout> moduleGlobals(const Module& module);
// The bytes a variable's initializer gives its first elements (element bits, symbol addresses
// resolved with `env`); every byte after them is zero. Empty without an initializer: as long as
// the initializer, not the variable, so that a large zero variable costs no host memory.
std::vector<std::uint8_t> initializerBytes(const VarDecl& decl, std::uint64_t size, const DecodeEnv& env,
                                           const std::string& file);
// The whole initial image, `size` bytes (tests; the driver writes initializerBytes only).
std::vector<std::uint8_t> initialBytes(const VarDecl& decl, std::uint64_t size, const DecodeEnv& env,
                                       const std::string& file);

}  // namespace scgpu::ptx
