#include "ptx/lexer.h"

#include <array>
#include <charconv>
#include <cstring>

namespace scgpu::ptx {
namespace {

// Character classes by table: the lexer looks at every byte of the file, so this is its hot path.
constexpr std::uint8_t kIdentChar = 1;   // [A-Za-z0-9_$]
constexpr std::uint8_t kIdentStart = 2;  // [A-Za-z_$%]
constexpr std::uint8_t kDigit = 4;
constexpr std::uint8_t kHex = 8;
constexpr std::uint8_t kSpace = 16;
constexpr std::uint8_t kPunct = 32;

constexpr std::array<std::uint8_t, 256> makeClasses() {
  std::array<std::uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kIdentChar | kIdentStart;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kIdentChar | kIdentStart;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kIdentChar | kDigit | kHex;
  for (int c = 'a'; c <= 'f'; ++c) t[c] |= kHex;
  for (int c = 'A'; c <= 'F'; ++c) t[c] |= kHex;
  t['_'] |= kIdentChar | kIdentStart;
  t['$'] |= kIdentChar | kIdentStart;
  t['%'] |= kIdentStart;
  t[' '] = t['\t'] = t['\r'] = t['\n'] = t['\v'] = t['\f'] = kSpace;
  for (char c : {',', ';', ':', '[', ']', '{', '}', '(', ')', '<', '>', '+', '-', '@', '!', '|', '='})
    t[static_cast<unsigned char>(c)] |= kPunct;
  return t;
}
constexpr std::array<std::uint8_t, 256> kClass = makeClasses();

inline bool is(char c, std::uint8_t cls) { return (kClass[static_cast<unsigned char>(c)] & cls) != 0; }
inline unsigned hexValue(char c) {
  return c <= '9' ? unsigned(c - '0') : unsigned((c | 0x20) - 'a' + 10);
}

// A character as it should appear in a message: itself when printable, else \xNN.
std::string printable(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  static const char* hex = "0123456789ABCDEF";
  return std::string("\\x") + hex[u >> 4] + hex[u & 15];
}

std::string shorten(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out;
  for (char c : s.substr(0, kMax)) out += printable(c);
  if (s.size() > kMax) out += "...";
  return out;
}

}  // namespace

std::string describe(const Token& t) {
  if (t.kind == TokenKind::End) return "end of file";
  return shorten(t.text);
}

Lexer::Lexer(std::string_view text, std::string source_name, std::uint64_t max_identifier_chars)
    : text_(text), source_name_(std::move(source_name)), max_identifier_chars_(max_identifier_chars) {}

void Lexer::checkIdentifierLength(const Token& t, std::size_t chars) const {
  if (chars > max_identifier_chars_)
    throw ParseError(source_name_, t.line, t.col,
                     limitText("the length of identifier '" + shorten(t.text) + "'", chars, "ptx_identifier_chars",
                               max_identifier_chars_));
}

void Lexer::fail(std::uint32_t line, std::uint32_t col, std::string found, std::string expected) const {
  throw ParseError(source_name_, line, col, std::move(found), std::move(expected));
}

void Lexer::skipSpaceAndComments() {
  const char* s = text_.data();
  const std::size_t n = text_.size();
  while (pos_ < n) {
    char c = s[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    } else if (is(c, kSpace)) {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < n && s[pos_ + 1] == '/') {
      const void* nl = std::memchr(s + pos_, '\n', n - pos_);
      pos_ = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - s) : n;
    } else if (c == '/' && pos_ + 1 < n && s[pos_ + 1] == '*') {
      const std::uint32_t line = line_, col = static_cast<std::uint32_t>(pos_ - line_start_ + 1);
      pos_ += 2;
      for (;;) {
        if (pos_ + 1 >= n) {
          pos_ = n;
          fail(line, col, "/*", "'*/' to close the comment before the end of file");
        }
        if (s[pos_] == '*' && s[pos_ + 1] == '/') {
          pos_ += 2;
          break;
        }
        if (s[pos_] == '\n') {
          ++line_;
          line_start_ = pos_ + 1;
        }
        ++pos_;
      }
    } else {
      return;
    }
  }
}

Token Lexer::next() {
  skipSpaceAndComments();
  const char* s = text_.data();
  const std::size_t n = text_.size();
  Token t;
  t.line = line_;
  t.col = static_cast<std::uint32_t>(pos_ - line_start_ + 1);
  if (pos_ >= n) {
    t.kind = TokenKind::End;
    return t;
  }
  const std::size_t start = pos_;
  const char c = s[pos_];

  if (is(c, kIdentStart)) {
    std::size_t p = pos_ + 1;
    while (p < n && is(s[p], kIdentChar)) ++p;
    if (c == '%' && p == pos_ + 1) fail(t.line, t.col, "%", "a register name after '%'");
    // %tid.x, %ctaid.y, %v1.w: the component belongs to the register name. Modifiers never
    // follow a %-name, so this is unambiguous.
    if (c == '%' && p + 1 < n && s[p] == '.' && std::strchr("xyzwrgba", s[p + 1]) != nullptr &&
        s[p + 1] != '\0' && (p + 2 >= n || !is(s[p + 2], kIdentChar)))
      p += 2;
    t.kind = TokenKind::Identifier;
    t.text = text_.substr(start, p - start);
    checkIdentifierLength(t, p - start);
    pos_ = p;
    return t;
  }
  if (c == '.') {
    std::size_t p = pos_ + 1;
    if (p >= n || !is(s[p], kIdentChar)) fail(t.line, t.col, ".", "a directive or modifier name after '.'");
    while (p < n && is(s[p], kIdentChar)) ++p;
    // Qualified modifiers keep their '::' parts: .L2::128B, .shared::cluster, .mbarrier::complete_tx::bytes
    while (p + 2 < n && s[p] == ':' && s[p + 1] == ':' && is(s[p + 2], kIdentChar)) {
      p += 2;
      while (p < n && is(s[p], kIdentChar)) ++p;
    }
    t.kind = TokenKind::Directive;
    t.text = text_.substr(start, p - start);
    checkIdentifierLength(t, p - start - 1);
    pos_ = p;
    return t;
  }
  if (is(c, kDigit)) return lexNumber(start, t.col);
  if (c == '"') {
    std::size_t p = pos_ + 1;
    for (;;) {
      if (p >= n || s[p] == '\n') {
        fail(t.line, t.col, shorten(text_.substr(start, p - start)),
             "a closing '\"' before the end of the line");
      }
      if (s[p] == '\\' && p + 1 < n && s[p + 1] != '\n') {
        p += 2;
        continue;
      }
      if (s[p] == '"') break;
      ++p;
    }
    t.kind = TokenKind::String;
    t.text = text_.substr(start, p + 1 - start);
    pos_ = p + 1;
    return t;
  }
  if (is(c, kPunct)) {
    t.kind = TokenKind::Punct;
    t.text = text_.substr(start, 1);
    ++pos_;
    return t;
  }
  fail(t.line, t.col, printable(c), "a PTX token");
}

