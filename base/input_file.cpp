#include "base/input_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace scgpu {
namespace fs = std::filesystem;

std::uint64_t checkInputFile(const std::string& path, const std::string& what, std::uint64_t max_bytes) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st))
    throw InputError(fmt::format("{}: error: cannot read {}: {}", path, what,
                                 ec ? ec.message() : std::string("no such file")));
  if (!fs::is_regular_file(st))
    throw InputError(fmt::format("{}: error: cannot read {}: not a regular file (a {})", path, what,
                                 fs::is_directory(st) ? "directory" : "device, FIFO or socket"));
  const std::uint64_t size = fs::file_size(path, ec);
  if (ec) throw InputError(fmt::format("{}: error: cannot read {}: {}", path, what, ec.message()));
  const std::uint64_t limit = max_bytes ? max_bytes : inputLimits().input_file_bytes;
  if (size > limit)
    throw LimitError(inputLimitMessage(path, "the " + what + "'s size in bytes", size, "input_file_bytes", limit));
  return size;
}

std::string readInputFile(const std::string& path, const std::string& what) {
  const std::uint64_t size = checkInputFile(path, what);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(fmt::format("{}: error: cannot read {}: {}", path, what, std::strerror(errno)));
  // Read at most the checked size plus one byte: a file that grows while it is read is still bounded.
  std::string text(size + 1, '\0');
  const std::size_t got = std::fread(text.data(), 1, text.size(), f);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(fmt::format("{}: error: cannot read {}: read error", path, what));
  if (got > size)
    throw InputError(fmt::format("{}: error: cannot read {}: it grew while being read", path, what));
  text.resize(got);
  return text;
}

}  // namespace scgpu
