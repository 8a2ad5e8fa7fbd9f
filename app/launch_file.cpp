#include "app/launch_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <unordered_map>

#include "app/cli.h"
#include "app/npy.h"
#include "base/input_file.h"
#include "base/output_file.h"
#include "base/yaml_input.h"
#include "driver/texture_objects.h"

namespace scgpu::cli {
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Element types

namespace {
struct TypeInfo {
  ElemType type;
  const char* name;
  std::size_t size;
  char npy_kind;  // 'u', 'i' or 'f'
};
// A bound on warmup + repeat, so that a typo cannot ask for a run without end.
constexpr std::uint32_t kMaxLaunches = 100000;

constexpr TypeInfo kTypes[] = {
    {ElemType::U8, "u8", 1, 'u'},   {ElemType::S8, "s8", 1, 'i'},   {ElemType::U16, "u16", 2, 'u'},
    {ElemType::S16, "s16", 2, 'i'}, {ElemType::U32, "u32", 4, 'u'}, {ElemType::S32, "s32", 4, 'i'},
    {ElemType::U64, "u64", 8, 'u'}, {ElemType::S64, "s64", 8, 'i'}, {ElemType::F16, "f16", 2, 'f'},
    {ElemType::F32, "f32", 4, 'f'}, {ElemType::F64, "f64", 8, 'f'},
};
const TypeInfo& info(ElemType t) { return kTypes[static_cast<int>(t)]; }

std::string typeList() {
  std::string out;
  for (const auto& t : kTypes) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}
}  // namespace

std::size_t elemSize(ElemType t) { return info(t).size; }
const char* elemName(ElemType t) { return info(t).name; }
bool isFloat(ElemType t) { return info(t).npy_kind == 'f'; }
bool isSigned(ElemType t) { return info(t).npy_kind == 'i'; }
std::string npyDescr(ElemType t) {
  return fmt::format("{}{}{}", info(t).size == 1 ? '|' : '<', info(t).npy_kind, info(t).size);
}
std::optional<ElemType> parseElemType(const std::string& name) {
  for (const auto& t : kTypes)
    if (name == t.name) return t.type;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// binary16

std::uint16_t doubleToHalf(double value) {
  std::uint64_t b;
  std::memcpy(&b, &value, sizeof b);
  const std::uint16_t sign = static_cast<std::uint16_t>((b >> 48) & 0x8000);
  const int exp = static_cast<int>((b >> 52) & 0x7ff);
  const std::uint64_t frac = b & ((std::uint64_t(1) << 52) - 1);
  if (exp == 0x7ff)  // inf, or NaN kept quiet with the top payload bits
    return frac ? static_cast<std::uint16_t>(sign | 0x7e00 | (frac >> 42)) : static_cast<std::uint16_t>(sign | 0x7c00);
  if (exp == 0) return sign;  // zero or a double subnormal: far below half's range

  int e = exp - 1023;                                   // unbiased exponent
  const std::uint64_t m = (std::uint64_t(1) << 52) | frac;  // 53-bit significand
  if (e > 15) return sign | 0x7c00;

  // Keep 11 significant bits for a normal half (shift 42), fewer for a subnormal one whose unit is
  // 2^-24: the value is m * 2^(e-52), so the half significand is m >> (52 - 24 - e) = m >> (28 - e).
  const int shift = e >= -14 ? 42 : 28 - e;
  if (shift > 53) return sign;  // below half the smallest subnormal: rounds to zero
  std::uint64_t h = m >> shift;
  const std::uint64_t rem = m & ((std::uint64_t(1) << shift) - 1);
  const std::uint64_t halfway = std::uint64_t(1) << (shift - 1);
  if (rem > halfway || (rem == halfway && (h & 1))) ++h;

  if (e < -14)  // subnormal; rounding up into 0x400 yields the smallest normal, as it should
    return static_cast<std::uint16_t>(sign | h);
  if (h == 0x800) {  // the significand rounded up to the next power of two
    h >>= 1;
    ++e;
    if (e > 15) return sign | 0x7c00;
  }
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | (h & 0x3ff));
}

double halfToDouble(std::uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int exp = (bits >> 10) & 0x1f;
  const int frac = bits & 0x3ff;
  if (exp == 0x1f) return frac ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  if (exp == 0) return sign * std::ldexp(frac, -24);
  return sign * std::ldexp(frac | 0x400, exp - 25);
}

// ---------------------------------------------------------------------------------------------
// Typed element access on little-endian byte buffers (the host and the device are little-endian).

namespace {

void storeBits(std::uint8_t* p, ElemType t, std::uint64_t bits) { std::memcpy(p, &bits, elemSize(t)); }

std::uint64_t loadBits(const std::uint8_t* p, ElemType t) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, p, elemSize(t));
  return bits;
}

// Only called with values that are in range for the type (checked when parsed, or made so).
void storeFloat(std::uint8_t* p, ElemType t, double v) {
  if (t == ElemType::F16) {
    storeBits(p, t, doubleToHalf(v));
  } else if (t == ElemType::F32) {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else {
    std::memcpy(p, &v, 8);
  }
}

double loadFloat(const std::uint8_t* p, ElemType t) {
  if (t == ElemType::F16) return halfToDouble(static_cast<std::uint16_t>(loadBits(p, t)));
  if (t == ElemType::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  double d;
  std::memcpy(&d, p, 8);
  return d;
}

std::string formatElement(const std::uint8_t* p, ElemType t) {
  const std::uint64_t bits = loadBits(p, t);
  switch (t) {
    case ElemType::F16: return fmt::format("{} (0x{:04x})", halfToDouble(static_cast<std::uint16_t>(bits)), bits);
    case ElemType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return fmt::format("{} (0x{:08x})", f, bits);
    }
    case ElemType::F64: return fmt::format("{} (0x{:016x})", loadFloat(p, t), bits);
    default: break;
  }
  if (!isSigned(t)) return std::to_string(bits);
  const int shift = 64 - int(8 * elemSize(t));  // sign-extend
  return std::to_string(static_cast<std::int64_t>(bits << shift) >> shift);
}

// Largest magnitude that still rounds to a finite value of the type (halfway to the next power).
double finiteLimit(ElemType t) {
  if (t == ElemType::F16) return 65520.0;                     // 65504 + half an ulp
  if (t == ElemType::F32) return std::ldexp(0x1.ffffffp0, 127);  // FLT_MAX + half an ulp
  return std::numeric_limits<double>::infinity();
}

}  // namespace

std::string SourceLoc::str() const {
  return line > 0 ? fmt::format("{}:{}:{}", file, line, col) : file;
}

