// A GPU description: a config tree (base/config.h) checked against the GPU schema at load
// (tlm/gpu_params.cpp: unknown keys, types, ranges, combinations), with the typed GpuParams it
// yields. Every error names the file, line and column (or the --set text) and the key path.
// docs/config.md describes the keys.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/config.h"

namespace scgpu {

struct GpuParams;

class GpuConfig : public Config {
 public:
  // As Config::loadTree / treeFromString, then the schema check and the effective tree.
  static GpuConfig load(const std::string& path, const std::vector<std::string>& overrides = {});
  static GpuConfig fromString(const std::string& yaml, const std::string& source_name = "<string>",
                              const std::vector<std::string>& overrides = {});
  // configs/tiny.yaml from $SCGPU_CONFIG_DIR or the source tree.
  static GpuConfig loadDefault(const std::vector<std::string>& overrides = {});
  // The schema as a Markdown table (key, type, allowed values, default, meaning); the reference in
  // docs/config.md is this text (a test keeps them equal).
  static std::string schemaMarkdown();

  // A default GpuConfig holds GpuParams' defaults.
  GpuConfig();

  // The typed parameters checked at load.
  const GpuParams& params() const { return *params_; }

 private:
  explicit GpuConfig(Config tree);
  std::shared_ptr<const GpuParams> params_;
};

namespace detail {
// Implemented in tlm/gpu_params.cpp, beside the schema: checks `config` (throws ConfigError naming
// file:line:col and key path) and fills `out`; returns every schema key's effective value.
std::vector<EffectiveKey> checkSchema(const Config& config, GpuParams& out);
}  // namespace detail

}  // namespace scgpu
