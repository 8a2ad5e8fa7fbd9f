// The PTX module as written: what the parser produces and the decoder consumes. It keeps the
// text's structure (scopes, labels, directives, modifiers in order) and every source location, so
// the decoder can report errors and map a PC back to a PTX line and a CUDA source line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scgpu::ptx {

// Where something is in the PTX text (1-based line and column).
struct SourceLoc {
  std::uint32_t line = 0;
  std::uint32_t col = 0;
};

enum class StateSpace : std::uint8_t { None, Reg, Sreg, Const, Global, Local, Param, Shared, Tex, Generic };

// Fundamental PTX types. Pred is the predicate type; F16x2/BF16x2 are packed pairs.
enum class Type : std::uint8_t {
  None,
  B8, B16, B32, B64, B128,
  U8, U16, U32, U64,
  S8, S16, S32, S64,
  F16, F16x2, BF16, BF16x2, TF32, F32, F64,
  E4M3, E5M2, E4M3x2, E5M2x2,
  Pred,
};

// One element of a variable initializer: a number (its bits, already converted to the
// variable's type) or the address of a symbol plus an offset (`generic(sym)+4`, `sym`).
struct InitElement {
  enum class Kind : std::uint8_t { Bits, SymbolAddress } kind = Kind::Bits;
  std::uint64_t bits = 0;
  std::string symbol;
  std::int64_t offset = 0;
  bool generic = false;  // generic(sym): the generic address, not the state-space address
};

// A variable, parameter or register declaration.
struct VarDecl {
  std::string name;
  StateSpace space = StateSpace::None;
  Type type = Type::None;
  std::uint32_t vector = 1;                  // .v2 / .v4 / .v8
  std::uint32_t align = 0;                   // .align N in bytes; 0 when not given
  std::vector<std::uint64_t> array_dims;     // [4][8]; a 0 means unsized ([]), extern arrays
  std::uint64_t reg_range = 0;               // `.reg .b32 %r<100>` declares %r0..%r99 (range 100)
  bool is_extern = false, is_visible = false, is_weak = false;
  // Kernel parameters: `.param .u64 .ptr .global .align 8 p`.
  bool is_ptr = false;
  StateSpace ptr_space = StateSpace::None;
  std::uint32_t ptr_align = 0;
  std::vector<InitElement> init;             // flattened initializer, element per scalar
  SourceLoc loc;
  bool is_managed = false;                   // .attribute(.managed): __managed__ (host-visible) memory
};

struct Operand {
  enum class Kind : std::uint8_t {
    Register,      // %r1, %tid.x (name includes the .x component), %p1; `negated` for !%p1
    IntImmediate,  // 42, -1, 0x1F, 077, 0b101 (value in int_value; `is_unsigned` for 42U)
    FloatImmediate,// 0f3F800000 (single), 0d3FF0000000000000 (double), 1.5 (decimal, double)
    Symbol,        // a variable, function or label name, with optional +offset
    Address,       // [%rd1], [%rd1+8], [sym], [sym+4], [100]; base in `name` (empty = absolute);
                   // more components after a comma go to `elements`: [%rd2, {%f5, %f6}] (tex, sust)
    Vector,        // {%r1, %r2, _, %r4}: elements in `elements`
    Sink,          // _
  };
  Kind kind = Kind::Register;
  std::string name;
  bool negated = false;            // !%p
  std::int64_t int_value = 0;      // IntImmediate value, or Address/Symbol offset
  bool is_unsigned = false;
  double float_value = 0;          // FloatImmediate as a double (exact for 0f/0d forms)
  std::uint64_t float_bits = 0;    // FloatImmediate raw bits: 32 bits for 0f, 64 for 0d/decimal
  bool float_is_single = false;    // written as 0f........
  std::vector<Operand> elements;   // Vector elements
  SourceLoc loc;
};

struct Instruction {
  std::string opcode;                    // "ld", "setp", "mma" ...
  std::vector<std::string> modifiers;    // in order, without dots: {"global","nc","v4","f32"}
  std::optional<Operand> guard;          // @%p1 / @!%p1 (Register, maybe negated)
  std::vector<Operand> operands;         // as written; destinations first
  // call: operands are [ret-vector?, callee symbol, arg-vector?, prototype symbol?]; see parser.
  SourceLoc loc;
  // Most recent .loc before this instruction: file index (as in .file) and source line/column.
  std::uint32_t debug_file = 0, debug_line = 0, debug_col = 0;
};

struct Statement {
  enum class Kind : std::uint8_t {
    Instruction, Label, Declaration, ScopeOpen, ScopeClose, Pragma,
    BranchTargets,  // `label: .branchtargets L1, L2;` (for brx.idx): name in `label`, list in `targets`
    CallTargets,    // `label: .calltargets f1, f2;` (for indirect call): name in `label`, list in `targets`
  };
  Kind kind = Kind::Instruction;
  Instruction inst;                 // Kind::Instruction
  std::string label;                // Kind::Label
  VarDecl decl;                     // Kind::Declaration (registers, .local, .shared, .param in call scopes)
  std::vector<std::string> pragma;  // Kind::Pragma strings
  SourceLoc loc;
  std::vector<std::string> targets; // Kind::BranchTargets / Kind::CallTargets
};

struct Function {
  std::string name;
  bool is_entry = false;            // .entry (kernel) versus .func
  bool is_visible = false, is_extern = false, is_weak = false;
  bool has_body = false;            // false for a declaration (prototype) only
  std::vector<VarDecl> params;      // .param list (kernel params or function params)
  std::vector<VarDecl> returns;     // .func (.param .b32 ret) name(...)
  // Performance directives (0 = not given).
  std::uint32_t maxntid[3] = {0, 0, 0};
  std::uint32_t reqntid[3] = {0, 0, 0};
  std::uint32_t minnctapersm = 0;
  std::uint32_t maxnreg = 0;
  bool noreturn = false;
  std::vector<std::string> pragmas; // function-level .pragma strings
  std::vector<Statement> body;
  SourceLoc loc;
  // Cluster directives (sm_90): .reqnctapercluster x, y, z / .maxclusterrank n / .explicitcluster.
  std::uint32_t reqnctapercluster[3] = {0, 0, 0};
  std::uint32_t maxclusterrank = 0;
  bool explicitcluster = false;
};

// `prototype_name: .callprototype (.param .b32 _) _ (.param .b64 _);` inside a function body.
struct CallPrototype {
  std::string name;
  std::vector<VarDecl> returns, params;
  SourceLoc loc;
  std::string function;             // the function whose body declares it: prototype names are
                                    // labels, so scoped per function; look up by (function, name)
};

struct Module {
  std::string source_name;          // file name (for error messages)
  std::string version;              // "8.8"
  std::vector<std::string> target;  // {"sm_90"} or {"sm_90a", "texmode_independent"}
  std::uint32_t address_size = 64;
  std::vector<VarDecl> globals;     // module-scope .global/.const/.shared/.local variables
  std::vector<Function> functions;  // in file order, declarations included
  std::vector<std::pair<std::uint32_t, std::string>> files;  // .file index -> name
  std::vector<CallPrototype> prototypes;
};

const char* toString(StateSpace s);
const char* toString(Type t);
// Size in bytes of a type (Pred: 1; B128: 16; F16x2: 4).
std::uint32_t sizeOf(Type t);
bool isFloat(Type t);
bool isSigned(Type t);
// Parses a type modifier without the dot ("u32" -> U32); None when it is not a type.
Type typeFromName(const std::string& name);
StateSpace spaceFromName(const std::string& name);

}  // namespace scgpu::ptx