const BufferSpec* LaunchSpec::findBuffer(const std::string& name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// The parser

namespace {

// The keys of one YAML mapping, checked against the allowed set, with their nodes (for marks).
struct Fields {
  YAML::Node map;
  std::vector<std::pair<YAML::Node, YAML::Node>> entries;  // key, value
  const YAML::Node* find(const std::string& key) const {
    for (const auto& e : entries)
      if (e.first.Scalar() == key) return &e.second;
    return nullptr;
  }
};

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)), dir_(fs::path(file_).parent_path()) {}

  LaunchSpec parse(const YAML::Node& root) {
    LaunchSpec spec;
    spec.path = file_;
    if (!root.IsMap())
      fail(root, "a launch file is a mapping with keys ptx, kernel, grid, block, buffers, args");
    Fields top = fields(root, "the launch file",
                        {"ptx", "kernel", "grid", "block", "cluster", "dynamic_shared_bytes", "warmup", "repeat",
                         "buffers", "args"});

    const YAML::Node& ptx = required(top, "ptx", "the launch file");
    spec.ptx = existingFile(ptx, "ptx", "PTX file");
    spec.ptx_loc = loc(ptx);

    const YAML::Node& kernel = required(top, "kernel", "the launch file");
    spec.kernel = string(kernel, "kernel");
    if (spec.kernel.empty()) fail(kernel, "'kernel' must name the kernel's .entry");
    spec.kernel_loc = loc(kernel);

    const YAML::Node& grid = required(top, "grid", "the launch file");
    spec.grid = dim3(grid, "grid");
    spec.grid_loc = loc(grid);
    const YAML::Node& block = required(top, "block", "the launch file");
    spec.block = dim3(block, "block");
    spec.block_loc = loc(block);
    if (const YAML::Node* cluster = top.find("cluster")) spec.cluster = dim3(*cluster, "cluster");

    if (const YAML::Node* shared = top.find("dynamic_shared_bytes"))
      spec.dynamic_shared_bytes = integer(*shared, ElemType::U32, "dynamic_shared_bytes");
    // Launches back to back on the same buffers, caches and DRAM state, as a user times a kernel:
    // `warmup` first, then `repeat`; each is a row of the launch table.
    if (const YAML::Node* n = top.find("warmup")) {
      spec.warmup = std::uint32_t(integer(*n, ElemType::U32, "warmup"));
      if (spec.warmup > kMaxLaunches) fail(*n, fmt::format("'warmup' must be at most {}", kMaxLaunches));
    }
    if (const YAML::Node* n = top.find("repeat")) {
      spec.repeat = std::uint32_t(integer(*n, ElemType::U32, "repeat"));
      if (spec.repeat < 1 || spec.repeat > kMaxLaunches)
        fail(*n, fmt::format("'repeat' must be between 1 and {}", kMaxLaunches));
    }

    if (const YAML::Node* buffers = top.find("buffers")) {
      if (!buffers->IsMap())
        fail(*buffers, "'buffers' must be a mapping from buffer names to {type, count, init, ...}");
      for (const auto& kv : fields(*buffers, "buffers", {}).entries)
        spec.buffers.push_back(buffer(kv.first, kv.second));
    }

    const YAML::Node& args = required(top, "args", "the launch file");
    spec.args_loc = loc(args);
    if (!args.IsSequence())
      fail(args, "'args' must be a list of buffer names and {scalar: {type: T, value: V}} items, in the "
                 "kernel's parameter order");
    for (const auto& item : args) spec.args.push_back(arg(item, spec));
    return spec;
  }

 private:
  // --- errors and locations

  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const {
    throw ConfigError(fmt::format("{}: error: {}", loc(at).str(), message));
  }
  // Every node parsed from text has a mark; an empty document does not, and points at 1:1.
  SourceLoc loc(const YAML::Node& node) const {
    SourceLoc l{file_, 1, 1};
    YAML::Mark m = node.Mark();
    // An empty value ("block:") is marked where the next token starts, often the next line; its
    // key is where the reader should look.
    if (node.IsNull())
      for (const auto& [value, key] : null_values_)
        if (value.is(node)) m = key.Mark();
    if (!m.is_null()) {
      l.line = m.line + 1;
      l.col = m.column + 1;
    }
    return l;
  }
  static std::string describe(const YAML::Node& node) {
    switch (node.Type()) {
      case YAML::NodeType::Map: return "a mapping";
      case YAML::NodeType::Sequence: return "a list";
      case YAML::NodeType::Scalar: return fmt::format("'{}'", node.Scalar());
      default: return "nothing";
    }
  }

  // --- mappings

  // `allowed` empty: any key (buffer names).
  Fields fields(const YAML::Node& map, const std::string& what, std::initializer_list<const char*> allowed) {
    Fields f;
    f.map = map;
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) fail(kv.first, fmt::format("keys of {} must be plain names", what));
      const std::string& key = kv.first.Scalar();
      if (allowed.size() && std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; })) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(kv.first, fmt::format("unknown key '{}' in {} (expected one of: {})", key, what, list));
      }
      if (!seen.insert(key).second) fail(kv.first, fmt::format("duplicate key '{}' in {}", key, what));
      f.entries.emplace_back(kv.first, kv.second);
      if (kv.second.IsNull()) null_values_.emplace_back(kv.second, kv.first);
    }
    return f;
  }
  const YAML::Node& required(const Fields& f, const std::string& key, const std::string& what) const {
    const YAML::Node* node = f.find(key);
    if (!node) fail(f.map, fmt::format("missing key '{}' in {}", key, what));
    return *node;
  }

  // --- scalars

  std::string string(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, fmt::format("'{}' expects a string, found {}", what, describe(node)));
    return node.Scalar();
  }

  std::string existingFile(const YAML::Node& node, const std::string& what, const std::string& kind) const {
    const std::string rel = string(node, what);
    if (rel.empty()) fail(node, fmt::format("'{}' expects a file name", what));
    const fs::path path = fs::path(rel).is_absolute() ? fs::path(rel) : dir_ / rel;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      // A device, FIFO or directory would be read forever or block: only regular files are inputs.
      if (fs::exists(path, ec)) fail(node, fmt::format("{} '{}' is not a regular file ({})", kind, rel, path.string()));
      fail(node, fmt::format("{} '{}' not found (looked for {})", kind, rel, path.string()));
    }
    return path.string();
  }

  std::string resolve(const std::string& rel) const {
    return fs::path(rel).is_absolute() ? rel : (dir_ / rel).string();
  }

  // An integer of type t (bit pattern, sign-extended for signed types). Decimal or 0x hex.
  std::uint64_t integer(const YAML::Node& node, ElemType t, const std::string& what) const {
    if (!node.IsScalar())
      fail(node, fmt::format("'{}' expects an integer, found {}", what, describe(node)));
    const std::string& s = node.Scalar();
    std::size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    int base = 10;
    if (s.size() > i + 1 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
      base = 16;
      i += 2;
    }
    if (i == s.size()) fail(node, fmt::format("'{}' expects an integer, found '{}'", what, s));
    std::uint64_t v = 0;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
      if (d >= base) fail(node, fmt::format("'{}' expects an integer, found '{}'", what, s));
      if (v > (UINT64_MAX - std::uint64_t(d)) / std::uint64_t(base))
        fail(node, fmt::format("'{}' is out of range for {}", s, elemName(t)));
      v = v * std::uint64_t(base) + std::uint64_t(d);
    }
    const unsigned bits = unsigned(8 * elemSize(t));
    if (isSigned(t)) {
      const std::uint64_t limit = std::uint64_t(1) << (bits - 1);  // |min|; max is limit - 1
      if (negative ? v > limit : v >= limit) fail(node, fmt::format("'{}' is out of range for {}", s, elemName(t)));
      return negative ? 0 - v : v;
    }
    const std::uint64_t max = bits == 64 ? UINT64_MAX : (std::uint64_t(1) << bits) - 1;
    if ((negative && v != 0) || v > max) fail(node, fmt::format("'{}' is out of range for {}", s, elemName(t)));
    return v;
  }

  std::uint64_t positive(const YAML::Node& node, ElemType t, const std::string& what) const {
    const std::uint64_t v = integer(node, t, what);
    if (v == 0) fail(node, fmt::format("'{}' must be at least 1", what));
    return v;
  }

  // A number: decimal, hex float (0x1.8p3), or YAML's .inf/.nan spellings; finite unless allowed.
  double number(const YAML::Node& node, const std::string& what, bool allow_special = false) const {
    if (!node.IsScalar()) fail(node, fmt::format("'{}' expects a number, found {}", what, describe(node)));
    std::string s = node.Scalar();
    std::string lower;
    for (char c : s) lower += char(std::tolower(static_cast<unsigned char>(c)));
    const std::string body = (!lower.empty() && (lower[0] == '+' || lower[0] == '-')) ? lower.substr(1) : lower;
    double v;
    if (body == ".inf" || body == "inf" || body == "infinity") {
      v = lower[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    } else if (body == ".nan" || body == "nan") {
      v = std::numeric_limits<double>::quiet_NaN();
    } else {
      // strtod would also take "inf" spellings (handled above) and skip leading spaces (rejected).
      if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])))
        fail(node, fmt::format("'{}' expects a number, found '{}'", what, s));
      char* end = nullptr;
      v = std::strtod(s.c_str(), &end);
      if (*end != '\0') fail(node, fmt::format("'{}' expects a number, found '{}'", what, s));
      if (std::isinf(v)) fail(node, fmt::format("'{}' is out of range for a number", s));
      return v;
    }
    if (!allow_special) fail(node, fmt::format("'{}' must be a finite number", what));
    return v;
  }

  // One element of type t from a scalar, as bytes.
  std::vector<std::uint8_t> element(const YAML::Node& node, ElemType t, const std::string& what) const {
    std::vector<std::uint8_t> bytes(elemSize(t));
    if (!isFloat(t)) {
      storeBits(bytes.data(), t, integer(node, t, what));
    } else {
      const double v = number(node, what, /*allow_special=*/true);
      if (std::isfinite(v) && std::fabs(v) >= finiteLimit(t))
        fail(node, fmt::format("'{}' is out of range for {}", node.Scalar(), elemName(t)));
      storeFloat(bytes.data(), t, v);
    }
    return bytes;
  }

  ElemType type(const YAML::Node& node) const {
    const std::string name = string(node, "type");
    auto t = parseElemType(name);
    if (!t) fail(node, fmt::format("unknown element type '{}' (expected one of: {})", name, typeList()));
    return *t;
  }

  driver::Dim3 dim3(const YAML::Node& node, const std::string& what) const {
    auto one = [&](const YAML::Node& n) { return std::uint32_t(positive(n, ElemType::U32, what)); };
    if (node.IsScalar()) return driver::Dim3(one(node));
    if (!node.IsSequence() || node.size() < 1 || node.size() > 3)
      fail(node, fmt::format("'{}' expects a positive integer or a list of 1 to 3 of them, found {}", what,
                             describe(node)));
    std::uint32_t d[3] = {1, 1, 1};
    for (std::size_t i = 0; i < node.size(); ++i) d[i] = one(node[i]);
    return driver::Dim3(d[0], d[1], d[2]);
  }

  // --- buffers

  BufferSpec buffer(const YAML::Node& key, const YAML::Node& node) {
    BufferSpec b;
    b.name = key.Scalar();
    b.loc = loc(key);
    const std::string what = fmt::format("buffer '{}'", b.name);
    if (b.name.empty()) fail(key, "buffer names must not be empty");
    if (!node.IsMap()) fail(node, fmt::format("{} expects a mapping {{type, count, init, ...}}, found {}", what, describe(node)));
    Fields f = fields(node, what, {"type", "count", "init", "output", "expect", "tolerance"});
    b.type = type(required(f, "type", what));

    // count may be left out when the init (values or a file) says it.
    std::optional<std::uint64_t> count;
    const YAML::Node* count_node = f.find("count");
    if (count_node) {
      count = positive(*count_node, ElemType::U64, "count");
      if (*count > (std::uint64_t(1) << 40) / elemSize(b.type))
        fail(*count_node, fmt::format("{} would be larger than 1 TiB", what));
    }
    std::uint64_t implied = 0;  // by a values or file init
    if (const YAML::Node* init = f.find("init")) {
      b.init = initSpec(*init, b.type, count, what, &implied);
    } else {
      b.init.kind = InitSpec::Kind::Zeros;
      b.init.loc = b.loc;
    }
    if (!count && implied == 0)
      fail(node, fmt::format("missing key 'count' in {} (only 'values' and 'file' inits imply it)", what));
    b.count = count ? *count : implied;

    if (const YAML::Node* out = f.find("output")) {
      const std::string rel = string(*out, "output");
      if (rel.empty()) fail(*out, "'output' expects a file name");
      b.output = resolve(rel);
      b.output_loc = loc(*out);
      const fs::path parent = fs::path(b.output).parent_path();
      std::error_code ec;
      if (!parent.empty() && !fs::is_directory(parent, ec))
        fail(*out, fmt::format("directory '{}' for output '{}' does not exist", parent.string(), rel));
    }
    if (const YAML::Node* exp = f.find("expect")) {
      b.expect = existingFile(*exp, "expect", "expected-result file");
      b.expect_loc = loc(*exp);
      std::uint64_t n = dataFile(*exp, b.expect, b.type, &b.expect_npy, &b.expect_offset);
      if (n != b.count)
        fail(*exp, fmt::format("'{}' holds {} {} elements, but {} has {}", exp->Scalar(), n, elemName(b.type), what,
                               b.count));
    }
    if (const YAML::Node* tol = f.find("tolerance")) {
      if (!isFloat(b.type))
        fail(*tol, fmt::format("{} holds {} integers, which compare exactly; 'tolerance' is for f16/f32/f64", what,
                               elemName(b.type)));
      if (b.expect.empty()) fail(*tol, fmt::format("'tolerance' in {} needs 'expect'", what));
      if (!tol->IsMap()) fail(*tol, fmt::format("'tolerance' expects {{rel: R, abs: A}}, found {}", describe(*tol)));
      Fields tf = fields(*tol, "tolerance", {"rel", "abs"});
      Tolerance t;
      if (const YAML::Node* r = tf.find("rel")) t.rel = number(*r, "rel");
      if (const YAML::Node* a = tf.find("abs")) t.abs = number(*a, "abs");
      if (t.rel < 0) fail(*tf.find("rel"), "'rel' must not be negative");
      if (t.abs < 0) fail(*tf.find("abs"), "'abs' must not be negative");
      b.tolerance = t;
    }
    return b;
  }

  // Checks a data file (raw or .npy) for element type t; returns its element count.
  std::uint64_t dataFile(const YAML::Node& node, const std::string& path, ElemType t, bool* npy,
                         std::uint64_t* offset) const {
    *npy = fs::path(path).extension() == ".npy";
    if (*npy) {
      NpyHeader h;
      try {
        h = readNpyHeader(path);
      } catch (const NpyError& e) {
        fail(node, fmt::format("'{}': {}", node.Scalar(), e.reason()));
      }
      const char kind = h.descr.size() > 1 ? h.descr[1] : '?';
      if (npyElementSize(h.descr) != elemSize(t) || kind != info(t).npy_kind)
        fail(node, fmt::format("'{}' holds dtype '{}', but the buffer is {} ('{}')", node.Scalar(), h.descr,
                               elemName(t), npyDescr(t)));
      std::error_code ec;
      const std::uint64_t size = fs::file_size(path, ec);
      const std::uint64_t count = h.count();
      if (ec || size < h.data_offset || (size - h.data_offset) / elemSize(t) < count)
        fail(node, fmt::format("'{}' is shorter than its header's shape says", node.Scalar()));
      *offset = h.data_offset;
      return count;
    }
    std::error_code ec;
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec) fail(node, fmt::format("cannot read '{}'", node.Scalar()));
    if (size % elemSize(t) != 0)
      fail(node, fmt::format("'{}' has {} bytes, not a whole number of {} elements", node.Scalar(), size, elemName(t)));
    *offset = 0;
    return size / elemSize(t);
  }

  // `count` is the buffer's, when given; *implied receives the count that values or a file imply.
  InitSpec initSpec(const YAML::Node& node, ElemType t, std::optional<std::uint64_t> count, const std::string& what,
                    std::uint64_t* implied) {
    InitSpec init;
    init.loc = loc(node);
    const char* forms = "zeros, iota, {fill: V}, {random: {seed, min, max}}, {file: PATH}, {values: [...]}";
    if (node.IsScalar()) {
      if (node.Scalar() == "zeros") init.kind = InitSpec::Kind::Zeros;
      else if (node.Scalar() == "iota") init.kind = InitSpec::Kind::Iota;
      else fail(node, fmt::format("unknown init '{}' for {} (expected {})", node.Scalar(), what, forms));
      return init;
    }
    if (!node.IsMap() || node.size() != 1)
      fail(node, fmt::format("'init' of {} expects one of {}", what, forms));
    Fields f = fields(node, "init", {"fill", "random", "file", "values"});
    const std::string form = f.entries[0].first.Scalar();
    const YAML::Node& value = f.entries[0].second;
    if (form == "fill") {
      init.kind = InitSpec::Kind::Fill;
      init.bytes = element(value, t, "fill");
    } else if (form == "random") {
      init.kind = InitSpec::Kind::Random;
      if (!value.IsMap() && !value.IsNull())
        fail(value, fmt::format("'random' expects {{seed: S, min: A, max: B}}, found {}", describe(value)));
      // Defaults: [0, 1) for floats, the whole range of an integer type.
      const unsigned bits = unsigned(8 * elemSize(t));
      if (isSigned(t)) {
        init.imin = std::uint64_t(-1) << (bits - 1);
        init.imax = ~init.imin;
      } else {
        init.imin = 0;
        init.imax = bits == 64 ? UINT64_MAX : (std::uint64_t(1) << bits) - 1;
      }
      if (value.IsMap()) {
        Fields rf = fields(value, "random", {"seed", "min", "max"});
        if (const YAML::Node* s = rf.find("seed")) init.seed = integer(*s, ElemType::U64, "seed");
        const YAML::Node* mn = rf.find("min");
        const YAML::Node* mx = rf.find("max");
        if (isFloat(t)) {
          if (mn) init.fmin = boundedFloat(*mn, t, "min");
          if (mx) init.fmax = boundedFloat(*mx, t, "max");
          if (init.fmin > init.fmax) fail(value, fmt::format("'random' has min {} > max {}", init.fmin, init.fmax));
        } else {
          if (mn) init.imin = integer(*mn, t, "min");
          if (mx) init.imax = integer(*mx, t, "max");
          const bool bad = isSigned(t) ? std::int64_t(init.imin) > std::int64_t(init.imax) : init.imin > init.imax;
          if (bad) fail(value, "'random' has min > max");
        }
      }
    } else if (form == "file") {
      init.kind = InitSpec::Kind::File;
      init.path = existingFile(value, "file", "init file");
      const std::uint64_t n = dataFile(value, init.path, t, &init.npy, &init.data_offset);
      if (count && n != *count)
        fail(value, fmt::format("'{}' holds {} {} elements, but {} has count {}", value.Scalar(), n, elemName(t),
                                what, *count));
      if (n == 0) fail(value, fmt::format("'{}' holds no elements", value.Scalar()));
      *implied = n;
    } else {  // values
      init.kind = InitSpec::Kind::Values;
      if (!value.IsSequence() || value.size() == 0)
        fail(value, fmt::format("'values' expects a non-empty list of {} values", elemName(t)));
      if (count && value.size() != *count)
        fail(value, fmt::format("'values' lists {} elements, but {} has count {}", value.size(), what, *count));
      for (const auto& v : value) {
        auto bytes = element(v, t, "values");
        init.bytes.insert(init.bytes.end(), bytes.begin(), bytes.end());
      }
      *implied = value.size();
    }
    return init;
  }

  double boundedFloat(const YAML::Node& node, ElemType t, const std::string& what) const {
    const double v = number(node, what);
    if (std::fabs(v) >= finiteLimit(t)) fail(node, fmt::format("'{}' is out of range for {}", node.Scalar(), elemName(t)));
    return v;
  }

  // --- arguments

  ArgSpec arg(const YAML::Node& node, const LaunchSpec& spec) {
    ArgSpec a;
    a.loc = loc(node);
    if (node.IsScalar()) {
      const std::string& name = node.Scalar();
      if (buffer_index_.size() != spec.buffers.size()) {  // built once: args x buffers stays linear
        buffer_index_.clear();
        for (std::size_t i = 0; i < spec.buffers.size(); ++i) buffer_index_.emplace(spec.buffers[i].name, i);
      }
      if (const auto it = buffer_index_.find(name); it != buffer_index_.end()) {
        a.kind = ArgSpec::Kind::Buffer;
        a.buffer = it->second;
        return a;
      }
      std::string names;
      constexpr std::size_t kNamesShown = 16;  // the message stays short however many buffers there are
      for (std::size_t i = 0; i < spec.buffers.size() && i < kNamesShown; ++i)
        names += (names.empty() ? "" : ", ") + spec.buffers[i].name;
      if (spec.buffers.size() > kNamesShown) names += fmt::format(", ... ({} in all)", spec.buffers.size());
      const bool numeric = !name.empty() && (std::isdigit(static_cast<unsigned char>(name[0])) || name[0] == '-');
      fail(node, fmt::format("unknown buffer '{}' in args (buffers: {}){}", name, names.empty() ? "none" : names,
                             numeric ? "; a scalar argument is written {scalar: {type: u32, value: 5}}" : ""));
    }
    if (!node.IsMap())
      fail(node, fmt::format("an argument is a buffer name, {{scalar: {{type: T, value: V}}}}, {{tensor_map: {{...}}}}, "
                             "{{texture: {{...}}}} or {{surface: {{...}}}}, found {}", describe(node)));
    Fields f = fields(node, "an argument", {"scalar", "tensor_map", "texture", "surface"});
    if (f.entries.size() > 1) fail(node, "an argument is one of scalar, tensor_map, texture or surface, not several");
    if (const YAML::Node* tm = f.find("tensor_map")) {
      tensorMapArg(*tm, spec, a);
      return a;
    }
    if (const YAML::Node* t = f.find("texture")) return textureArg(*t, spec, false, a);
    if (const YAML::Node* t = f.find("surface")) return textureArg(*t, spec, true, a);
    const YAML::Node& scalar = required(f, "scalar", "an argument");
    if (!scalar.IsMap()) fail(scalar, fmt::format("'scalar' expects {{type: T, value: V}}, found {}", describe(scalar)));
    Fields sf = fields(scalar, "scalar", {"type", "value"});
    a.kind = ArgSpec::Kind::Scalar;
    a.type = type(required(sf, "type", "scalar"));
    a.bytes = element(required(sf, "value", "scalar"), a.type, "value");
    return a;
  }

  // {tensor_map: {buffer: B, type: T, dims: [...], strides_bytes: [...], box: [...],
  //  element_strides: [...], swizzle: none|32B|64B|128B, oob_fill: zero|nan}}: checked as
  // cuTensorMapEncodeTiled checks it, and against the buffer's size. With `im2col: {lower: [...],
  // upper: [...], channels_per_pixel: C, pixels_per_column: P}` in place of `box`, an im2col map
  // (cuTensorMapEncodeIm2col; the corners of the spatial dimensions, W first).
  void tensorMapArg(const YAML::Node& node, const LaunchSpec& spec, ArgSpec& a) {
    if (!node.IsMap()) fail(node, fmt::format("'tensor_map' expects a mapping, found {}", describe(node)));
    Fields f = fields(node, "tensor_map", {"buffer", "type", "dims", "strides_bytes", "box", "im2col", "element_strides",
                                           "swizzle", "oob_fill"});
    a.kind = ArgSpec::Kind::TensorMap;
    const YAML::Node& buf = required(f, "buffer", "tensor_map");
    const std::string name = string(buf, "buffer");
    const BufferSpec* it = spec.findBuffer(name);
    if (!it) fail(buf, fmt::format("unknown buffer '{}' in tensor_map", name));
    a.buffer = std::size_t(it - spec.buffers.data());
    sm::TensorMap& m = a.tensor_map;
    static const std::map<std::string, sm::TmaType> types = {
        {"u8", sm::TmaType::U8},   {"u16", sm::TmaType::U16}, {"u32", sm::TmaType::U32},   {"s32", sm::TmaType::S32},
        {"u64", sm::TmaType::U64}, {"s64", sm::TmaType::S64}, {"f16", sm::TmaType::F16},   {"f32", sm::TmaType::F32},
        {"f64", sm::TmaType::F64}, {"bf16", sm::TmaType::BF16}, {"tf32", sm::TmaType::TF32}};
    const YAML::Node& tn = required(f, "type", "tensor_map");
    const auto t = types.find(string(tn, "type"));
    if (t == types.end()) fail(tn, "tensor_map 'type' is one of u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 tf32");
    m.type = t->second;
    auto list = [&](const char* key, bool need, std::size_t n, std::uint64_t* out) -> std::size_t {
      const YAML::Node* l = f.find(key);
      if (!l) {
        if (need) fail(node, fmt::format("missing key '{}' in tensor_map", key));
        return 0;
      }
      if (!l->IsSequence() || l->size() == 0 || l->size() > 5 || (n && l->size() != n))
        fail(*l, n ? fmt::format("'{}' expects a list of {} integers", key, n)
                   : fmt::format("'{}' expects a list of 1 to 5 integers", key));
      for (std::size_t i = 0; i < l->size(); ++i) out[i] = integer((*l)[i], ElemType::U64, key);
      return l->size();
    };
    std::uint64_t dims[5] = {}, strides[5] = {}, box[5] = {}, estr[5] = {1, 1, 1, 1, 1};
    m.rank = std::uint32_t(list("dims", true, 0, dims));
    if (m.rank > 1) list("strides_bytes", true, m.rank - 1, strides);
    else if (f.find("strides_bytes")) fail(*f.find("strides_bytes"), "a 1-d tensor_map has no 'strides_bytes'");
    if (const YAML::Node* ic = f.find("im2col")) {
      if (f.find("box")) fail(*ic, "a tensor_map has 'box' (tiled) or 'im2col', not both");
      im2colMap(*ic, m);
    } else {
      list("box", true, m.rank, box);
    }
    list("element_strides", false, m.rank, estr);
    for (std::uint32_t d = 0; d < m.rank; ++d) {
      m.size[d] = dims[d];
      m.stride_bytes[d] = d ? strides[d - 1] : sm::tmaTypeBytes(m.type);
      if (!m.im2col) m.box[d] = std::uint32_t(std::min<std::uint64_t>(box[d], 1u << 20));
      m.element_stride[d] = std::uint32_t(std::min<std::uint64_t>(estr[d], 1u << 20));
    }
    if (const YAML::Node* s = f.find("swizzle")) {
      const std::string v = string(*s, "swizzle");
      if (v == "none") m.swizzle = sm::TmaSwizzle::None;
      else if (v == "32B") m.swizzle = sm::TmaSwizzle::B32;
      else if (v == "64B") m.swizzle = sm::TmaSwizzle::B64;
      else if (v == "128B") m.swizzle = sm::TmaSwizzle::B128;
      else fail(*s, "'swizzle' is none, 32B, 64B or 128B");
    }
    if (const YAML::Node* o = f.find("oob_fill")) {
      const std::string v = string(*o, "oob_fill");
      if (v != "zero" && v != "nan") fail(*o, "'oob_fill' is zero or nan");
      m.oob_nan = v == "nan";
    }
    const std::string err = sm::checkTensorMap(m);
    if (!err.empty()) fail(node, "invalid tensor_map: " + err);
    // The last element must lie in the buffer.
    std::uint64_t last = 0;
    for (std::uint32_t d = 0; d < m.rank; ++d) last += (m.size[d] - 1) * m.stride_bytes[d];
    if (last + sm::tmaTypeBytes(m.type) > it->bytes())
      fail(node, fmt::format("the tensor_map spans {} bytes, but buffer '{}' has {}", last + sm::tmaTypeBytes(m.type), name,
                             it->bytes()));
  }

  // The im2col part of a tensor_map: the bounding box's corners for the rank - 2 spatial
  // dimensions and the pixels and channels a copy moves.
  void im2colMap(const YAML::Node& node, sm::TensorMap& m) {
    if (!node.IsMap()) fail(node, fmt::format("'im2col' expects a mapping, found {}", describe(node)));
    Fields f = fields(node, "im2col", {"lower", "upper", "channels_per_pixel", "pixels_per_column"});
    if (m.rank < 3) fail(node, "an im2col tensor_map has 3 to 5 dimensions (channels, 1 to 3 spatial, images)");
    m.im2col = true;
    const std::uint32_t spatial = m.rank - 2;
    // The corners' range, as cuTensorMapEncodeIm2col's: 16, 8 and 5 bits for rank 3, 4 and 5.
    const std::int64_t half = m.rank == 3 ? 1 << 15 : m.rank == 4 ? 1 << 7 : 1 << 4;
    for (const char* key : {"lower", "upper"}) {
      const YAML::Node& l = required(f, key, "im2col");
      if (!l.IsSequence() || l.size() != spatial)
        fail(l, fmt::format("'{}' expects a list of {} integers (the spatial dimensions, W first)", key, spatial));
      for (std::uint32_t s = 0; s < spatial; ++s) {
        const std::int64_t v = std::int32_t(integer(l[s], ElemType::S32, key));
        if (v < -half || v >= half) fail(l[s], fmt::format("'{}' corners of a {}-d map lie in [{}, {}]", key, m.rank, -half, half - 1));
        (key[0] == 'l' ? m.lower_corner : m.upper_corner)[s] = std::int32_t(v);
      }
    }
    m.channels_per_pixel = std::uint32_t(std::min<std::uint64_t>(
        integer(required(f, "channels_per_pixel", "im2col"), ElemType::U32, "channels_per_pixel"), 1u << 20));
    m.pixels_per_column = std::uint32_t(std::min<std::uint64_t>(
        integer(required(f, "pixels_per_column", "im2col"), ElemType::U32, "pixels_per_column"), 1u << 20));
  }

  // {texture: {...}} / {surface: {...}}: an object over a buffer, passed as its handle (a u64).
  ArgSpec textureArg(const YAML::Node& node, const LaunchSpec& spec, bool surface, ArgSpec a) {
    const char* what = surface ? "surface" : "texture";
    if (!node.IsMap()) fail(node, fmt::format("'{}' expects a mapping with buffer, width, ..., found {}", what, describe(node)));
    Fields f = surface ? fields(node, what, {"buffer", "channels", "width", "height", "depth", "layers", "pitch_bytes"})
                       : fields(node, what, {"buffer", "channels", "width", "height", "depth", "layers", "pitch_bytes",
                                             "filter", "address", "normalized_coords", "read", "border_color", "cube",
                                             "mip_levels", "mipmap_filter", "lod_bias", "min_lod_clamp",
                                             "max_lod_clamp"});
    const YAML::Node& bnode = required(f, "buffer", what);
    const std::string name = string(bnode, "buffer");
    const BufferSpec* b = spec.findBuffer(name);
    if (!b) fail(bnode, fmt::format("unknown buffer '{}' in {}", name, what));
    a.kind = ArgSpec::Kind::Texture;
    a.buffer = std::size_t(b - spec.buffers.data());
    sm::TextureDesc& d = a.texture;
    d.magic = surface ? sm::kSurfaceMagic : sm::kTextureMagic;
    switch (b->type) {
      case ElemType::U8: case ElemType::U16: case ElemType::U32: d.kind = sm::ChannelKind::Unsigned; break;
      case ElemType::S8: case ElemType::S16: case ElemType::S32: d.kind = sm::ChannelKind::Signed; break;
      case ElemType::F16: case ElemType::F32: d.kind = sm::ChannelKind::Float; break;
      default:
        fail(bnode, fmt::format("buffer '{}' is {}: a {} takes u8, s8, u16, s16, u32, s32, f16 or f32 elements", name,
                                elemName(b->type), what));
    }
    d.bits = std::uint8_t(8 * elemSize(b->type));
    auto dim = [&](const char* key, std::uint64_t dflt) {
      const YAML::Node* n = f.find(key);
      if (!n) return dflt;
      const std::uint64_t v = positive(*n, ElemType::U32, key);
      if (v > (1u << 30)) fail(*n, fmt::format("'{}' is at most 2^30", key));
      return v;
    };
    const std::uint64_t channels = dim("channels", 1);
    if (channels != 1 && channels != 2 && channels != 4) fail(*f.find("channels"), "'channels' is 1, 2 or 4");
    d.channels = std::uint8_t(channels);
    d.width = std::uint32_t(dim("width", 0));
    if (!f.find("width")) required(f, "width", what);
    d.height = std::uint32_t(dim("height", 1));
    d.depth = std::uint32_t(dim("depth", 1));
    d.dims = f.find("depth") ? 3 : f.find("height") ? 2 : 1;
    if (f.find("layers")) {
      if (f.find("depth")) fail(*f.find("layers"), "a layered texture has no depth");
      d.layers = std::uint32_t(dim("layers", 1));
      d.flags |= sm::kTexLayered;
    }
    d.pitch = f.find("pitch_bytes") ? integer(*f.find("pitch_bytes"), ElemType::U64, "pitch_bytes")
                                    : std::uint64_t(d.width) * d.texelBytes();
    if (d.pitch < std::uint64_t(d.width) * d.texelBytes() || d.pitch % d.texelBytes())
      fail(*f.find("pitch_bytes"), fmt::format("'pitch_bytes' must be a multiple of the {}-byte texel and hold a row "
                                               "of {} texels", d.texelBytes(), d.width));
    d.slice_pitch = d.pitch * d.height;
    // A cube map: square 2D faces, 6 a cube (`layers` counts cubes); its faces are 2D slices.
    if (const YAML::Node* n = f.find("cube")) {
      const std::string v = string(*n, "cube");
      if (v == "true") {
        if (d.dims != 2) fail(*n, "a cube map has a width and a height (square faces), and no depth");
        if (d.width != d.height)
          fail(*n, fmt::format("cube-map faces must be square, found {} x {}", d.width, d.height));
        d.flags |= sm::kTexCubemap;
      } else if (v != "false") {
        fail(*n, "'cube' is true or false");
      }
    }
    // Mipmap levels: level 0 as above, then each level right after the last, rows unpadded
    // (sm/texture_desc.h, level_align_log2 = 0); the buffer holds them all, in that order.
    if (const YAML::Node* n = f.find("mip_levels")) {
      const std::uint64_t levels = positive(*n, ElemType::U32, "mip_levels");
      sm::TextureDesc one = d;
      one.levels = 1;
      if (levels > one.maxLevels())
        fail(*n, fmt::format("'mip_levels' is at most {} for a largest dimension of {} (floor(log2) + 1), found {}",
                             one.maxLevels(), std::max({d.width, d.height, d.depth}), levels));
      d.levels = std::uint8_t(levels);
      d.max_lod_clamp = float(levels - 1);
    }
    auto lodValue = [&](const char* key, float* out) {
      if (const YAML::Node* n = f.find(key)) {
        if (d.levels < 2) fail(*n, fmt::format("'{}' needs 'mip_levels' (2 or more)", key));
        *out = float(number(*n, key));
      }
    };
    lodValue("lod_bias", &d.lod_bias);
    lodValue("min_lod_clamp", &d.min_lod_clamp);
    lodValue("max_lod_clamp", &d.max_lod_clamp);
    if (const YAML::Node* n = f.find("mipmap_filter")) {
      if (d.levels < 2) fail(*n, "'mipmap_filter' needs 'mip_levels' (2 or more)");
      const std::string v = string(*n, "mipmap_filter");
      if (v == "linear") d.mip_flags |= sm::kTexMipLinear;
      else if (v != "point") fail(*n, fmt::format("'mipmap_filter' is point or linear, found '{}'", v));
    }
    // The bytes up to the end of the last level's last row (its padding need not be there).
    const sm::TexLevel last = d.levelGeometry(d.levels - 1u);
    const std::uint64_t need = d.footprintBytes() - (last.pitch - std::uint64_t(last.width) * d.texelBytes());
    if (need > b->bytes()) {
      const std::uint64_t slices = d.slicesAt(d.depth);
      fail(node, fmt::format("a {} of {} x {} x {} texels of {} bytes{} needs {} bytes; buffer '{}' holds {}", what,
                             d.width, d.height, slices, d.texelBytes(),
                             d.levels > 1 ? fmt::format(" in {} mipmap levels", d.levels) : std::string(), need, name,
                             b->bytes()));
    }
    if (const YAML::Node* n = f.find("filter")) {
      const std::string v = string(*n, "filter");
      if (v == "linear") d.flags |= sm::kTexLinearFilter;
      else if (v != "point") fail(*n, fmt::format("'filter' is point or linear, found '{}'", v));
    }
    if (const YAML::Node* n = f.find("address")) {
      auto mode = [&](const YAML::Node& m) {
        const std::string v = string(m, "address");
        static const char* const names[4] = {"wrap", "clamp", "mirror", "border"};
        for (int i = 0; i < 4; ++i)
          if (v == names[i]) return sm::TexAddressMode(i);
        fail(m, fmt::format("'address' is wrap, clamp, mirror or border, found '{}'", v));
      };
      if (n->IsSequence()) {
        if (n->size() < 1 || n->size() > 3) fail(*n, "'address' lists 1 to 3 modes (x, y, z)");
        for (std::size_t i = 0; i < 3; ++i) d.addr[i] = mode((*n)[std::min(i, n->size() - 1)]);
      } else {
        for (auto& m : d.addr) m = mode(*n);
      }
    }
    if (const YAML::Node* n = f.find("normalized_coords")) {
      const std::string v = string(*n, "normalized_coords");
      if (v == "true") d.flags |= sm::kTexNormalizedCoords;
      else if (v != "false") fail(*n, "'normalized_coords' is true or false");
    }
    if (const YAML::Node* n = f.find("read")) {
      const std::string v = string(*n, "read");
      if (v == "normalized_float") d.flags |= sm::kTexReadNormalized;
      else if (v != "element") fail(*n, fmt::format("'read' is element or normalized_float, found '{}'", v));
    }
    if (const YAML::Node* n = f.find("border_color")) {
      if (!n->IsSequence() || n->size() != 4) fail(*n, "'border_color' lists 4 numbers (r, g, b, a)");
      for (std::size_t i = 0; i < 4; ++i) d.border[i] = float(number((*n)[i], "border_color"));
    }
    d.base = 0;  // the buffer's address, at the launch
    sm::TextureDesc check = d;
    check.base = 256;
    const std::string why = sm::TextureDesc::validate(check);
    if (!why.empty()) fail(node, fmt::format("bad {}: {}", what, why));
    return a;
  }

  std::string file_;
  fs::path dir_;
  std::unordered_map<std::string, std::size_t> buffer_index_;
  std::vector<std::pair<YAML::Node, YAML::Node>> null_values_;  // empty value, its key
};

}  // namespace

