#include "app/npy.h"

#include "base/input_file.h"
#include "base/output_file.h"

#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

namespace scgpu::cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

// A tiny reader for the Python dict literal of the header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (16,), }
class DictReader {
 public:
  DictReader(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skipSpace();
      if (peek() == '}') { ++i_; break; }
      std::string key = string();
      expect(':');
      if (key == "descr") {
        h.descr = string();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        fail(fmt::format("unexpected key '{}' in the header", key));
      }
      skipSpace();
      if (peek() == ',') { ++i_; continue; }
      expect('}');
      break;
    }
    if (!have_descr || !have_order || !have_shape)
      fail("header lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw NpyError(path_, "malformed .npy header: " + what);
  }
  void skipSpace() { while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_; }
  char peek() { skipSpace(); return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(fmt::format("expected '{}' at offset {}", c, i_));
    ++i_;
  }
  std::string string() {
    char q = peek();
    if (q != '\'' && q != '"') fail(fmt::format("expected a quoted string at offset {}", i_));
    auto end = s_.find(q, ++i_);
    if (end == std::string::npos) fail("unterminated string");
    std::string out = s_.substr(i_, end - i_);
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    skipSpace();
    if (s_.compare(i_, 4, "True") == 0) { i_ += 4; return true; }
    if (s_.compare(i_, 5, "False") == 0) { i_ += 5; return false; }
    fail("expected True or False");
  }
  std::vector<std::uint64_t> tuple() {
    std::vector<std::uint64_t> dims;
    expect('(');
    while (true) {
      char c = peek();
      if (c == ')') { ++i_; break; }
      if (!std::isdigit(static_cast<unsigned char>(c))) fail("expected a dimension in the shape");
      std::uint64_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (v > (UINT64_MAX - 9) / 10) fail("dimension too large");
        v = v * 10 + std::uint64_t(s_[i_++] - '0');
      }
      if (peek() == 'L') ++i_;  // Python 2 long suffix
      dims.push_back(v);
      if (peek() == ',') { ++i_; continue; }
      expect(')');
      break;
    }
    return dims;
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t i_ = 0;
};

std::string shapeText(const std::vector<std::uint64_t>& shape) {
  // Python tuple syntax: (), (16,), (4, 4).
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + ")";
}

}  // namespace

std::uint64_t NpyHeader::count() const {
  // Saturates, so that a hostile shape can't wrap around to a small size.
  std::uint64_t n = 1;
  for (auto d : shape) {
    if (d != 0 && n > UINT64_MAX / d) return UINT64_MAX;
    n *= d;
  }
  return n;
}

std::size_t npyElementSize(const std::string& descr) {
  if (descr.size() < 3) return 0;
  const char order = descr[0], kind = descr[1];
  if (order != '<' && order != '|' && order != '=') return 0;
  if (kind != 'u' && kind != 'i' && kind != 'f') return 0;
  const std::string digits = descr.substr(2);
  if (digits == "1") return 1;
  if (digits == "2") return 2;
  if (digits == "4") return 4;
  if (digits == "8") return 8;
  return 0;
}

std::string npyHeaderV1(const std::string& descr, const std::vector<std::uint64_t>& shape) {
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shapeText(shape));
  // magic(6) + version(2) + header length(2) + dict + '\n', padded with spaces to a multiple of 64.
  const std::size_t prefix = kMagicSize + 2 + 2;
  std::size_t total = prefix + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  const std::size_t header_len = dict.size();
  if (header_len > 0xffff) throw NpyError("<npy>", "header too long for format version 1.0");
  std::string out(kMagic, kMagicSize);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header_len & 0xff));
  out.push_back(static_cast<char>(header_len >> 8));
  return out + dict;
}

void writeNpy(const std::string& path, const std::string& descr, std::uint64_t count, const void* data,
              std::size_t bytes) {
  const std::string header = npyHeaderV1(descr, {count});
  OutputFile f(path);  // throws OutputError naming the file; close() sees a full disk
  f.write(header);
  f.write(data, bytes);
  f.close();
}

NpyHeader readNpyHeader(const std::string& path) {
  // A FIFO would block the open and a device never ends: regular files only. The data may be as
  // large as device memory, so the input-size limit does not apply (the buffer's size bounds it).
  try {
    checkInputFile(path, ".npy file", std::numeric_limits<std::uint64_t>::max());
  } catch (const InputError& e) {
    const std::string what = e.what();
    const auto at = what.find(": error: ");
    throw NpyError(path, at == std::string::npos ? what : what.substr(at + 9));
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) throw NpyError(path, "cannot open");
  char pre[kMagicSize + 2] = {};
  f.read(pre, sizeof pre);
  if (f.gcount() != std::streamsize(sizeof pre) || std::memcmp(pre, kMagic, kMagicSize) != 0)
    throw NpyError(path, "not a .npy file (bad magic)");
  const unsigned major = static_cast<unsigned char>(pre[6]);
  // v1.0 has a 2-byte header length; v2.0 and v3.0 (utf-8 dict) have a 4-byte one.
  std::size_t len_size = major == 1 ? 2 : (major == 2 || major == 3) ? 4 : 0;
  if (len_size == 0) throw NpyError(path, fmt::format("unsupported .npy version {}", major));
  unsigned char len_bytes[4] = {};
  f.read(reinterpret_cast<char*>(len_bytes), std::streamsize(len_size));
  if (f.gcount() != std::streamsize(len_size)) throw NpyError(path, "truncated .npy header");
  std::uint64_t header_len = 0;
  for (std::size_t i = 0; i < len_size; ++i) header_len |= std::uint64_t(len_bytes[i]) << (8 * i);
  if (header_len > (1u << 20)) throw NpyError(path, ".npy header too long");
  std::string dict(header_len, '\0');
  f.read(dict.data(), std::streamsize(header_len));
  if (std::uint64_t(f.gcount()) != header_len) throw NpyError(path, "truncated .npy header");
  NpyHeader h = DictReader(dict, path).parse();
  h.data_offset = kMagicSize + 2 + len_size + header_len;
  if (!h.descr.empty() && h.descr[0] == '>')
    throw NpyError(path, fmt::format("big-endian data ('{}') is not supported", h.descr));
  if (h.fortran_order && h.shape.size() > 1)
    throw NpyError(path, "Fortran-order arrays are not supported; save with C order");
  return h;
}

std::vector<std::uint8_t> readNpyData(const std::string& path, const NpyHeader& header,
                                      std::size_t element_size) {
  const std::uint64_t count = header.count();
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size < header.data_offset || (size - header.data_offset) / element_size < count)
    throw NpyError(path, "file holds less data than its header's shape says");
  std::ifstream f(path, std::ios::binary);
  f.seekg(std::streamoff(header.data_offset));
  const std::uint64_t bytes = count * element_size;
  std::vector<std::uint8_t> data(bytes);
  f.read(reinterpret_cast<char*>(data.data()), std::streamsize(bytes));
  if (!f) throw NpyError(path, "read failed");
  return data;
}

}  // namespace scgpu::cli
