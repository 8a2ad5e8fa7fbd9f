// Tracer: registration, the window, change recording, and the GTKWave save file.
#include "tlm/trace/tracer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "tlm/trace/writer.h"

namespace scgpu::trace {

// The scope tree of the registered (included) signals, children in order of first appearance.
struct Tracer::Scope {
  std::string name;
  std::vector<int> sigs;
  std::vector<std::unique_ptr<Scope>> kids;
  std::map<std::string, Scope*, std::less<>> kid_by_name;
  std::map<std::string, int, std::less<>> sig_by_name;
};

namespace {

bool endsWith(const std::string& s, const char* suffix) {
  const std::size_t n = std::char_traits<char>::length(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Splits "gpu.sm[3].sched[1].pc" into its components and checks each.
std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t b = 0;
  for (;;) {
    const std::size_t e = path.find('.', b);
    parts.push_back(path.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::string& c = parts[k];
    const bool leaf = k + 1 == parts.size();
    std::size_t i = 0;
    bool ok = !c.empty() && (std::isalpha(static_cast<unsigned char>(c[0])) || c[0] == '_');
    while (ok && i < c.size() && (std::isalnum(static_cast<unsigned char>(c[i])) || c[i] == '_')) ++i;
    if (ok && i < c.size()) {  // an index: "[digits]" closing the component, scopes only
      ok = !leaf && c[i] == '[' && c.back() == ']' && i + 2 < c.size();
      for (std::size_t j = i + 1; ok && j + 1 < c.size(); ++j) ok = std::isdigit(static_cast<unsigned char>(c[j]));
    }
    if (!ok) {
      throw std::invalid_argument("trace: bad signal path '" + path + "' (component '" + c + "'" +
                                  (leaf ? "; the signal's own name takes no index" : "") + ")");
    }
  }
  return parts;
}

// GTKWave trace flags (gtkwave3 src/analyzer.h, enum TraceEntFlagBits; see README.md).
constexpr unsigned long kHex = 0x2, kDec = 0x4, kBin = 0x8, kRjustify = 0x20, kBlank = 0x200,
                        kAscii = 0x800, kCollapsed = 0x1000, kAnalogStep = 0x8000,
                        kAnalogBlankStretch = 0x20000, kClosed = 0x400000, kGrpBegin = 0x800000,
                        kGrpEnd = 0x1000000;

std::string baseName(const std::string& scope) { return scope.substr(0, scope.find('[')); }

std::string fileName(const std::string& path) {
  const std::size_t s = path.rfind('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

}  // namespace

Tracer::Tracer(Options o) : opt_(std::move(o)), filter_(opt_.filters), root_(std::make_unique<Scope>()) {
  if (opt_.path.empty()) return;
  if (endsWith(opt_.path, ".vcd")) {
    writer_ = makeVcdWriter(opt_.path);
  } else if (endsWith(opt_.path, ".fst")) {
    writer_ = makeFstWriter(opt_.path);
  } else {
    throw std::invalid_argument("trace: '" + opt_.path + "' must end in .vcd or .fst");
  }
  enabled_ = true;
  if (opt_.window_start == 0 && opt_.window_end > 0) {
    window_ = Window::In;
    recording_ = true;
    dump_all_ = true;
  }
}

Tracer::~Tracer() {
  try {
    close();
  } catch (...) {
  }
}

std::string Tracer::gtkwPath() const {
  if (opt_.path.empty()) return {};
  return opt_.path.substr(0, opt_.path.size() - 4) + ".gtkw";
}

int Tracer::add(const std::string& path, Kind kind, int width_bits, Radix radix) {
  if (!enabled_) return -1;
  const std::vector<std::string> parts = splitPath(path);
  if (kind == Kind::Clock) {
    width_bits = 1;
  } else if (kind == Kind::String) {
    width_bits = 0;
  } else if (width_bits < 1 || width_bits > 64) {
    throw std::invalid_argument("trace: '" + path + "': width must be 1..64 bits");
  }
  if (kind != Kind::Clock && !filter_.matches(path)) return -1;
  if (header_written_) throw std::logic_error("trace: '" + path + "' added after recording began");

  Scope* s = root_.get();
  for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
    if (s->sig_by_name.count(parts[k])) throw std::invalid_argument("trace: '" + path + "': '" + parts[k] + "' is a signal");
    auto it = s->kid_by_name.find(parts[k]);
    if (it == s->kid_by_name.end()) {
      s->kids.push_back(std::make_unique<Scope>());
      s->kids.back()->name = parts[k];
      it = s->kid_by_name.emplace(parts[k], s->kids.back().get()).first;
    }
    s = it->second;
  }
  const std::string& leaf = parts.back();
  if (s->sig_by_name.count(leaf)) throw std::invalid_argument("trace: '" + path + "' registered twice");
  if (s->kid_by_name.count(leaf)) throw std::invalid_argument("trace: '" + path + "' is a scope");

  const int id = int(sigs_.size());
  Sig sig;
  sig.kind = kind;
  sig.radix = radix;
  sig.width = width_bits;
  sig.mask = width_bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width_bits) - 1;
  sig.path = path;
  sigs_.push_back(std::move(sig));
  s->sigs.push_back(id);
  s->sig_by_name.emplace(leaf, id);
  return id;
}

void Tracer::writeHeader() {
  int next = 0;
  auto walk = [&](auto&& self, Scope& s) -> void {
    for (int id : s.sigs) {
      Sig& sig = sigs_[std::size_t(id)];
      sig.handle = next++;
      writer_->declare(sig.handle, sig.path.substr(sig.path.rfind('.') + 1), sig.kind, sig.width);
    }
    for (auto& k : s.kids) {
      writer_->pushScope(k->name);
      self(self, *k);
      writer_->popScope();
    }
  };
  walk(walk, *root_);
  writer_->endDefinitions();
  header_written_ = true;
}

void Tracer::flush() {
  if (window_ != Window::In) return;
  if (!header_written_) writeHeader();
  if (dump_all_) {
    // The window opens: every signal's value now, in declaration order.
    dump_all_ = false;
    first_time_ = time_;
    writer_->time(time_);
    written_time_ = time_;
    writer_->beginDump();
    std::vector<int> order(sigs_.size());
    for (std::size_t i = 0; i < sigs_.size(); ++i) order[std::size_t(sigs_[i].handle)] = int(i);
    for (int id : order) {
      Sig& s = sigs_[std::size_t(id)];
      if (s.kind == Kind::String) {
        writer_->text(s.handle, s.str);
        s.written_str = s.str;
      } else {
        writer_->value(s.handle, s.cur);
        s.written = s.cur;
      }
      s.dirty = false;
    }
    writer_->endDump();
    dirty_.clear();
    return;
  }
  if (dirty_.empty()) return;
  std::sort(dirty_.begin(), dirty_.end());
  bool timed = false;
  for (int id : dirty_) {
    Sig& s = sigs_[std::size_t(id)];
    s.dirty = false;
    if (s.kind == Kind::String ? s.str == s.written_str : s.cur == s.written) continue;
    if (!timed) {
      writer_->time(time_);
      written_time_ = time_;
      timed = true;
    }
    if (s.kind == Kind::String) {
      writer_->text(s.handle, s.str);
      s.written_str = s.str;
    } else {
      writer_->value(s.handle, s.cur);
      s.written = s.cur;
    }
  }
  dirty_.clear();
}

void Tracer::advanceSlow(std::uint64_t time_ps, std::uint64_t core_cycle) {
  if (closed_ || !enabled_) return;
  if (time_ps < time_) {
    throw std::logic_error("trace: time went back from " + std::to_string(time_) + " to " +
                           std::to_string(time_ps) + " ps");
  }
  if (time_ps != time_) flush();
  time_ = time_ps;
  cycle_ = core_cycle;
  const bool in = core_cycle >= opt_.window_start && core_cycle < opt_.window_end;
  if (window_ == Window::Before && in) {
    window_ = Window::In;
    recording_ = true;
    dump_all_ = true;
  } else if (window_ == Window::Before && core_cycle >= opt_.window_end) {
    window_ = Window::After;
  } else if (window_ == Window::In && !in) {
    // The window closes: an end mark at this time, so the last values show up to it.
    if (!header_written_) writeHeader();
    if (!dump_all_) writer_->time(time_);
    window_ = Window::After;
    recording_ = false;
    dump_all_ = false;
    for (int id : dirty_) sigs_[std::size_t(id)].dirty = false;
    dirty_.clear();
  }
}

void Tracer::close() {
  if (closed_ || !enabled_) return;
  closed_ = true;
  flush();
  // An end mark at the last time, so that the last values show up to it.
  if (window_ == Window::In && time_ > written_time_) writer_->time(time_);
  if (!header_written_) writeHeader();
  recording_ = false;
  writer_->finish();
  writeGtkw();
}

void Tracer::writeGtkw() const {
  std::string g;
  g += "[*] scgpu waveform view: gtkwave " + fileName(gtkwPath()) + "\n";
  // Both names relative: GTKWave finds the trace beside the save file wherever the pair is.
  g += "[dumpfile] \"" + fileName(opt_.path) + "\"\n";
  g += "[savefile] \"" + fileName(gtkwPath()) + "\"\n";
  g += "[timestart] " + std::to_string(first_time_) + "\n";
  // Zoom: GTKWave shows 2^-zoom time units per pixel; about 100 core cycles across the ~530
  // pixels of wave area in GTKWave's default window (without it: 1 ps per pixel).
  const double period_ps = opt_.core_clock_mhz > 0 ? 1e6 / opt_.core_clock_mhz : 1000.0;
  char zoom[64];
  std::snprintf(zoom, sizeof zoom, "*%.6f -1", -std::log2(std::max(period_ps * 100.0 / 530.0, 1.0)));
  g += zoom;
  for (int i = 0; i < 26; ++i) g += " -1";  // the named markers, none set
  g += "\n[sst_expanded] 1\n";

  unsigned long flags = ~0ul;
  auto setFlags = [&](unsigned long f) {
    if (f != flags) {
      char b[32];
      std::snprintf(b, sizeof b, "@%lx\n", f);
      g += b;
      flags = f;
    }
  };
  auto signal = [&](const Sig& s) {
    unsigned long f = kRjustify;
    if (s.kind == Kind::String) {
      f |= kAscii;
    } else {
      switch (s.radix) {
        case Radix::Hex: f |= kHex; break;
        case Radix::Bin: f |= kBin; break;
        case Radix::Dec: f |= kDec; break;
        case Radix::Auto: f |= s.width == 1 ? kBin : kDec; break;
      }
    }
    if (s.kind == Kind::Analog) f |= kAnalogStep;
    setFlags(f);
    g += s.path;
    if (s.kind != Kind::String && s.width > 1) g += "[" + std::to_string(s.width - 1) + ":0]";
    g += "\n";
    if (s.kind == Kind::Analog) {  // one blank row below: the curve is two rows tall
      setFlags(kAnalogBlankStretch);
      g += "-\n";
    }
  };
  auto signals = [&](const Scope& sc) {
    for (int id : sc.sigs) {
      if (sigs_[std::size_t(id)].kind != Kind::Clock) signal(sigs_[std::size_t(id)]);
    }
  };

  // Clocks first, then the signals at the root of each top component, then one group per block
  // below it (gigathread, sm[i] with its schedulers, xbar, l2[i], dram[i]), nested as the scopes
  // are. Open: the first block of each kind (sm[0], l2[0], ...) and everything in it.
  for (const Sig& s : sigs_) {
    if (s.kind == Kind::Clock) signal(s);
  }
  auto group = [&](auto&& self, const Scope& sc, bool open) -> void {
    setFlags(kBlank | kGrpBegin | (open ? 0 : kClosed));
    g += "-" + sc.name + "\n";
    signals(sc);
    for (const auto& k : sc.kids) self(self, *k, open);
    setFlags(kBlank | kGrpEnd | (open ? 0 : kClosed | kCollapsed));
    g += "-" + sc.name + "\n";
  };
  signals(*root_);  // signals outside any scope
  for (const auto& top : root_->kids) {
    signals(*top);
    std::map<std::string, int> seen;
    for (const auto& k : top->kids) group(group, *k, seen[baseName(k->name)]++ == 0);
  }

  const std::string path = gtkwPath();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("trace: cannot write " + path);
  const bool ok = std::fwrite(g.data(), 1, g.size(), f) == g.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("trace: error writing " + path);
}

}  // namespace scgpu::trace
