// Writing an output file so that every failure is seen: a full disk (or /dev/full) often fails
// only when buffered data is flushed or the file is closed, so close() checks both and throws.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

#include "base/errors.h"

namespace scgpu {

class OutputFile {
 public:
  // Opens (truncates) `path`; throws OutputError "PATH: error: cannot open for writing: REASON".
  explicit OutputFile(const std::string& path);
  ~OutputFile();  // closes without checking if close() was not called (an exception is in flight)
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Flushes and closes; throws OutputError "PATH: error: write failed: REASON".
  void close();

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  bool failed_ = false;
  int errno_ = 0;
};

// The whole file at once.
void writeOutputFile(const std::string& path, std::string_view contents);

}  // namespace scgpu