LaunchSpec parseLaunchString(const std::string& yaml, const std::string& path) {
  const YAML::Node root = loadYaml(yaml, path);  // bounded: depth, nodes after aliases
  try {
    return Parser(path).parse(root);
  } catch (const YAML::Exception& e) {
    // The checks above should leave yaml-cpp nothing to object to; if it still does, keep the contract.
    throw ConfigError(fmt::format("{}:{}:{}: error: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

LaunchSpec parseLaunchFile(const std::string& path) {
  return parseLaunchString(readInputFile(path, "launch file"), path);
}

// ---------------------------------------------------------------------------------------------
// Running

std::vector<std::uint8_t> initialContents(const BufferSpec& b) {
  const ElemType t = b.type;
  const std::size_t size = elemSize(t);
  std::vector<std::uint8_t> data;
  const InitSpec& init = b.init;
  switch (init.kind) {
    case InitSpec::Kind::Zeros:
      data.assign(b.bytes(), 0);
      break;
    case InitSpec::Kind::Iota:
      // Element i holds i; integer types wrap at their width (u8 counts 0..255, 0..).
      data.resize(b.bytes());
      for (std::uint64_t i = 0; i < b.count; ++i) {
        if (isFloat(t)) storeFloat(&data[i * size], t, double(i));
        else storeBits(&data[i * size], t, i);
      }
      break;
    case InitSpec::Kind::Fill:
      data.resize(b.bytes());
      for (std::uint64_t i = 0; i < b.count; ++i) std::memcpy(&data[i * size], init.bytes.data(), size);
      break;
    case InitSpec::Kind::Values:
      data = init.bytes;
      break;
    case InitSpec::Kind::Random: {
      // Only operations with exactly specified results, so every platform makes the same data:
      // mt19937_64's output sequence is fixed by the standard; no std::*_distribution.
      std::mt19937_64 rng(init.seed);
      data.resize(b.bytes());
      const std::uint64_t range = init.imax - init.imin + 1;  // 0 means all 2^64 values
      for (std::uint64_t i = 0; i < b.count; ++i) {
        const std::uint64_t x = rng();
        if (isFloat(t)) {
          const double u = double(x >> 11) * 0x1.0p-53;  // [0, 1), 53 random bits
          storeFloat(&data[i * size], t, init.fmin * (1.0 - u) + init.fmax * u);
        } else {
          storeBits(&data[i * size], t, init.imin + (range ? x % range : x));
        }
      }
      break;
    }
    case InitSpec::Kind::File: {
      try {
        if (init.npy) {
          NpyHeader h = readNpyHeader(init.path);
          data = readNpyData(init.path, h, size);
        } else {
          std::ifstream f(init.path, std::ios::binary);
          data.resize(b.bytes());
          f.read(reinterpret_cast<char*>(data.data()), std::streamsize(data.size()));
          if (std::uint64_t(f.gcount()) != data.size()) throw NpyError(init.path, "file is shorter than the buffer");
        }
      } catch (const NpyError& e) {
        throw ConfigError(fmt::format("{}: error: buffer '{}': {}", init.loc.str(), b.name, e.reason()));
      }
      if (data.size() != b.bytes())
        throw ConfigError(fmt::format("{}: error: buffer '{}': '{}' changed size since it was checked",
                                      init.loc.str(), b.name, init.path));
      break;
    }
  }
  return data;
}

namespace {

std::vector<std::uint8_t> expectedContents(const BufferSpec& b) {
  try {
    if (b.expect_npy) return readNpyData(b.expect, readNpyHeader(b.expect), elemSize(b.type));
    std::ifstream f(b.expect, std::ios::binary);
    std::vector<std::uint8_t> data(b.bytes());
    f.read(reinterpret_cast<char*>(data.data()), std::streamsize(data.size()));
    if (std::uint64_t(f.gcount()) != data.size()) throw NpyError(b.expect, "file is shorter than the buffer");
    return data;
  } catch (const NpyError& e) {
    throw ConfigError(fmt::format("{}: error: buffer '{}': {}", b.expect_loc.str(), b.name, e.reason()));
  }
}

BufferCheck compare(const BufferSpec& b, const std::vector<std::uint8_t>& got) {
  const std::vector<std::uint8_t> want = expectedContents(b);
  BufferCheck check;
  check.buffer = b.name;
  const std::size_t size = elemSize(b.type);
  std::uint64_t first = 0;
  for (std::uint64_t i = 0; i < b.count; ++i) {
    const std::uint8_t* g = &got[i * size];
    const std::uint8_t* w = &want[i * size];
    bool equal;
    if (!b.tolerance || std::memcmp(g, w, size) == 0) {
      equal = std::memcmp(g, w, size) == 0;
    } else {
      const double gv = loadFloat(g, b.type), wv = loadFloat(w, b.type);
      equal = (std::isnan(gv) && std::isnan(wv)) || gv == wv ||
              std::fabs(gv - wv) <= b.tolerance->abs + b.tolerance->rel * std::fabs(wv);
    }
    if (!equal && check.mismatches++ == 0) first = i;
  }
  const std::string how = b.tolerance ? fmt::format("within rel {} abs {}", b.tolerance->rel, b.tolerance->abs)
                                      : std::string("bit-exact");
  check.passed = check.mismatches == 0;
  if (check.passed) {
    check.message = fmt::format("buffer '{}': {} {} elements match {} ({})", b.name, b.count, elemName(b.type), how,
                                b.expect);
  } else {
    check.message = fmt::format("buffer '{}': {} of {} elements differ ({}); first at index {}: got {}, expected {}",
                                b.name, check.mismatches, b.count, how, first, formatElement(&got[first * size], b.type),
                                formatElement(&want[first * size], b.type));
  }
  return check;
}

void writeOutput(const BufferSpec& b, const std::vector<std::uint8_t>& data) {
  try {
    if (fs::path(b.output).extension() == ".npy") {
      writeNpy(b.output, npyDescr(b.type), b.count, data.data(), data.size());
      return;
    }
    OutputFile f(b.output);
    f.write(data.data(), data.size());
    f.close();
  } catch (const NpyError& e) {
    throw ConfigError(fmt::format("{}: error: buffer '{}': {}: {}", b.output_loc.str(), b.name, b.output, e.reason()));
  } catch (const OutputError& e) {
    throw OutputError(fmt::format("{}: error: buffer '{}': {}", b.output_loc.str(), b.name, e.what()));
  }
}

}  // namespace

LaunchOutcome runLaunch(const LaunchSpec& spec, driver::Runtime& rt) {
  LaunchOutcome outcome;
  driver::Module& module = rt.loadModuleFile(spec.ptx);  // ptx::ParseError carries file:line:col
  driver::Function* fn = nullptr;
  try {
    fn = &rt.getFunction(module, spec.kernel);
  } catch (const driver::RuntimeError& e) {
    throw ConfigError(fmt::format("{}: error: {}", spec.kernel_loc.str(), e.what()));
  }

  // Every buffer must fit in device memory together before any host memory is spent on contents.
  const std::uint64_t device_bytes = rt.properties().total_global_mem;
  std::uint64_t total = 0;
  for (const auto& b : spec.buffers) {
    total += b.bytes();  // each is at most 1 TiB (checked at parse), so the sum cannot wrap
    if (total > device_bytes)
      throw ConfigError(fmt::format("{}: error: buffer '{}' ({} bytes) brings the buffers to {} bytes, more than the "
                                    "device's memory.global_size_bytes = {} (raise it with --set "
                                    "memory.global_size_bytes=N)",
                                    b.loc.str(), b.name, b.bytes(), total, device_bytes));
  }

  std::vector<driver::DevicePtr> ptrs;
  for (const auto& b : spec.buffers) {
    try {
      ptrs.push_back(rt.malloc(b.bytes()));
    } catch (const driver::RuntimeError& e) {
      throw ConfigError(fmt::format("{}: error: buffer '{}' ({} bytes): {}", b.loc.str(), b.name, b.bytes(), e.what()));
    }
    if (b.init.kind == InitSpec::Kind::Zeros) {
      // No host copy of the zeros: the device fills them (sparsely: zero pages cost nothing).
      rt.memset(ptrs.back(), 0, b.bytes());
      continue;
    }
    const std::vector<std::uint8_t> host = initialContents(b);
    rt.memcpyHtoD(ptrs.back(), host.data(), host.size());
  }

  driver::KernelArgs args;
  std::vector<driver::DevicePtr> objects;  // texture and surface descriptors, freed at the end
  for (const auto& a : spec.args) {
    if (a.kind == ArgSpec::Kind::Buffer) {
      args.add<driver::DevicePtr>(ptrs[a.buffer]);
    } else if (a.kind == ArgSpec::Kind::TensorMap) {
      sm::TensorMap m = a.tensor_map;
      m.global_address = ptrs[a.buffer];
      std::uint8_t bytes[sm::kTensorMapBytes];
      sm::encodeTensorMap(m, bytes);
      args.addBytes(bytes, sizeof bytes);
    } else if (a.kind == ArgSpec::Kind::Texture) {  // the handle of a descriptor over the buffer
      sm::TextureDesc d = a.texture;
      d.base = ptrs[a.buffer];
      objects.push_back(driver::createTextureObject(rt, d));
      args.add<driver::DevicePtr>(objects.back());
    } else {
      args.addBytes(a.bytes.data(), a.bytes.size());
    }
  }

  driver::Error err = driver::Error::Success;
  // The warm-up launches one at a time, then in the timing mode the `repeat` timed ones back to back
  // (the runtime's warm repeats: each after the last, as fast as the host submits them; their
  // event_ns is what CUDA events around them measure).
  const bool back_to_back = rt.mode() == driver::Mode::Timing && spec.repeat > 1;
  const std::uint32_t calls = spec.warmup + (back_to_back ? 1 : spec.repeat);
  for (std::uint32_t i = 0; i < calls && err == driver::Error::Success; ++i) {
    const bool timed_batch = back_to_back && i == spec.warmup;
    if (timed_batch) rt.setWarmRepeats(spec.repeat - 1);
    try {
      err = rt.launch(*fn, spec.grid, spec.block, std::size_t(spec.dynamic_shared_bytes), args, spec.cluster);
    } catch (const driver::RuntimeError& e) {
      throw ConfigError(fmt::format("{}: error: launch of '{}': {}", spec.args_loc.str(), spec.kernel, e.what()));
    }
    if (timed_batch) rt.setWarmRepeats(0);
    outcome.printf_output += rt.takePrintfOutput();
  }
  outcome.error = err;
  if (err != driver::Error::Success && !isKernelFault(err) && !rt.lastFault()) {
    // The device refused the launch: that is the launch file's doing, so say where.
    rt.getLastError();
    if (err == driver::Error::InvalidValue)
      throw ConfigError(fmt::format("{}: error: launch of '{}' refused ({}): do the args match the kernel's "
                                    "parameters in number and size?",
                                    spec.args_loc.str(), spec.kernel, driver::errorName(err)));
    const std::string& why = rt.lastLaunchError();  // the device's reason, e.g. which limit the shape breaks
    throw ConfigError(fmt::format("{}: error: launch of '{}' with grid {}x{}x{}, block {}x{}x{} and {} bytes of "
                                  "dynamic shared memory refused ({}){}{}",
                                  spec.block_loc.str(), spec.kernel, spec.grid.x, spec.grid.y, spec.grid.z,
                                  spec.block.x, spec.block.y, spec.block.z, spec.dynamic_shared_bytes,
                                  driver::errorName(err), why.empty() ? "" : ": ", why));
  }
  if (err != driver::Error::Success) {
    outcome.passed = false;
    return outcome;  // a fault: the buffers are not worth writing or checking
  }

  for (std::size_t i = 0; i < spec.buffers.size(); ++i) {
    const BufferSpec& b = spec.buffers[i];
    if (b.output.empty() && b.expect.empty()) continue;
    std::vector<std::uint8_t> data(b.bytes());
    rt.memcpyDtoH(data.data(), ptrs[i], data.size());
    if (!b.output.empty()) {
      writeOutput(b, data);
      outcome.outputs_written.push_back(b.output);
    }
    if (!b.expect.empty()) {
      outcome.checks.push_back(compare(b, data));
      outcome.passed = outcome.passed && outcome.checks.back().passed;
    }
  }
  for (auto p : ptrs) rt.free(p);
  for (auto h : objects) driver::destroyTextureObject(rt, h);
  return outcome;
}

}  // namespace scgpu::cli
