#include "base/yaml_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include <yaml-cpp/depthguard.h>
#include <vector>

#include "base/config.h"
#include "base/input_limits.h"

namespace scgpu {

void checkYamlShape(const YAML::Node& root, const std::string& source) {
  const InputLimits& lim = inputLimits();
  std::uint64_t nodes = 0;
  // Iterative walk: (node, depth). Map keys count as nodes too.
  std::vector<std::pair<YAML::Node, std::uint64_t>> stack;
  stack.emplace_back(root, 1);
  while (!stack.empty()) {
    auto [n, depth] = std::move(stack.back());
    stack.pop_back();
    const YAML::Mark m = n.Mark();
    const std::string where =
        m.is_null() ? source : fmt::format("{}:{}:{}", source, m.line + 1, m.column + 1);
    if (++nodes > lim.yaml_nodes)
      throw LimitError(inputLimitMessage(where, "the number of YAML nodes (aliases expanded)", nodes, "yaml_nodes",
                                         lim.yaml_nodes));
    if (depth > lim.yaml_depth)
      throw LimitError(inputLimitMessage(where, "the YAML nesting depth", depth, "yaml_depth", lim.yaml_depth));
    if (n.IsSequence()) {
      for (const auto& item : n) stack.emplace_back(item, depth + 1);
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        stack.emplace_back(kv.first, depth + 1);
        stack.emplace_back(kv.second, depth + 1);
      }
    }
  }
}

YAML::Node loadYaml(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's parser guards its own recursion; its message says nothing useful.
    throw LimitError(inputLimitMessage(fmt::format("{}:{}:{}", source, e.mark.line + 1, e.mark.column + 1),
                                       "the YAML nesting depth (yaml-cpp parses at most 500 levels)", std::uint64_t(e.depth()), "yaml_depth",
                                       std::min<std::uint64_t>(inputLimits().yaml_depth, std::uint64_t(e.depth()))));
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) throw ConfigError(fmt::format("{}: error: {}", source, e.msg));
    throw ConfigError(fmt::format("{}:{}:{}: error: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  checkYamlShape(root, source);
  return root;
}

}  // namespace scgpu
