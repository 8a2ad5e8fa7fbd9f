#include "driver/config_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "tlm/gpu_config.h"

namespace scgpu::driver {

namespace {
// YAML 1.2 core-schema reading of a plain scalar.
nlohmann::json plainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  const char* begin = s.c_str();
  char* end = nullptr;
  // Decimal, or hexadecimal with 0x (a leading 0 is not octal in YAML 1.2).
  const bool hex = s.rfind("0x", 0) == 0 || s.rfind("-0x", 0) == 0;
  const int base = hex ? 16 : 10;
  errno = 0;
  if (s[0] == '-') {
    long long v = std::strtoll(begin, &end, base);
    if (*end == '\0' && errno == 0) return v;
  } else {
    unsigned long long v = std::strtoull(begin, &end, base);
    if (*end == '\0' && errno == 0 && s[0] != '+') return v;
  }
  errno = 0;
  double d = std::strtod(begin, &end);
  if (!hex && *end == '\0' && errno == 0 && std::isfinite(d)) return d;
  return s;
}
}  // namespace

nlohmann::json yamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json obj = nlohmann::json::object();
      for (const auto& kv : node) obj[kv.first.Scalar()] = yamlToJson(kv.second);
      return obj;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& item : node) arr.push_back(yamlToJson(item));
      return arr;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!" and plain ones "?".
      return node.Tag() == "!" ? nlohmann::json(node.Scalar()) : plainScalar(node.Scalar());
    default:
      return nullptr;
  }
}

nlohmann::json configJson(const GpuConfig& config) { return yamlToJson(YAML::Load(config.dump())); }

}  // namespace scgpu::driver
