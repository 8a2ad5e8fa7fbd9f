// A config as JSON, for the statistics files that record the effective config (`scgpu run
// --stats-json`, a CUDA program's statistics under `scgpu exec`).
#pragma once

#include <nlohmann/json.hpp>

namespace YAML {
class Node;
}

namespace scgpu {
class GpuConfig;
}

namespace scgpu::driver {

// A YAML tree as JSON: plain scalars become integers, floats, booleans or null where they read as
// such; quoted scalars stay strings.
nlohmann::json yamlToJson(const YAML::Node& node);
// The effective config (GpuConfig::dump()) as a JSON object.
nlohmann::json configJson(const GpuConfig& config);

}  // namespace scgpu::driver
