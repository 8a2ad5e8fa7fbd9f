#include "base/block_impl.h"

#include <cstdlib>
#include <stdexcept>

namespace scgpu {

void checkBlockImpl(const std::string& key, const std::string& impl, bool rtl_available) {
  if (impl != "model" && impl != "rtl" && impl != "cosim")
    throw std::invalid_argument(key + " must be model, rtl or cosim, got '" + impl + "'");
  if (impl != "model" && !rtl_available)
    throw std::invalid_argument(key + " = " + impl +
                                " needs the RTL blocks: this scgpu was built without them (cmake -DSCGPU_RTL=ON, "
                                "with Verilator installed)");
}

std::string cosimWaveformStem(const std::string& instance, const std::string& when) {
  const char* dir = std::getenv("SCGPU_COSIM_WAVE_DIR");
  std::string name;
  for (char c : instance) {
    if (c == ']') continue;
    name += (c == '[' || c == '.') ? '_' : c;
  }
  return std::string(dir && *dir ? dir : ".") + "/cosim_" + name + "_" + when;
}

void CosimHistory::remember(std::string transaction) {
  entries_.push_back(std::move(transaction));
  if (entries_.size() > capacity_) entries_.pop_front();
}

std::string CosimHistory::text() const {
  std::string s;
  for (const auto& e : entries_) s += "    " + e + "\n";
  return s;
}

}  // namespace scgpu
