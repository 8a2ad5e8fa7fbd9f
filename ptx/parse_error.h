// Errors in PTX text: where (file:line:col), the token found, and what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace scgpu::ptx {

class ParseError : public std::runtime_error {
 public:
  ParseError(std::string file, unsigned line, unsigned col, std::string found, std::string expected)
      : std::runtime_error(format(file, line, col, found, expected)),
        file_(std::move(file)), line_(line), col_(col), found_(std::move(found)),
        expected_(std::move(expected)) {}
  // Errors that are not about one expected token ("unsupported instruction 'mma'").
  ParseError(std::string file, unsigned line, unsigned col, std::string message)
      : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " +
                           message),
        file_(std::move(file)), line_(line), col_(col) {}

  const std::string& file() const { return file_; }
  unsigned line() const { return line_; }
  unsigned col() const { return col_; }
  const std::string& found() const { return found_; }
  const std::string& expected() const { return expected_; }
  // Malformed text of an instruction the core may not implement (a wrong operand count, say): a
  // load error, not a kernel refused at launch (decoder.cpp, per-kernel acceptance).
  bool malformed() const { return malformed_; }
  void markMalformed() { malformed_ = true; }

 private:
  static std::string format(const std::string& file, unsigned line, unsigned col,
                            const std::string& found, const std::string& expected) {
    return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: expected " +
           expected + ", found '" + found + "'";
  }
  std::string file_;
  unsigned line_, col_;
  std::string found_, expected_;
  bool malformed_ = false;
};

}  // namespace scgpu::ptx
