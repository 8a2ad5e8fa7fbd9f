// rtl-verif, for the RTL testbenches: what a co-simulation divergence's waveform holds.
#pragma once

#include <fstapi.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace scgpu::testing {

// The signals of an FST file, as "scope.scope.name" (without their range), with their handles.
inline std::map<std::string, fstHandle> fstSignalHandles(const std::string& path) {
  std::map<std::string, fstHandle> names;
  void* r = fstReaderOpen(path.c_str());
  if (!r) return names;
  std::vector<std::string> scopes;
  while (fstHier* h = fstReaderIterateHier(r)) {
    if (h->htyp == FST_HT_SCOPE) {
      scopes.push_back(h->u.scope.name);
    } else if (h->htyp == FST_HT_UPSCOPE && !scopes.empty()) {
      scopes.pop_back();
    } else if (h->htyp == FST_HT_VAR) {
      std::string full;
      for (const auto& s : scopes) full += s + ".";
      const std::string name = h->u.var.name;
      names.emplace(full + name.substr(0, name.find(' ')), h->u.var.handle);
    }
  }
  fstReaderClose(r);
  return names;
}

inline std::set<std::string> fstSignals(const std::string& path) {
  std::set<std::string> names;
  for (const auto& [name, handle] : fstSignalHandles(path)) names.insert(name);
  return names;
}

// One signal's value ("0", "1", or the bits MSB first) at time `ps`, or nothing when it is absent.
inline std::optional<std::string> fstValueAt(const std::string& path, const std::string& signal, std::uint64_t ps) {
  const auto handles = fstSignalHandles(path);
  auto it = handles.find(signal);
  if (it == handles.end()) return std::nullopt;
  void* r = fstReaderOpen(path.c_str());
  if (!r) return std::nullopt;
  fstReaderSetFacProcessMaskAll(r);
  std::vector<char> buf(4096);
  const char* v = fstReaderGetValueFromHandleAtTime(r, ps, it->second, buf.data());
  std::optional<std::string> out;
  if (v) out = std::string(v);
  fstReaderClose(r);
  return out;
}

// Divergence waveforms go to a scratch directory for the test's duration, unless the caller set
// SCGPU_COSIM_WAVE_DIR (then they stay there).
class ScratchWaveDir {
 public:
  explicit ScratchWaveDir(const std::string& name = "scgpu_cosim_wave")
      : own_(!std::getenv("SCGPU_COSIM_WAVE_DIR")),
        dir_(own_ ? std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))
                  : std::filesystem::path(std::getenv("SCGPU_COSIM_WAVE_DIR"))) {
    if (!own_) return;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ::setenv("SCGPU_COSIM_WAVE_DIR", dir_.c_str(), 1);
  }
  ~ScratchWaveDir() {
    if (!own_) return;
    std::filesystem::remove_all(dir_);
    ::unsetenv("SCGPU_COSIM_WAVE_DIR");
  }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  bool own_;
  std::filesystem::path dir_;
};

// What a divergence report's waveform must be: the report names `stem`.fst and its .gtkw; both
// exist; the FST holds `required` (the RTL's internals and the model's side); every signal the
// .gtkw shows is in the FST; and its marker sits on a cycle where the wrapper's `mismatch` (the
// RTL's pins against the model's, compared in the waveform itself) is high. `top`: the wrapper's
// scope ("TOP.xbar_arbiter_wave.").
inline void expectDivergenceWaveform(const std::string& report, const std::string& stem, const std::string& top,
                                     const std::vector<std::string>& required) {
  namespace fs = std::filesystem;
  EXPECT_NE(report.find("waveform: " + stem + ".fst (RTL cycles "), std::string::npos) << report;
  EXPECT_NE(report.find("view: gtkwave " + stem + ".gtkw"), std::string::npos) << report;
  ASSERT_TRUE(fs::exists(stem + ".fst")) << report;
  ASSERT_TRUE(fs::exists(stem + ".gtkw")) << report;
  const std::set<std::string> sigs = fstSignals(stem + ".fst");
  for (const auto& want : required) EXPECT_TRUE(sigs.count(top + want)) << top + want << " is not in " << stem << ".fst";
  std::ifstream g(stem + ".gtkw");
  std::stringstream text;
  text << g.rdbuf();
  EXPECT_NE(text.str().find("[dumpfile] \"" + fs::path(stem + ".fst").filename().string() + "\""), std::string::npos)
      << text.str();
  int shown = 0;
  std::optional<std::uint64_t> marker_ps;
  for (std::string line; std::getline(text, line);) {
    if (line.rfind("*-", 0) == 0) marker_ps = std::stoull(line.substr(line.find(' ') + 1));
    if (line.rfind("TOP.", 0) != 0) continue;
    ++shown;
    EXPECT_TRUE(sigs.count(line.substr(0, line.find('[')))) << line << " (in the .gtkw) is not in the FST";
  }
  EXPECT_GT(shown, 10);
  // The marker is on the rising edge of the diverging cycle (half a 1 ns cycle in); the cycle's
  // inputs and the RTL's combinational answer are dumped at its start.
  ASSERT_TRUE(marker_ps.has_value()) << text.str();
  ASSERT_GE(*marker_ps, 500u);
  EXPECT_EQ(fstValueAt(stem + ".fst", top + "mismatch", *marker_ps - 500).value_or("?"), "1")
      << "the wrapper's mismatch is not high at the marker (" << *marker_ps << " ps)";
  if (*marker_ps >= 1500) {  // the cycle before it agreed (the first divergence)
    EXPECT_EQ(fstValueAt(stem + ".fst", top + "mismatch", *marker_ps - 1500).value_or("?"), "0");
  }
}

}  // namespace scgpu::testing