Token Lexer::lexNumber(std::size_t start, std::uint32_t col) {
  const char* s = text_.data();
  const std::size_t n = text_.size();
  auto at = [&](std::size_t i) -> char { return i < n ? s[i] : '\0'; };
  Token t;
  t.line = line_;
  t.col = col;
  std::size_t p = start;
  // The whole run of identifier characters, for messages about a malformed number.
  auto badNumber = [&](const char* expected) {
    std::size_t e = start;
    while (e < n && (is(s[e], kIdentChar) || s[e] == '.')) ++e;
    fail(t.line, t.col, shorten(text_.substr(start, e - start)), expected);
  };
  // Accumulates digits of one radix into 64 bits, refusing overflow.
  auto digits = [&](unsigned radix, unsigned shift) {
    std::uint64_t v = 0;
    std::size_t first = p;
    for (;; ++p) {
      char d = at(p);
      unsigned dv;
      if (radix == 16 ? is(d, kHex) : (d >= '0' && d < char('0' + radix))) dv = hexValue(d);
      else break;
      if (shift ? (v >> (64 - shift)) != 0 : v > (UINT64_MAX - dv) / 10)
        badNumber("an integer that fits in 64 bits");
      v = shift ? (v << shift) | dv : v * 10 + dv;
    }
    if (p == first) badNumber("digits in the number");
    return v;
  };

  const char c1 = at(p + 1);
  if (s[p] == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
    // 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX are IEEE bit patterns, always exactly 8 / 16 hex digits.
    const bool single = (c1 == 'f' || c1 == 'F');
    const std::size_t want = single ? 8 : 16;
    p += 2;
    std::uint64_t v = 0;
    std::size_t k = 0;
    while (k < want && is(at(p), kHex)) {
      v = (v << 4) | hexValue(at(p));
      ++p;
      ++k;
    }
    if (k != want || is(at(p), kIdentChar))
      badNumber(single ? "0f followed by exactly 8 hex digits" : "0d followed by exactly 16 hex digits");
    t.kind = TokenKind::Float;
    t.bits = v;
    t.float_is_single = single;
    if (single) {
      std::uint32_t b = static_cast<std::uint32_t>(v);
      float f;
      std::memcpy(&f, &b, 4);
      t.float_value = f;
    } else {
      std::memcpy(&t.float_value, &v, 8);
    }
  } else if (s[p] == '0' && (c1 == 'x' || c1 == 'X')) {
    p += 2;
    t.kind = TokenKind::Integer;
    t.bits = digits(16, 4);
  } else if (s[p] == '0' && (c1 == 'b' || c1 == 'B')) {
    p += 2;
    t.kind = TokenKind::Integer;
    t.bits = digits(2, 1);
  } else {
    std::size_t q = p;
    while (is(at(q), kDigit)) ++q;
    const bool has_fraction = at(q) == '.' && is(at(q + 1), kDigit);
    std::size_t e = has_fraction ? q + 1 : q;
    while (has_fraction && is(at(e), kDigit)) ++e;
    const bool has_exponent = (at(e) == 'e' || at(e) == 'E') &&
                              (is(at(e + 1), kDigit) || ((at(e + 1) == '+' || at(e + 1) == '-') && is(at(e + 2), kDigit)));
    if (has_fraction || has_exponent) {
      if (has_exponent) {
        e += 2;
        while (is(at(e), kDigit)) ++e;
      }
      double v = 0;
      auto r = std::from_chars(s + p, s + e, v);
      if (r.ec != std::errc() || r.ptr != s + e) badNumber("a floating-point number in range");
      p = e;
      t.kind = TokenKind::Float;
      t.float_value = v;
      std::memcpy(&t.bits, &v, 8);
    } else if (s[p] == '0' && q > p + 1) {
      ++p;  // octal: 017
      for (std::size_t i = p; i < q; ++i)
        if (s[i] > '7') badNumber("octal digits (0-7) after a leading 0");
      t.kind = TokenKind::Integer;
      t.bits = digits(8, 3);
    } else {
      t.kind = TokenKind::Integer;
      t.bits = digits(10, 0);
    }
  }
  if (t.kind == TokenKind::Integer && (at(p) == 'U' || at(p) == 'u')) {
    t.is_unsigned = true;
    ++p;
  }
  if (is(at(p), kIdentChar)) badNumber("a number followed by a separator");
  t.text = text_.substr(start, p - start);
  pos_ = p;
  return t;
}

}  // namespace scgpu::ptx
