// PTX text -> ptx::Module (ir.h). A recursive-descent parser over the PTX that nvcc emits for
// sm_75..sm_90: module directives, variables with initializers, .entry/.func with parameters and
// performance directives, and bodies of declarations, scopes, labels, pragmas, call prototypes,
// branch-target tables and instructions.
//
// The parser is generic over instructions: any identifier followed by .modifiers and operands is
// accepted, and the decoder decides which opcodes and modifier combinations it supports.
//
// Operand conventions worth knowing (see also ir.h):
//  - `%p1|%p2` (dual destination of setp, shfl, ...) is a Vector operand with two elements.
//  - A parenthesized list `(a, b)` is a Vector operand. So `call.uni (%r1), f, (%rd1, %r2);` has
//    operands [Vector{%r1}, Symbol f, Vector{%rd1, %r2}], and an indirect call
//    `call (r), %rd5, (p0), prototype_0;` has [Vector{r}, Register %rd5, Vector{p0}, Symbol prototype_0].
//  - A name is a Register when it starts with '%' or was declared by a .reg in an enclosing scope
//    (`.reg .b32 temp_param_reg;`), otherwise a Symbol (label, variable, function, parameter).
//
// Every error is a ParseError carrying file:line:col, the token found and what was expected. No
// input makes the parser crash, hang or recurse without bound (nesting is limited).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ptx/ir.h"
#include "ptx/limits.h"
#include "ptx/parse_error.h"

namespace scgpu::ptx {

// Deepest nesting of braces, brackets and parentheses the parser accepts (scopes in a body, braces
// in an initializer, vectors in operands); deeper input is an error, not a stack overflow.
inline constexpr unsigned kMaxNesting = 64;

// Parses PTX text; `source_name` names the text in error messages and Module::source_name. Text
// beyond `limits` (identifier length, statements, registers per function, .file index) is a
// ParseError in the one limit format (ptx/limits.h).
Module parseModule(std::string_view text, const std::string& source_name, const Limits& limits = {});

// Reads and parses a file: only a regular file of at most `max_bytes` (a link to /dev/urandom or a
// FIFO is refused, not read forever); a file that cannot be read is a ParseError too (line 0).
// The driver reads files through scgpu::readInputFile instead; this is for tools and tests.
inline constexpr std::uint64_t kDefaultMaxFileBytes = 256ull << 20;  // InputLimits::input_file_bytes
Module parseModuleFile(const std::string& path, const Limits& limits = {},
                       std::uint64_t max_bytes = kDefaultMaxFileBytes);

}  // namespace scgpu::ptx
