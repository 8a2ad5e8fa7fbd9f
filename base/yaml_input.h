// YAML parsing with bounds, shared by every YAML reader (configs, --set values, launch files):
// yaml-cpp's own depth guard stops deep recursion while parsing; afterwards the document is
// walked once, aliases expanded, and refused when it is deeper than inputLimits().yaml_depth or
// holds more than inputLimits().yaml_nodes nodes (an alias bomb of a few hundred bytes would
// otherwise expand to billions). The walk stops at the limit, so it costs at most that many steps.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

namespace scgpu {

// Parses `text`; throws ConfigError "source:line:col: error: ..." for malformed YAML and
// LimitError for a document over the limits. `source` names the text in messages.
YAML::Node loadYaml(const std::string& text, const std::string& source);

// The check alone, for a document parsed elsewhere.
void checkYamlShape(const YAML::Node& root, const std::string& source);

}  // namespace scgpu
