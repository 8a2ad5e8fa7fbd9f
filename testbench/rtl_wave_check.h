// rtl-verif, for the RTL testbenches: what a co-simulation divergence's waveform holds.
#pragma once

#include <fstapi.h>

#include <set>
#include <string>
#include <vector>

namespace scgpu::testing {

// The signals of an FST file, as "scope.scope.name" (without their range).
inline std::set<std::string> fstSignals(const std::string& path) {
  std::set<std::string> names;
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
      names.insert(full + name.substr(0, name.find(' ')));
    }
  }
  fstReaderClose(r);
  return names;
}

}  // namespace scgpu::testing
