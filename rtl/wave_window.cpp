// rtl-verif: Verilator's VCD of a divergence window converted to FST, and its GTKWave view.
#include "rtl/wave_window.h"

#include <fmt/format.h>
#include <fstapi.h>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace scgpu::rtl {

void vcdToFst(const std::string& vcd_path, const std::string& fst_path) {
  std::ifstream in(vcd_path);
  if (!in) throw std::runtime_error("cosim waveform: cannot read " + vcd_path);
  void* fst = fstWriterCreate(fst_path.c_str(), 1);
  if (!fst) throw std::runtime_error("cosim waveform: cannot write " + fst_path);
  fstWriterSetPackType(fst, FST_WR_PT_LZ4);
  std::map<std::string, std::pair<fstHandle, int>> vars;  // VCD id -> handle, width
  std::string tok, value;
  bool body = false;
  auto emit = [&](const std::string& id, std::string v) {
    auto it = vars.find(id);
    if (it == vars.end()) return;
    const int width = it->second.second;
    if (int(v.size()) < width) v.insert(0, std::size_t(width) - v.size(), v[0] == '1' ? '0' : v[0]);
    fstWriterEmitValueChange(fst, it->second.first, v.c_str());
  };
  while (in >> tok) {
    if (!body) {
      if (tok == "$timescale") {
        std::string ts, t;
        while (in >> t && t != "$end") ts += t;
        fstWriterSetTimescaleFromString(fst, ts.c_str());
      } else if (tok == "$scope") {
        std::string kind, name, end;
        in >> kind >> name >> end;
        fstWriterSetScope(fst, FST_ST_VCD_MODULE, name.c_str(), nullptr);
      } else if (tok == "$upscope") {
        std::string end;
        in >> end;
        fstWriterSetUpscope(fst);
      } else if (tok == "$var") {
        // $var wire 64 ! out_line [63:0] $end
        std::string type, id, name, t, range;
        int width = 0;
        in >> type >> width >> id >> name;
        while (in >> t && t != "$end") range += t;
        const std::string full = range.empty() ? name : name + " " + range;
        // Verilator gives a signal seen under several names (a port and what it drives) one code:
        // later names are FST aliases of the first.
        auto seen = vars.find(id);
        const fstHandle h = fstWriterCreateVar(fst, FST_VT_VCD_WIRE, FST_VD_IMPLICIT, std::uint32_t(width),
                                               full.c_str(), seen == vars.end() ? 0 : seen->second.first);
        if (seen == vars.end()) vars[id] = {h, width};
      } else if (tok == "$enddefinitions") {
        std::string end;
        in >> end;
        body = true;
      } else if (tok[0] == '$') {
        std::string t;  // $date, $version, $comment: skipped
        while (in >> t && t != "$end") {}
      }
      continue;
    }
    if (tok[0] == '#') {
      fstWriterEmitTimeChange(fst, std::stoull(tok.substr(1)));
    } else if (tok[0] == 'b' || tok[0] == 'B') {
      std::string id;
      in >> id;
      emit(id, tok.substr(1));
    } else if (tok[0] == '0' || tok[0] == '1' || tok[0] == 'x' || tok[0] == 'z' || tok[0] == 'X' || tok[0] == 'Z') {
      emit(tok.substr(1), tok.substr(0, 1));
    }  // $dumpvars, $end and the like carry nothing
  }
  fstWriterClose(fst);
}

void writeGtkw(const std::string& gtkw_path, const std::string& fst_path, const std::vector<WaveSignal>& signals,
               std::uint64_t marker_ps) {
  auto file_name = [](const std::string& p) {
    const std::size_t s = p.rfind('/');
    return s == std::string::npos ? p : p.substr(s + 1);
  };
  std::string g;
  g += "[*] scgpu cosim divergence: gtkwave " + file_name(gtkw_path) + "\n";
  g += "[dumpfile] \"" + file_name(fst_path) + "\"\n";  // relative: the pair can move together
  g += "[savefile] \"" + file_name(gtkw_path) + "\"\n";
  g += "[timestart] 0\n";
  // The primary marker on the divergence; zoom about 60 cycles across the default window.
  g += fmt::format("*-16.000000 {} -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1\n",
                   marker_ps);
  g += "[sst_expanded] 1\n";
  constexpr unsigned long kHex = 0x2, kDec = 0x4, kBin = 0x8, kRjustify = 0x20, kBlank = 0x200,
                          kGrpBegin = 0x800000, kGrpEnd = 0x1000000;
  std::string group;
  for (const WaveSignal& s : signals) {
    if (s.group != group) {
      if (!group.empty()) g += fmt::format("@{:x}\n-{}\n", kBlank | kGrpEnd, group);
      group = s.group;
      if (!group.empty()) g += fmt::format("@{:x}\n-{}\n", kBlank | kGrpBegin, group);
    }
    const unsigned long f = kRjustify | (s.format == WaveSignal::Bin ? kBin : s.format == WaveSignal::Dec ? kDec : kHex);
    g += fmt::format("@{:x}\n{}{}\n", f, s.path, s.width > 1 ? fmt::format("[{}:0]", s.width - 1) : std::string());
  }
  if (!group.empty()) g += fmt::format("@{:x}\n-{}\n", kBlank | kGrpEnd, group);
  std::ofstream out(gtkw_path, std::ios::binary);
  out << g;
  if (!out) throw std::runtime_error("cosim waveform: cannot write " + gtkw_path);
}

}  // namespace scgpu::rtl
