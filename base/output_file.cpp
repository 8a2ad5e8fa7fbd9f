#include "base/output_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace scgpu {

OutputFile::OutputFile(const std::string& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "wb");
  if (!f_) throw OutputError(fmt::format("{}: error: cannot open for writing: {}", path, std::strerror(errno)));
}

OutputFile::~OutputFile() {
  if (f_) std::fclose(f_);
}

void OutputFile::write(const void* data, std::size_t bytes) {
  if (failed_ || bytes == 0) return;
  if (std::fwrite(data, 1, bytes, f_) != bytes) {
    failed_ = true;
    errno_ = errno;
  }
}

void OutputFile::close() {
  if (!f_) return;
  if (!failed_ && std::fflush(f_) != 0) {
    failed_ = true;
    errno_ = errno;
  }
  const int rc = std::fclose(f_);
  f_ = nullptr;
  if (!failed_ && rc != 0) {
    failed_ = true;
    errno_ = errno;
  }
  if (failed_)
    throw OutputError(fmt::format("{}: error: write failed: {}", path_, errno_ ? std::strerror(errno_) : "I/O error"));
}

void writeOutputFile(const std::string& path, std::string_view contents) {
  OutputFile f(path);
  f.write(contents);
  f.close();
}

}  // namespace scgpu
