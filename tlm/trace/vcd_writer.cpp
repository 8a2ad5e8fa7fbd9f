// VCD back end: plain text, `$timescale 1ps`, strings as GTKWave's `$var string` extension
// ("s<escaped text> <id>"), integers as binary vectors without leading zeros.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "tlm/trace/writer.h"

namespace scgpu::trace {

std::string vcdId(int handle) {
  std::string id;
  for (unsigned v = unsigned(handle) + 1; v; v /= 94) {
    --v;
    id.push_back(char('!' + v % 94));
  }
  return id;
}

void vcdEscape(std::string& out, std::string_view s) {
  for (unsigned char c : s) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\'': out += "\\'"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '?': out += "\\?"; break;
      default:
        if (c > ' ' && c <= '~') {
          out.push_back(char(c));
        } else {
          out.push_back('\\');
          out.push_back(char('0' + c / 64));
          out.push_back(char('0' + (c / 8) % 8));
          out.push_back(char('0' + c % 8));
        }
    }
  }
}

namespace {

class VcdWriter final : public Writer {
 public:
  explicit VcdWriter(const std::string& path) : path_(path) {
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_) throw std::runtime_error("trace: cannot write " + path + ": " + std::strerror(errno));
    buf_.reserve(kFlushAt + 4096);
    buf_ += "$version scgpu $end\n$timescale 1ps $end\n";
  }
  ~VcdWriter() override {
    if (f_) std::fclose(f_);
  }

  void pushScope(const std::string& name) override { buf_ += "$scope module " + name + " $end\n"; }
  void popScope() override { buf_ += "$upscope $end\n"; }
  void declare(int handle, const std::string& leaf, Kind kind, int width) override {
    if (std::size_t(handle) >= ids_.size()) ids_.resize(std::size_t(handle) + 1);
    ids_[std::size_t(handle)] = vcdId(handle);
    if (kind == Kind::String) {
      buf_ += "$var string 0 " + ids_[std::size_t(handle)] + " " + leaf + " $end\n";
    } else {
      buf_ += "$var wire " + std::to_string(width) + " " + ids_[std::size_t(handle)] + " " + leaf;
      if (width > 1) buf_ += " [" + std::to_string(width - 1) + ":0]";
      buf_ += " $end\n";
    }
    if (std::size_t(handle) >= widths_.size()) widths_.resize(std::size_t(handle) + 1);
    widths_[std::size_t(handle)] = width;
  }
  void endDefinitions() override { buf_ += "$enddefinitions $end\n"; }

  void time(std::uint64_t t) override {
    buf_.push_back('#');
    buf_ += std::to_string(t);
    buf_.push_back('\n');
    maybeFlush();
  }
  void beginDump() override { buf_ += "$dumpvars\n"; }
  void endDump() override { buf_ += "$end\n"; }

  void value(int handle, std::uint64_t v) override {
    const std::size_t h = std::size_t(handle);
    if (widths_[h] == 1) {
      buf_.push_back(v ? '1' : '0');
    } else {
      char bits[65];
      int n = 0;
      do {
        bits[n++] = char('0' + (v & 1));
        v >>= 1;
      } while (v);
      buf_.push_back('b');
      while (n) buf_.push_back(bits[--n]);
      buf_.push_back(' ');
    }
    buf_ += ids_[h];
    buf_.push_back('\n');
    maybeFlush();
  }
  void text(int handle, std::string_view s) override {
    buf_.push_back('s');
    vcdEscape(buf_, s);
    buf_.push_back(' ');
    buf_ += ids_[std::size_t(handle)];
    buf_.push_back('\n');
    maybeFlush();
  }

  void finish() override {
    flushBuf();
    const bool bad = std::ferror(f_) != 0;
    const bool close_failed = std::fclose(f_) != 0;
    f_ = nullptr;
    if (bad || close_failed) throw std::runtime_error("trace: error writing " + path_);
  }

 private:
  static constexpr std::size_t kFlushAt = std::size_t(1) << 20;
  void maybeFlush() {
    if (buf_.size() >= kFlushAt) flushBuf();
  }
  void flushBuf() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      throw std::runtime_error("trace: error writing " + path_ + ": " + std::strerror(errno));
    }
    buf_.clear();
  }

  std::string path_;
  std::FILE* f_ = nullptr;
  std::string buf_;
  std::vector<std::string> ids_;
  std::vector<int> widths_;
};

}  // namespace

std::unique_ptr<Writer> makeVcdWriter(const std::string& path) { return std::make_unique<VcdWriter>(path); }

}  // namespace scgpu::trace
