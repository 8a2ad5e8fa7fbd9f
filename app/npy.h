// Reading and writing NumPy .npy files (format versions 1.0 to 3.0 read, 1.0 written), so that
// launch-file buffers can be filled from and compared against arrays prepared with NumPy, and
// kernel outputs can be opened with numpy.load(). Only little-endian, C-order data is handled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace scgpu::cli {

// what() is "path: error: reason"; reason() alone lets a caller put its own location in front.
class NpyError : public std::runtime_error {
 public:
  NpyError(const std::string& path, const std::string& reason)
      : std::runtime_error(path + ": error: " + reason), reason_(reason) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

struct NpyHeader {
  std::string descr;                 // e.g. "<f4", "|u1"
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;  // () for a scalar
  std::uint64_t data_offset = 0;     // bytes before the data: magic, version, length, dict
  std::uint64_t count() const;       // product of the shape (1 for a scalar)
};

// The complete v1.0 header (magic through the terminating '\n'), padded so that the data starts
// at a multiple of 64 bytes as numpy does.
std::string npyHeaderV1(const std::string& descr, const std::vector<std::uint64_t>& shape);

// Writes a one-dimensional array of `count` elements. Throws NpyError when the file can't be written.
void writeNpy(const std::string& path, const std::string& descr, std::uint64_t count, const void* data,
              std::size_t bytes);

// Parses the header only (cheap: validates a file before a run). Throws NpyError on a malformed file.
NpyHeader readNpyHeader(const std::string& path);

// Reads the data bytes of a file whose header was read before (size checked against the file).
std::vector<std::uint8_t> readNpyData(const std::string& path, const NpyHeader& header,
                                      std::size_t element_size);

// Size in bytes of an element of a descr ("<f4" -> 4); 0 when the descr is not a plain number type.
std::size_t npyElementSize(const std::string& descr);

}  // namespace scgpu::cli
