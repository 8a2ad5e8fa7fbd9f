#include "ptx/parser.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ptx/lexer.h"

namespace scgpu::ptx {
namespace {

constexpr const char* kExpectModuleItem =
    "a module-level directive (.version, .target, .address_size, .file, .section, .entry, .func, "
    ".global, .const, .shared, .local, .visible, .extern, .weak)";
constexpr const char* kExpectStatement =
    "a statement (instruction, label, declaration, .loc, .pragma, '{' or '}')";
constexpr const char* kExpectType =
    "a type (.b8..b128, .u8..u64, .s8..s64, .f16, .f16x2, .bf16, .bf16x2, .tf32, .f32, .f64, .pred, ...)";

// ---- Number conversions for initializers --------------------------------------------------------

std::uint32_t bitsOf(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
std::uint64_t bitsOf(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// IEEE binary16, round to nearest even, from a binary32 value.
std::uint16_t halfBits(float f) {
  const std::uint32_t x = bitsOf(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {  // subnormal half (or zero)
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;  // a carry into the exponent gives inf
  return static_cast<std::uint16_t>(sign | h);
}

// bfloat16, round to nearest even, from a binary32 value.
std::uint16_t bf16Bits(float f) {
  std::uint32_t x = bitsOf(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

std::uint64_t maskTo(std::uint64_t v, std::uint32_t bytes) {
  return bytes >= 8 ? v : v & ((std::uint64_t{1} << (bytes * 8)) - 1);
}

// Multiplication that saturates instead of wrapping (sizes of absurd arrays).
std::uint64_t satMul(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kMax = std::uint64_t{1} << 62;
  if (a != 0 && b > kMax / a) return kMax;
  return a * b;
}

// The contents of a string token: quotes removed, C escapes resolved.
std::string unescape(std::string_view quoted) {
  std::string out;
  std::string_view s = quoted.substr(1, quoted.size() - 2);
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    switch (char c = s[++i]) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      default: out += c; break;  // \" \\ and anything else: the character itself
    }
  }
  return out;
}

SourceLoc locOf(const Token& t) { return SourceLoc{t.line, t.col}; }

bool isSpaceDirective(const Token& t, StateSpace& out) {
  if (t.kind != TokenKind::Directive) return false;
  const std::string_view d = t.text;
  if (d == ".global") out = StateSpace::Global;
  else if (d == ".const") out = StateSpace::Const;
  else if (d == ".shared") out = StateSpace::Shared;
  else if (d == ".local") out = StateSpace::Local;
  else return false;
  return true;
}

// Flags for parseDecl: what a declaration may contain where it appears.
enum DeclFlags : unsigned {
  kAllowMany = 1,   // `.reg .b32 a, b;`
  kAllowRange = 2,  // `%r<12>` (.reg only)
  kAllowInit = 4,   // `= {...}` (.global / .const)
  kAllowPtr = 8,    // `.ptr .global .align 8` (kernel .param)
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& source_name, const Limits& limits)
      : lex_(text, source_name, limits.identifier_chars), limits_(limits) {
    mod_.source_name = source_name;
  }

  Module parse() {
    for (;;) {
      const Token t = peek();
      if (t.kind == TokenKind::End) break;
      if (t.kind != TokenKind::Directive) fail(t, kExpectModuleItem);
      countStatement(t);
      const std::string_view d = t.text;
      if (d == ".version") parseVersion();
      else if (d == ".target") parseTarget();
      else if (d == ".address_size") parseAddressSize();
      else if (d == ".file") parseFile();
      else if (d == ".section") skipSection();
      else if (d == ".loc") parseLoc();
      else if (d == ".pragma") {  // module-scope pragmas carry nothing the simulator uses
        take();
        parsePragmaStrings();
        expectPunct(';', "';' after .pragma");
      } else {
        parseLinkedDefinition();
      }
    }
    return std::move(mod_);
  }

 private:
  // ---- Tokens ---------------------------------------------------------------------------------
  // A ring of lookahead: the grammar needs two tokens (`name :` starts a label); four is plenty.
  static constexpr unsigned kRing = 4;

  const Token& peek(unsigned k = 0) {
    while (count_ <= k) {
      ring_[(head_ + count_) % kRing] = lex_.next();
      ++count_;
    }
    return ring_[(head_ + k) % kRing];
  }
  Token take() {
    peek();
    Token t = ring_[head_];
    head_ = (head_ + 1) % kRing;
    --count_;
    return t;
  }
  bool isPunct(char c, unsigned k = 0) { return peek(k).isPunct(c); }
  bool acceptPunct(char c) {
    if (!isPunct(c)) return false;
    take();
    return true;
  }
  Token expectPunct(char c, const char* expected) {
    if (!isPunct(c)) fail(peek(), expected);
    return take();
  }

  [[noreturn]] void fail(const Token& t, const std::string& expected) const {
    throw ParseError(mod_.source_name, t.line, t.col, describe(t), expected);
  }
  [[noreturn]] void failMsg(const Token& t, const std::string& message) const {
    throw ParseError(mod_.source_name, t.line, t.col, message);
  }

  // Every item the IR keeps counts against Limits::statements: module directives, body
  // statements, operands (vector and call-list elements included), initializer values and list
  // entries (.target names, .pragma strings, branch and call targets). So the IR stays
  // proportional to the limit, whatever one line holds (`{0, 0, 0, ...}`, `add a, b, b, b, ...`).
  void countStatement(const Token& t) {
    if (++statements_ > limits_.statements)
      failMsg(t, limitText("the number of statements (directives, instructions, operands, initializer values and "
                           "list entries) in the module",
                           statements_, "ptx_statements", limits_.statements));
  }

  // Registers a function declares (a `%r<N>` range counts N) against Limits::registers, checked
  // before anything is allocated for them.
  void countRegisters(const Token& at, std::uint64_t n) {
    const std::uint64_t total = registers_ + n < registers_ ? ~std::uint64_t{0} : registers_ + n;
    if (total > limits_.registers) {
      const std::string fn = fn_name_.empty() ? std::string("the function") : "function '" + fn_name_ + "'";
      failMsg(at, limitText("the number of registers declared by " + fn, total, "ptx_registers", limits_.registers));
    }
    registers_ = total;
  }

  // An unsigned integer literal no larger than `max`.
  std::uint64_t takeUnsigned(const char* expected, std::uint64_t max = std::numeric_limits<std::uint32_t>::max()) {
    const Token t = peek();
    if (t.kind != TokenKind::Integer) fail(t, expected);
    take();
    if (t.bits > max)
      failMsg(t, "value " + std::string(t.text) + " is too large (at most " + std::to_string(max) + ")");
    return t.bits;
  }

  // `+ 4`, `- 4`, `+ -4` after a base: the sum, wrapping in 64 bits like the address arithmetic.
  std::int64_t parseOffsets() {
    std::uint64_t sum = 0;
    while (isPunct('+') || isPunct('-')) {
      bool negative = take().isPunct('-');
      if (acceptPunct('-')) negative = !negative;
      const Token n = peek();
      if (n.kind != TokenKind::Integer) fail(n, "an integer offset");
      take();
      sum = negative ? sum - n.bits : sum + n.bits;
    }
    return static_cast<std::int64_t>(sum);
  }

  // ---- Module scope ---------------------------------------------------------------------------
  void parseVersion() {
    take();
    const Token t = peek();
    // `.version 9.0` lexes as a decimal float; keep its text ("9.0"), which is the version.
    if (t.kind != TokenKind::Float || t.text.find_first_of("eE") != std::string_view::npos)
      fail(t, "a version number like 9.0 after .version");
    take();
    mod_.version = std::string(t.text);
  }

  void parseTarget() {
    take();
    mod_.target.clear();
    do {
      const Token t = peek();
      if (t.kind != TokenKind::Identifier) fail(t, "a target name (sm_90, sm_90a, texmode_independent, ...)");
      countStatement(t);
      take();
      mod_.target.emplace_back(t.text);
    } while (acceptPunct(','));
  }

  void parseAddressSize() {
    take();
    const Token t = peek();
    const std::uint64_t v = takeUnsigned("32 or 64 after .address_size");
    if (v != 32 && v != 64) fail(t, "32 or 64 after .address_size");
    mod_.address_size = static_cast<std::uint32_t>(v);
  }

  // .file N "name" [, timestamp, size]
  void parseFile() {
    take();
    const auto index = takeFileIndex("a file index after .file");
    const Token name = peek();
    if (name.kind != TokenKind::String) fail(name, "a quoted file name after the .file index");
    take();
    if (acceptPunct(',')) {
      takeUnsigned("a timestamp in .file", std::numeric_limits<std::uint64_t>::max());
      expectPunct(',', "',' and a file size after the .file timestamp");
      takeUnsigned("a file size in .file", std::numeric_limits<std::uint64_t>::max());
    }
    mod_.files.emplace_back(index, unescape(name.text));
  }

  // A `.file` or `.loc` file index: 64-bit, at most Limits::file_index (and 32 bits).
  std::uint32_t takeFileIndex(const char* expected) {
    const Token t = peek();
    const std::uint64_t index = takeUnsigned(expected, std::numeric_limits<std::uint64_t>::max());
    if (index > limits_.file_index) failMsg(t, limitText("the file index", index, "ptx_file_index", limits_.file_index));
    if (index > std::numeric_limits<std::uint32_t>::max())
      failMsg(t, "file index " + std::string(t.text) + " is too large (at most " +
                     std::to_string(std::numeric_limits<std::uint32_t>::max()) + ")");
    return static_cast<std::uint32_t>(index);
  }

  // .section NAME { ... }: DWARF tables the simulator does not use; skipped with balanced braces.
  void skipSection() {
    take();
    const Token name = peek();
    if (name.kind != TokenKind::Directive && name.kind != TokenKind::Identifier)
      fail(name, "a section name after .section");
    take();
    expectPunct('{', "'{' to start the .section body");
    for (std::size_t depth = 1; depth > 0;) {
      const Token t = take();
      if (t.kind == TokenKind::End) fail(t, "'}' to close the .section body");
      if (t.isPunct('{')) ++depth;
      else if (t.isPunct('}')) --depth;
    }
  }

  // .loc file line [col] [, function_name LABEL, inlined_at F L C ...]: the attributes after the
  // first comma describe inlining, which we do not model; they end with the line.
  void parseLoc() {
    const Token loc = take();
    const auto file = takeFileIndex("a file index after .loc");
    const auto line = static_cast<std::uint32_t>(takeUnsigned("a line number in .loc"));
    std::uint32_t col = 0;
    if (peek().kind == TokenKind::Integer) col = static_cast<std::uint32_t>(takeUnsigned("a column in .loc"));
    while (isPunct(',') && peek().line == loc.line) {
      take();
      for (;;) {
        const Token& t = peek();
        if (t.line != loc.line) break;
        if (t.kind != TokenKind::Identifier && t.kind != TokenKind::Integer &&
            t.kind != TokenKind::Float && t.kind != TokenKind::String && t.kind != TokenKind::Directive)
          break;
        take();
      }
    }
    dbg_file_ = file;
    dbg_line_ = line;
    dbg_col_ = col;
  }

  std::vector<std::string> parsePragmaStrings() {
    std::vector<std::string> out;
    do {
      const Token t = peek();
      if (t.kind != TokenKind::String) fail(t, "a quoted string after .pragma");
      countStatement(t);
      take();
      out.push_back(unescape(t.text));
    } while (acceptPunct(','));
    return out;
  }

  // [.visible|.extern|.weak|.common]* then .entry/.func or a module-scope variable.
  void parseLinkedDefinition() {
    bool is_extern = false, is_visible = false, is_weak = false, any = false;
    for (;;) {
      const Token& t = peek();
      if (t.isDirective(".visible")) is_visible = true;
      else if (t.isDirective(".extern")) is_extern = true;
      else if (t.isDirective(".weak") || t.isDirective(".common")) is_weak = true;  // .common: weak, merged
      else break;
      any = true;
      take();
    }
    const Token t = peek();
    StateSpace space;
    if (t.isDirective(".entry") || t.isDirective(".func")) {
      parseFunction(is_extern, is_visible, is_weak);
    } else if (isSpaceDirective(t, space)) {
      take();
      std::vector<VarDecl> decls;
      parseDecl(space, t, kAllowMany | kAllowInit, decls);
      expectPunct(';', "',' or ';' after the variable declaration");
      for (auto& d : decls) {
        d.is_extern = is_extern;
        d.is_visible = is_visible;
        d.is_weak = is_weak;
        mod_.globals.push_back(std::move(d));
      }
    } else {
      fail(t, any ? "'.entry', '.func' or a state space (.global, .const, .shared, .local) after the linkage directive"
                  : kExpectModuleItem);
    }
  }

  // ---- Declarations ---------------------------------------------------------------------------
  // After the state-space keyword `kw`: attributes, one type, then one name (or several with
  // kAllowMany), each with an optional <range>, [dims] and initializer.
  void parseDecl(StateSpace space, const Token& kw, unsigned flags, std::vector<VarDecl>& out) {
    VarDecl proto;
    proto.space = space;
    proto.loc = locOf(kw);
    bool typed = false, after_ptr = false;
    for (;;) {
      const Token t = peek();
      if (t.kind != TokenKind::Directive) break;
      const std::string_view d = t.text.substr(1);
      if (d == "align") {
        take();
        const Token n = peek();
        const std::uint64_t a = takeUnsigned("an alignment in bytes after .align");
        if (a == 0 || (a & (a - 1)) != 0) failMsg(n, "alignment must be a power of two, not " + std::string(n.text));
        (after_ptr ? proto.ptr_align : proto.align) = static_cast<std::uint32_t>(a);
      } else if (d == "v2" || d == "v4" || d == "v8") {
        take();
        proto.vector = static_cast<std::uint32_t>(d[1] - '0');
      } else if (d == "ptr" && (flags & kAllowPtr)) {
        take();
        proto.is_ptr = after_ptr = true;
        StateSpace ps;
        if (isSpaceDirective(peek(), ps)) {
          take();
          proto.ptr_space = ps;
        }
      } else if (d == "attribute") {
        take();
        parseAttribute(proto);
      } else {
        const Type ty = typeFromName(std::string(d));
        if (ty == Type::None || typed) fail(t, typed ? "a variable name" : kExpectType);
        take();
        proto.type = ty;
        typed = true;
      }
    }
    if (!typed) fail(peek(), kExpectType);
    for (;;) {
      const Token n = peek();
      if (n.kind != TokenKind::Identifier) fail(n, "a variable name");
      take();
      VarDecl d = proto;
      d.name = std::string(n.text);
      d.loc = locOf(n);
      if ((flags & kAllowRange) && isPunct('<')) {
        take();
        const Token count = peek();
        d.reg_range = takeUnsigned("a register count in <N>", std::numeric_limits<std::uint64_t>::max());
        if (space == StateSpace::Reg) countRegisters(count, d.reg_range);
        expectPunct('>', "'>' to close the register range");
      } else if (space == StateSpace::Reg) {
        countRegisters(n, 1);
      }
      while (isPunct('[')) {
        const Token open = take();
        if (d.array_dims.size() >= kMaxNesting) failMsg(open, "too many array dimensions");
        if (acceptPunct(']')) {
          d.array_dims.push_back(0);
          continue;
        }
        d.array_dims.push_back(takeUnsigned("an array size or ']'", std::uint64_t{1} << 40));
        expectPunct(']', "']' to close the array size");
      }
      if ((flags & kAllowInit) && isPunct('=')) parseInitializer(d, take());
      out.push_back(std::move(d));
      if ((flags & kAllowMany) && acceptPunct(',')) continue;
      break;
    }
  }

  // .attribute( ... ): we keep .managed; others (.unified(uuid)) are skipped with their parens.
  void parseAttribute(VarDecl& d) {
    expectPunct('(', "'(' after .attribute");
    for (std::size_t depth = 1; depth > 0;) {
      const Token t = take();
      if (t.kind == TokenKind::End) fail(t, "')' to close .attribute");
      if (t.isPunct('(')) ++depth;
      else if (t.isPunct(')')) --depth;
      else if (depth == 1 && t.isDirective(".managed")) d.is_managed = true;
    }
  }

  void parseInitializer(VarDecl& d, const Token& eq) {
    if (d.type == Type::Pred) failMsg(eq, "a .pred variable cannot have an initializer");
    parseInitItem(d, 0);
    // Check the count against the declared shape; an unsized first dimension takes its size
    // from the initializer, as in C.
    std::uint64_t inner = d.vector;
    for (std::size_t i = 1; i < d.array_dims.size(); ++i) inner = satMul(inner, d.array_dims[i]);
    const std::uint64_t n = d.init.size();
    if (!d.array_dims.empty() && d.array_dims[0] == 0 && inner != 0) d.array_dims[0] = (n + inner - 1) / inner;
    const std::uint64_t capacity = d.array_dims.empty() ? inner : satMul(inner, d.array_dims[0]);
    if (n > capacity)
      failMsg(eq, std::to_string(n) + " initializer values for '" + d.name + "', which holds " +
                      std::to_string(capacity) + " elements");
  }

  void parseInitItem(VarDecl& d, unsigned depth) {
    const Token t = peek();
    if (depth > kMaxNesting) failMsg(t, "initializer braces nested deeper than " + std::to_string(kMaxNesting));
    if (t.isPunct('{')) {
      take();
      if (acceptPunct('}')) return;
      do parseInitItem(d, depth + 1);
      while (acceptPunct(','));
      expectPunct('}', "',' or '}' in the initializer");
      return;
    }
    countStatement(t);
    InitElement e;
    if (t.kind == TokenKind::Identifier && t.text[0] != '%') {
      take();
      if (t.text == "generic" && isPunct('(')) {  // generic(sym): the symbol's generic address
        take();
        const Token s = peek();
        if (s.kind != TokenKind::Identifier) fail(s, "a symbol name in generic(...)");
        take();
        expectPunct(')', "')' to close generic(");
        e.symbol = std::string(s.text);
        e.generic = true;
      } else {
        e.symbol = std::string(t.text);
      }
      if (isFloat(d.type))
        failMsg(t, std::string("the address of '") + e.symbol + "' cannot initialize a ." + toString(d.type) + " variable");
      e.kind = InitElement::Kind::SymbolAddress;
      e.offset = parseOffsets();
      d.init.push_back(std::move(e));
      return;
    }
    const bool negative = acceptPunct('-');
    const Token n = peek();
    if (n.kind != TokenKind::Integer && n.kind != TokenKind::Float)
      fail(n, negative ? "a number after '-'" : "an initializer value (number, symbol, generic(symbol) or '{')");
    take();
    e.bits = initBits(n, negative, d.type);
    d.init.push_back(std::move(e));
  }

  // A number converted to the bits of `ty`: integers by value into floats (1 -> 1.0f), floats by
  // value into other float widths, 0f/0d bit patterns into same-sized .b types as bits.
  std::uint64_t initBits(const Token& n, bool negative, Type ty) {
    const std::uint32_t size = sizeOf(ty);
    if (n.kind == TokenKind::Integer) {
      const std::uint64_t v = negative ? 0 - n.bits : n.bits;
      const bool as_unsigned = n.is_unsigned || (!negative && n.bits > std::uint64_t(INT64_MAX));
      const double value = as_unsigned ? static_cast<double>(v) : static_cast<double>(static_cast<std::int64_t>(v));
      // Through float directly where the target is 32 bits or narrower, to round once.
      const float fvalue = as_unsigned ? static_cast<float>(v) : static_cast<float>(static_cast<std::int64_t>(v));
      switch (ty) {
        case Type::F32: case Type::TF32: return bitsOf(fvalue);
        case Type::F64: return bitsOf(value);
        case Type::F16: return halfBits(fvalue);
        case Type::BF16: return bf16Bits(fvalue);
        default: return maskTo(v, size);  // integer, .b and packed types: the bit pattern
      }
    }
    // Float literal. Negation flips the sign bit, which is exact for every form.
    const double value = negative ? -n.float_value : n.float_value;
    switch (ty) {
      case Type::F32: case Type::TF32:
        if (n.float_is_single) return (n.bits ^ (negative ? 0x80000000u : 0u)) & 0xffffffffu;
        return bitsOf(static_cast<float>(value));
      case Type::F64:
        if (!n.float_is_single) return n.bits ^ (negative ? 0x8000000000000000ull : 0u);
        return bitsOf(value);
      case Type::F16: return halfBits(static_cast<float>(value));
      case Type::BF16: return bf16Bits(static_cast<float>(value));
      case Type::B32:
        if (n.float_is_single) return (n.bits ^ (negative ? 0x80000000u : 0u)) & 0xffffffffu;
        break;
      case Type::B64:
        if (n.text.size() == 18 && (n.text[1] == 'd' || n.text[1] == 'D'))
          return n.bits ^ (negative ? 0x8000000000000000ull : 0u);
        break;
      default: break;
    }
    failMsg(n, "floating-point literal " + std::string(n.text) + " cannot initialize a ." + toString(ty) + " variable");
  }

  // ---- Functions ------------------------------------------------------------------------------
  void parseFunction(bool is_extern, bool is_visible, bool is_weak) {
    const Token kw = take();
    Function f;
    f.loc = locOf(kw);
    f.is_entry = kw.isDirective(".entry");
    f.is_extern = is_extern;
    f.is_visible = is_visible;
    f.is_weak = is_weak;
    clearPlainRegisters();
    scope_marks_.clear();
    prototype_names_.clear();
    registers_ = 0;
    fn_name_.clear();
    dbg_file_ = dbg_line_ = dbg_col_ = 0;  // a function's instructions take only its own .loc
    if (!f.is_entry && isPunct('(')) {
      take();
      parseParams(f.returns, true);
    }
    const Token name = peek();
    if (name.kind != TokenKind::Identifier || name.text[0] == '%' || name.text == "_")
      fail(name, f.is_entry ? "a kernel name after .entry" : "a function name (or a '(' return list) after .func");
    take();
    f.name = std::string(name.text);
    fn_name_ = f.name;
    if (isPunct('(')) {
      take();
      parseParams(f.params, true);
    }
    parsePerformanceDirectives(f);
    if (acceptPunct(';')) {
      f.has_body = false;
    } else if (isPunct('{')) {
      take();
      f.has_body = true;
      fn_ = &f;
      parseBody(f);
      fn_ = nullptr;
    } else {
      fail(peek(), "'{' to start the body of '" + f.name +
                       "', ';', or a performance directive (.maxntid, .reqntid, .minnctapersm, .maxnreg, "
                       ".noreturn, .pragma, .reqnctapercluster, .maxclusterrank, .explicitcluster)");
    }
    mod_.functions.push_back(std::move(f));
  }

  // After '(': `.param ...` / `.reg ...` entries separated by commas, then ')'.
  void parseParams(std::vector<VarDecl>& out, bool track_registers) {
    if (acceptPunct(')')) return;
    for (;;) {
      const Token kw = peek();
      StateSpace space;
      if (kw.isDirective(".param")) space = StateSpace::Param;
      else if (kw.isDirective(".reg")) space = StateSpace::Reg;
      else fail(kw, "'.param' or '.reg' to start a parameter");
      take();
      std::vector<VarDecl> one;
      parseDecl(space, kw, space == StateSpace::Param ? unsigned(kAllowPtr) : 0u, one);
      if (track_registers && space == StateSpace::Reg) trackRegister(one.front());
      out.push_back(std::move(one.front()));
      if (acceptPunct(',')) continue;
      expectPunct(')', "',' or ')' in the parameter list");
      return;
    }
  }

  // `.maxntid 256, 1, 1`: up to three values; the ones not written are 1.
  void parseDims(std::uint32_t out[3], const char* what) {
    out[0] = static_cast<std::uint32_t>(takeUnsigned(what));
    out[1] = out[2] = 1;
    if (acceptPunct(',')) out[1] = static_cast<std::uint32_t>(takeUnsigned(what));
    if (acceptPunct(',')) out[2] = static_cast<std::uint32_t>(takeUnsigned(what));
  }

  void parsePerformanceDirectives(Function& f) {
    for (;;) {
      const Token& t = peek();
      if (t.kind != TokenKind::Directive) return;
      const std::string_view d = t.text;
      if (d == ".maxntid") {
        take();
        parseDims(f.maxntid, "a thread count after .maxntid");
      } else if (d == ".reqntid") {
        take();
        parseDims(f.reqntid, "a thread count after .reqntid");
      } else if (d == ".reqnctapercluster") {
        take();
        parseDims(f.reqnctapercluster, "a CTA count after .reqnctapercluster");
      } else if (d == ".minnctapersm") {
        take();
        f.minnctapersm = static_cast<std::uint32_t>(takeUnsigned("a CTA count after .minnctapersm"));
      } else if (d == ".maxnreg") {
        take();
        f.maxnreg = static_cast<std::uint32_t>(takeUnsigned("a register count after .maxnreg"));
      } else if (d == ".maxclusterrank") {
        take();
        f.maxclusterrank = static_cast<std::uint32_t>(takeUnsigned("a CTA count after .maxclusterrank"));
      } else if (d == ".noreturn") {
        take();
        f.noreturn = true;
      } else if (d == ".explicitcluster") {
        take();
        f.explicitcluster = true;
      } else if (d == ".pragma") {
        take();
        for (auto& s : parsePragmaStrings()) f.pragmas.push_back(std::move(s));
        expectPunct(';', "';' after .pragma");
      } else {
        return;  // the caller says what was expected
      }
    }
  }

  // ---- Bodies ---------------------------------------------------------------------------------
  // After the body's '{'. Scopes are flat ScopeOpen/ScopeClose statements: no recursion here.
  void parseBody(Function& f) {
    unsigned depth = 0;
    for (;;) {
      const Token t = peek();
      if (t.kind == TokenKind::End) fail(t, "'}' to close the body of '" + f.name + "'");
      if (!t.isPunct('}') || depth > 0) countStatement(t);  // the body's own braces are not statements
      if (t.isPunct('{')) {
        take();
        if (++depth > kMaxNesting) failMsg(t, "scopes nested deeper than " + std::to_string(kMaxNesting));
        scope_marks_.push_back(plain_regs_.size());
        addSimple(f, Statement::Kind::ScopeOpen, t);
      } else if (t.isPunct('}')) {
        take();
        if (depth == 0) return;
        --depth;
        popPlainRegisters(scope_marks_.back());
        scope_marks_.pop_back();
        addSimple(f, Statement::Kind::ScopeClose, t);
      } else if (t.kind == TokenKind::Directive) {
        parseBodyDirective(f);
      } else if (t.isPunct('@')) {
        parseInstruction(f);
      } else if (t.kind == TokenKind::Identifier) {
        if (isPunct(':', 1)) parseLabel(f);
        else parseInstruction(f);
      } else {
        fail(t, kExpectStatement);
      }
    }
  }

  void addSimple(Function& f, Statement::Kind kind, const Token& t) {
    Statement s;
    s.kind = kind;
    s.loc = locOf(t);
    f.body.push_back(std::move(s));
  }

  void parseBodyDirective(Function& f) {
    const Token t = peek();
    StateSpace space = StateSpace::None;
    if (t.isDirective(".reg")) space = StateSpace::Reg;
    else if (t.isDirective(".param")) space = StateSpace::Param;
    if (space != StateSpace::None || isSpaceDirective(t, space)) {
      take();
      unsigned flags = kAllowMany;
      if (space == StateSpace::Reg) flags |= kAllowRange;
      if (space == StateSpace::Global || space == StateSpace::Const) flags |= kAllowInit;
      std::vector<VarDecl> decls;
      parseDecl(space, t, flags, decls);
      expectPunct(';', "',' or ';' after the declaration");
      for (auto& d : decls) {
        if (space == StateSpace::Reg) trackRegister(d);
        Statement s;
        s.kind = Statement::Kind::Declaration;
        s.loc = locOf(t);
        s.decl = std::move(d);
        f.body.push_back(std::move(s));
      }
    } else if (t.isDirective(".loc")) {
      parseLoc();
    } else if (t.isDirective(".pragma")) {
      take();
      Statement s;
      s.kind = Statement::Kind::Pragma;
      s.loc = locOf(t);
      s.pragma = parsePragmaStrings();
      expectPunct(';', "';' after .pragma");
      f.body.push_back(std::move(s));
    } else {
      fail(t, kExpectStatement);
    }
  }

  // `name:` then a code label, a .callprototype, or a .branchtargets/.calltargets table.
  void parseLabel(Function& f) {
    const Token name = take();
    take();  // ':'
    const Token next = peek();
    if (next.isDirective(".callprototype")) {
      parseCallPrototype(name);
    } else if (next.isDirective(".branchtargets") || next.isDirective(".calltargets")) {
      take();
      Statement s;
      s.kind = next.isDirective(".branchtargets") ? Statement::Kind::BranchTargets : Statement::Kind::CallTargets;
      s.loc = locOf(name);
      s.label = std::string(name.text);
      do {
        const Token l = peek();
        if (l.kind != TokenKind::Identifier) fail(l, "a label or function name in the target list");
        countStatement(l);
        take();
        s.targets.emplace_back(l.text);
      } while (acceptPunct(','));
      expectPunct(';', "',' or ';' in the target list");
      f.body.push_back(std::move(s));
    } else {
      Statement s;
      s.kind = Statement::Kind::Label;
      s.loc = locOf(name);
      s.label = std::string(name.text);
      f.body.push_back(std::move(s));
    }
  }

  // name : .callprototype [(ret)] _ [(params)] [.noreturn];
  void parseCallPrototype(const Token& name) {
    take();
    CallPrototype p;
    p.name = std::string(name.text);
    p.function = fn_ ? fn_->name : std::string();
    p.loc = locOf(name);
    if (isPunct('(')) {
      take();
      parseParams(p.returns, false);
    }
    const Token u = peek();
    if (u.kind != TokenKind::Identifier || u.text != "_")
      fail(u, "'_' (the callee placeholder) in .callprototype");
    take();
    if (isPunct('(')) {
      take();
      parseParams(p.params, false);
    }
    while (peek().isDirective(".noreturn")) take();
    expectPunct(';', "';' after .callprototype");
    if (!prototype_names_.insert(p.name).second)
      failMsg(name, "call prototype '" + p.name + "' is declared twice in '" + p.function + "'");
    mod_.prototypes.push_back(std::move(p));
  }

  void parseInstruction(Function& f) {
    const Token first = peek();
    Statement s;
    s.kind = Statement::Kind::Instruction;
    s.loc = locOf(first);
    Instruction& in = s.inst;
    if (acceptPunct('@')) {
      Operand g;
      g.loc = locOf(first);
      g.negated = acceptPunct('!');
      const Token r = peek();
      if (r.kind != TokenKind::Identifier || r.text == "_") fail(r, "a predicate register after '@'");
      take();
      g.kind = Operand::Kind::Register;
      g.name = std::string(r.text);
      in.guard = std::move(g);
    }
    const Token op = peek();
    if (op.kind != TokenKind::Identifier || op.text[0] == '%' || op.text == "_")
      fail(op, in.guard ? "an instruction after the guard predicate" : kExpectStatement);
    take();
    in.opcode = std::string(op.text);
    in.loc = locOf(op);
    while (peek().kind == TokenKind::Directive) in.modifiers.emplace_back(take().text.substr(1));
    if (!acceptPunct(';')) {
      in.operands.push_back(parseOperand(0, "an operand or ';'"));
      while (acceptPunct(',')) in.operands.push_back(parseOperand(0, "an operand"));
      expectPunct(';', "',' or ';' after the operand");
    }
    in.debug_file = dbg_file_;
    in.debug_line = dbg_line_;
    in.debug_col = dbg_col_;
    f.body.push_back(std::move(s));
  }

  Operand parseOperand(unsigned depth, const char* expected) {
    const Token t = peek();
    if (depth > kMaxNesting) failMsg(t, "operands nested deeper than " + std::to_string(kMaxNesting));
    countStatement(t);
    Operand o;
    o.loc = locOf(t);
    switch (t.kind) {
      case TokenKind::Integer:
        take();
        setInt(o, t, false);
        return o;
      case TokenKind::Float:
        take();
        setFloat(o, t, false);
        return o;
      case TokenKind::Identifier: {
        take();
        nameOperand(o, t);
        if (o.kind == Operand::Kind::Symbol) o.int_value = parseOffsets();
        if (isPunct('|')) {  // dual destination %p|%q: a two-element vector
          take();
          const Token second = peek();
          if (second.kind != TokenKind::Identifier) fail(second, "a register or '_' after '|'");
          take();
          Operand b;
          b.loc = locOf(second);
          nameOperand(b, second);
          Operand pair;
          pair.kind = Operand::Kind::Vector;
          pair.loc = o.loc;
          pair.elements.push_back(std::move(o));
          pair.elements.push_back(std::move(b));
          return pair;
        }
        return o;
      }
      case TokenKind::Punct:
        break;
      default:
        fail(t, expected);
    }
    switch (t.text[0]) {
      case '!': {
        take();
        const Token r = peek();
        if (r.kind != TokenKind::Identifier || r.text == "_") fail(r, "a predicate register after '!'");
        take();
        o.kind = Operand::Kind::Register;
        o.name = std::string(r.text);
        o.negated = true;
        return o;
      }
      case '-': {
        take();
        const Token n = peek();
        if (n.kind == TokenKind::Integer) setInt(o, n, true);
        else if (n.kind == TokenKind::Float) setFloat(o, n, true);
        else fail(n, "a number after '-'");
        take();
        return o;
      }
      case '{':
      case '(': {
        // {a, b, _}: vector operand; (a, b): call return/argument list (may be empty).
        const char close = t.text[0] == '{' ? '}' : ')';
        take();
        o.kind = Operand::Kind::Vector;
        if (close == ')' && acceptPunct(')')) return o;
        do o.elements.push_back(parseOperand(depth + 1, close == '}' ? "a vector element" : "a call argument"));
        while (acceptPunct(','));
        expectPunct(close, close == '}' ? "',' or '}' in the vector" : "',' or ')' in the list");
        return o;
      }
      case '[':
        return parseAddress(depth);
      default:
        fail(t, expected);
    }
  }

  // [base], [base+off], [base+-off], [base-off], [imm], [base, {coords}] (tex/surface/tensor).
  Operand parseAddress(unsigned depth) {
    const Token open = take();
    Operand o;
    o.kind = Operand::Kind::Address;
    o.loc = locOf(open);
    const Token t = peek();
    if (t.kind == TokenKind::Identifier && t.text != "_") {
      take();
      o.name = std::string(t.text);
      o.int_value = parseOffsets();
    } else if (t.kind == TokenKind::Integer || t.isPunct('-')) {
      const bool negative = acceptPunct('-');
      const Token n = peek();
      if (n.kind != TokenKind::Integer) fail(n, "an integer address after '-'");
      take();
      o.int_value = static_cast<std::int64_t>(negative ? 0 - n.bits : n.bits) + parseOffsets();
    } else {
      fail(t, "a register, symbol or integer address after '['");
    }
    while (acceptPunct(',')) o.elements.push_back(parseOperand(depth + 1, "an address component"));
    expectPunct(']', "'+', '-', ',' or ']' in the address");
    return o;
  }

  void setInt(Operand& o, const Token& n, bool negative) {
    o.kind = Operand::Kind::IntImmediate;
    o.int_value = static_cast<std::int64_t>(negative ? 0 - n.bits : n.bits);
    // A literal too large for .s64 is unsigned in PTX, as is one written with a U suffix.
    o.is_unsigned = n.is_unsigned || (!negative && n.bits > std::uint64_t(INT64_MAX));
  }

  void setFloat(Operand& o, const Token& n, bool negative) {
    o.kind = Operand::Kind::FloatImmediate;
    o.float_is_single = n.float_is_single;
    o.float_value = negative ? -n.float_value : n.float_value;
    const std::uint64_t sign = n.float_is_single ? 0x80000000ull : 0x8000000000000000ull;
    o.float_bits = negative ? n.bits ^ sign : n.bits;
  }

  void nameOperand(Operand& o, const Token& t) {
    o.name = std::string(t.text);
    if (t.text == "_") o.kind = Operand::Kind::Sink;
    else if (isRegisterName(t.text)) o.kind = Operand::Kind::Register;
    else o.kind = Operand::Kind::Symbol;
  }

  // ---- Register names declared without '%' ------------------------------------------------------
  // `.reg .b32 temp_param_reg;` declares a register whose name looks like a symbol; we remember
  // such names per scope so operands naming them are Registers. Looked up by hash (a function may
  // declare a million of them), with a log in declaration order that a closing scope unwinds.
  struct PlainReg {
    std::string name;
    std::uint64_t range;  // 0: the single register `name`; N: name0 .. name(N-1)
  };

  void trackRegister(const VarDecl& d) {
    if (d.name.empty() || d.name[0] == '%') return;
    plain_regs_.push_back(PlainReg{d.name, d.reg_range});
    if (d.reg_range == 0) ++plain_singles_[d.name];
    else plain_ranges_[d.name].push_back(d.reg_range);
  }

  void popPlainRegisters(std::size_t keep) {
    while (plain_regs_.size() > keep) {
      const PlainReg& r = plain_regs_.back();
      if (r.range == 0) {
        auto it = plain_singles_.find(r.name);
        if (--it->second == 0) plain_singles_.erase(it);
      } else {
        auto it = plain_ranges_.find(r.name);
        it->second.pop_back();
        if (it->second.empty()) plain_ranges_.erase(it);
      }
      plain_regs_.pop_back();
    }
  }

  void clearPlainRegisters() {
    plain_regs_.clear();
    plain_singles_.clear();
    plain_ranges_.clear();
  }

  bool isRegisterName(std::string_view name) const {
    if (name[0] == '%') return true;
    if (plain_regs_.empty()) return false;
    if (plain_singles_.count(std::string(name))) return true;
    if (plain_ranges_.empty()) return false;
    // r<4> declares r0..r3: try every split of the trailing digits into prefix and index (a
    // prefix may end in digits itself).
    std::size_t first_digit = name.size();
    while (first_digit > 0 && name[first_digit - 1] >= '0' && name[first_digit - 1] <= '9') --first_digit;
    for (std::size_t split = std::max<std::size_t>(first_digit, 1); split < name.size(); ++split) {
      auto it = plain_ranges_.find(std::string(name.substr(0, split)));
      if (it == plain_ranges_.end()) continue;
      std::uint64_t v = 0;
      bool fits = true;
      for (char c : name.substr(split)) {
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
          fits = false;
          break;
        }
        v = v * 10 + digit;
      }
      if (!fits) continue;
      for (std::uint64_t range : it->second)
        if (v < range) return true;
    }
    return false;
  }

  Lexer lex_;
  Token ring_[kRing];
  unsigned head_ = 0, count_ = 0;
  Module mod_;
  Function* fn_ = nullptr;
  std::vector<PlainReg> plain_regs_;  // in declaration order, for unwinding scopes
  std::unordered_map<std::string, std::uint32_t> plain_singles_;           // name -> declarations in scope
  std::unordered_map<std::string, std::vector<std::uint64_t>> plain_ranges_;  // prefix -> ranges in scope
  std::vector<std::size_t> scope_marks_;
  std::unordered_set<std::string> prototype_names_;  // in the current function
  std::uint32_t dbg_file_ = 0, dbg_line_ = 0, dbg_col_ = 0;
  Limits limits_;
  std::uint64_t statements_ = 0;  // in the module
  std::uint64_t registers_ = 0;   // declared by the current function
  std::string fn_name_;           // the current function, once its name is read
};

}  // namespace

Module parseModule(std::string_view text, const std::string& source_name, const Limits& limits) {
  return Parser(text, source_name, limits).parse();
}

Module parseModuleFile(const std::string& path, const Limits& limits, std::uint64_t max_bytes) {
  // Only a regular file, and only as much as its size said: a link to /dev/urandom, a FIFO or a
  // file that grows while we read is not read forever.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw ParseError(path, 0, 0, "cannot open PTX file: " + ec.message());
  if (std::filesystem::is_directory(status)) throw ParseError(path, 0, 0, "cannot read PTX file: it is a directory");
  if (!std::filesystem::is_regular_file(status))
    throw ParseError(path, 0, 0, "cannot read PTX file: not a regular file (a device, FIFO or socket)");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw ParseError(path, 0, 0, "cannot read PTX file: " + ec.message());
  if (size > max_bytes)
    throw ParseError(path, 0, 0, limitText("the PTX file size in bytes", size, "input_file_bytes", max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, 0, std::string("cannot open PTX file: ") + std::strerror(errno));
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.bad()) throw ParseError(path, 0, 0, "cannot read PTX file: read error");
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parseModule(text, path, limits);
}

}  // namespace scgpu::ptx
