#include "tlm/gpu_config.h"

#include "tlm/gpu_params.h"

namespace scgpu {

GpuConfig::GpuConfig() : params_(std::make_shared<GpuParams>()) {}

GpuConfig::GpuConfig(Config tree) : Config(std::move(tree)) {
  auto params = std::make_shared<GpuParams>();
  applyEffective(detail::checkSchema(*this, *params));
  params_ = std::move(params);
}

GpuConfig GpuConfig::load(const std::string& path, const std::vector<std::string>& overrides) {
  return GpuConfig(Config::loadTree(path, overrides));
}

GpuConfig GpuConfig::fromString(const std::string& yaml, const std::string& source_name,
                                const std::vector<std::string>& overrides) {
  return GpuConfig(Config::treeFromString(yaml, source_name, overrides));
}

GpuConfig GpuConfig::loadDefault(const std::vector<std::string>& overrides) {
  return load(configDir() + "/tiny.yaml", overrides);
}

}  // namespace scgpu
