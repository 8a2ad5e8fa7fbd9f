// FST back end over the FST writer that ships with Verilator (GTKWave's fstapi, built by
// fstapi.cpp). Timescale 1 ps; integers as wires with a "[msb:lsb]" range in the name, as
// Verilator declares them; strings as FST_VT_GEN_STRING variable-length values. The header's
// date is fixed so that the same trace gives the same bytes.
#include <stdexcept>
#include <vector>

#include <fstapi.h>

#include "tlm/trace/writer.h"

namespace scgpu::trace {
namespace {

class FstWriter final : public Writer {
 public:
  explicit FstWriter(const std::string& path) : path_(path) {
    ctx_ = fstWriterCreate(path.c_str(), /*use_compressed_hier=*/1);
    if (!ctx_) throw std::runtime_error("trace: cannot write " + path);
    fstWriterSetPackType(ctx_, FST_WR_PT_LZ4);
    fstWriterSetTimescale(ctx_, -12);
    fstWriterSetDate(ctx_, "-");
    fstWriterSetVersion(ctx_, "scgpu");
  }
  ~FstWriter() override {
    if (ctx_) fstWriterClose(ctx_);
  }

  void pushScope(const std::string& name) override {
    fstWriterSetScope(ctx_, FST_ST_VCD_MODULE, name.c_str(), nullptr);
  }
  void popScope() override { fstWriterSetUpscope(ctx_); }
  void declare(int handle, const std::string& leaf, Kind kind, int width) override {
    fstHandle h;
    if (kind == Kind::String) {
      h = fstWriterCreateVar(ctx_, FST_VT_GEN_STRING, FST_VD_IMPLICIT, 0, leaf.c_str(), 0);
    } else {
      const std::string name = width > 1 ? leaf + " [" + std::to_string(width - 1) + ":0]" : leaf;
      h = fstWriterCreateVar(ctx_, FST_VT_VCD_WIRE, FST_VD_IMPLICIT, std::uint32_t(width), name.c_str(), 0);
    }
    if (std::size_t(handle) >= handles_.size()) {
      handles_.resize(std::size_t(handle) + 1);
      widths_.resize(std::size_t(handle) + 1);
    }
    handles_[std::size_t(handle)] = h;
    widths_[std::size_t(handle)] = std::uint32_t(width);
  }
  void endDefinitions() override {}

  void time(std::uint64_t t) override { fstWriterEmitTimeChange(ctx_, t); }
  void value(int handle, std::uint64_t v) override {
    fstWriterEmitValueChange64(ctx_, handles_[std::size_t(handle)], widths_[std::size_t(handle)], v);
  }
  void text(int handle, std::string_view s) override {
    fstWriterEmitVariableLengthValueChange(ctx_, handles_[std::size_t(handle)], s.data(), std::uint32_t(s.size()));
  }

  void finish() override {
    const bool seek_failed = fstWriterGetFseekFailed(ctx_) != 0;
    fstWriterClose(ctx_);
    ctx_ = nullptr;
    if (seek_failed) throw std::runtime_error("trace: error writing " + path_);
  }

 private:
  std::string path_;
  void* ctx_ = nullptr;
  std::vector<fstHandle> handles_;
  std::vector<std::uint32_t> widths_;
};

}  // namespace

std::unique_ptr<Writer> makeFstWriter(const std::string& path) { return std::make_unique<FstWriter>(path); }

}  // namespace scgpu::trace
