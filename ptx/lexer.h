// Tokens of PTX text. The lexer works on demand (one token per next() call), so that the parser
// reports the first error in file order: a syntax error on line 3 is found before a stray
// character on line 900.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ptx/limits.h"
#include "ptx/parse_error.h"

namespace scgpu::ptx {

enum class TokenKind : std::uint8_t {
  End,         // end of input (returned again on every later call)
  Identifier,  // ld, %r1, %tid.x, $L__BB0_2, _Z3fooi, _ (the sink)
  Directive,   // .global, .f32, .v4, .2d, .L2::128B, .shared::cluster (text keeps the dot)
  Integer,     // 42, 0x1F, 017, 0b101, 7U
  Float,       // 0f3F800000, 0d3FF0000000000000, 1.5, 1e-3
  String,      // "..." (text keeps the quotes and escapes as written)
  Punct,       // one of , ; : [ ] { } ( ) < > + - @ ! | =
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;          // exactly as written; views the text given to the Lexer
  std::uint32_t line = 0, col = 0;
  // Integer: the literal's 64 bits; Float: the raw bits (32 bits for 0f, else 64).
  std::uint64_t bits = 0;
  double float_value = 0;         // Float: the value
  bool is_unsigned = false;       // Integer: written with a U suffix
  bool float_is_single = false;   // Float: written 0fXXXXXXXX

  bool isPunct(char c) const { return kind == TokenKind::Punct && text[0] == c; }
  bool isDirective(std::string_view d) const { return kind == TokenKind::Directive && text == d; }
};

// How a token reads in an error message ("end of file" at the end, else its text, shortened).
std::string describe(const Token& t);

class Lexer {
 public:
  // `text` must outlive the lexer and every token it returns. An identifier, directive or
  // modifier longer than `max_identifier_chars` (Limits::identifier_chars; the dot of a directive
  // not counted) is an error.
  Lexer(std::string_view text, std::string source_name, std::uint64_t max_identifier_chars = Limits{}.identifier_chars);

  // The next token; throws ParseError for text that is not a PTX token (a stray character, an
  // unterminated string or comment, a malformed number, an identifier beyond the limit).
  Token next();

  const std::string& sourceName() const { return source_name_; }

 private:
  [[noreturn]] void fail(std::uint32_t line, std::uint32_t col, std::string found,
                         std::string expected) const;
  void skipSpaceAndComments();
  Token lexNumber(std::size_t start, std::uint32_t col);
  void checkIdentifierLength(const Token& t, std::size_t chars) const;

  std::string_view text_;
  std::string source_name_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::size_t line_start_ = 0;
  std::uint64_t max_identifier_chars_;  // offset of the current line's first character (for columns)
};

}  // namespace scgpu::ptx
