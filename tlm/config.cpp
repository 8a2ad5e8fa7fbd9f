#include "tlm/config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>

namespace scgpu {
namespace fs = std::filesystem;

struct Config::Impl {
  YAML::Node root;
  // Node marks are positions in the file that defined them; `files` names a file per depth of
  // `extends:` so errors point at the right file (0 = the file that was loaded).
  std::string file;
};

namespace {

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '.')) parts.push_back(part);
  return parts;
}

std::string where(const std::string& file, const YAML::Mark& m) {
  if (m.is_null()) return file;
  return fmt::format("{}:{}:{}", file, m.line + 1, m.column + 1);
}

// Deep merge: keys of `child` replace those of `parent`; maps merge recursively.
YAML::Node merge(const YAML::Node& parent, const YAML::Node& child) {
  if (!parent.IsMap() || !child.IsMap()) return YAML::Clone(child);
  YAML::Node out = YAML::Clone(parent);
  for (const auto& kv : child) {
    const std::string key = kv.first.as<std::string>();
    if (out[key] && out[key].IsMap() && kv.second.IsMap())
      out[key] = merge(out[key], kv.second);
    else
      out[key] = YAML::Clone(kv.second);
  }
  return out;
}

YAML::Node parseFile(const std::string& path, int depth) {
  if (depth > 16) throw ConfigError(fmt::format("{}: error: `extends:` chain deeper than 16 (a cycle?)", path));
  YAML::Node node;
  try {
    node = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ConfigError(fmt::format("{}: error: cannot read config file", path));
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}:{}:{}: error: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!node.IsMap())
    throw ConfigError(fmt::format("{}: error: expected a mapping of config keys at the top level", path));
  if (node["extends"]) {
    const YAML::Node ext = node["extends"];
    if (!ext.IsScalar())
      throw ConfigError(fmt::format("{}: error: `extends` expects a config name or path", where(path, ext.Mark())));
    std::string parent = ext.as<std::string>();
    fs::path parent_path = fs::path(path).parent_path() / parent;
    if (!fs::exists(parent_path)) parent_path = fs::path(path).parent_path() / (parent + ".yaml");
    if (!fs::exists(parent_path))
      throw ConfigError(fmt::format("{}: error: extended config '{}' not found", where(path, ext.Mark()), parent));
    YAML::Node base = parseFile(parent_path.string(), depth + 1);
    node.remove("extends");
    return merge(base, node);
  }
  return node;
}

void applyOverride(YAML::Node& root, const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(fmt::format("--set '{}': error: expected key=value, e.g. sm.count=4", text));
  const std::string key = text.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("--set '{}': error: value is not valid YAML: {}", text, e.msg));
  }
  std::vector<std::string> parts = splitPath(key);
  // Walk with copies of handles (yaml-cpp nodes are references into the tree).
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = chain.back()[parts[i]];
    if (next && !next.IsMap())
      throw ConfigError(fmt::format("--set '{}': error: '{}' is not a mapping", text, parts[i]));
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value;
}

}  // namespace

Config::Config() : impl_(std::make_shared<Impl>()) {}
Config::Config(const Config&) = default;
Config& Config::operator=(const Config&) = default;
Config::~Config() = default;

std::string Config::configDir() {
  if (const char* env = std::getenv("SCGPU_CONFIG_DIR")) return env;
  return std::string(SCGPU_SOURCE_DIR) + "/configs";
}

std::string Config::resolve(const std::string& name) {
  if (fs::exists(name)) return name;
  std::string candidate = configDir() + "/" + name + ".yaml";
  if (fs::exists(candidate)) return candidate;
  throw ConfigError(fmt::format("config '{}': error: no such file, and no config of that name in {}", name, configDir()));
}

Config Config::load(const std::string& path, const std::vector<std::string>& overrides) {
  Config c;
  c.source_ = path;
  c.impl_->file = path;
  c.impl_->root = parseFile(path, 0);
  for (const auto& o : overrides) applyOverride(c.impl_->root, o);
  return c;
}

Config Config::fromString(const std::string& yaml, const std::string& source_name,
                          const std::vector<std::string>& overrides) {
  Config c;
  c.source_ = source_name;
  c.impl_->file = source_name;
  try {
    c.impl_->root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}:{}:{}: error: {}", source_name, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!c.impl_->root.IsMap())
    throw ConfigError(fmt::format("{}: error: expected a mapping of config keys at the top level", source_name));
  for (const auto& o : overrides) applyOverride(c.impl_->root, o);
  return c;
}

Config Config::loadDefault(const std::vector<std::string>& overrides) {
  return load(configDir() + "/tiny.yaml", overrides);
}

namespace {
YAML::Node lookup(const YAML::Node& root, const std::string& path) {
  // reset(), not operator=: assigning a yaml-cpp node overwrites the node it refers to.
  YAML::Node node;
  node.reset(root);
  for (const auto& part : splitPath(path)) {
    if (!node.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    YAML::Node child = node[part];
    if (!child) return YAML::Node(YAML::NodeType::Undefined);
    node.reset(child);
  }
  return node;
}
}  // namespace

bool Config::has(const std::string& path) const { return lookup(impl_->root, path).IsDefined(); }

template <typename T>
static T convert(const YAML::Node& node, const std::string& file, const std::string& path, const char* what) {
  if (!node.IsDefined()) throw ConfigError(fmt::format("{}: error: missing required key '{}'", file, path));
  try {
    if (!node.IsScalar()) throw YAML::BadConversion(node.Mark());
    return node.as<T>();
  } catch (const YAML::Exception&) {
    throw ConfigError(fmt::format("{}: error: key '{}': expected {}", where(file, node.Mark()), path, what));
  }
}

std::int64_t Config::getInt(const std::string& path) const {
  return convert<std::int64_t>(lookup(impl_->root, path), impl_->file, path, "an integer");
}
std::int64_t Config::getInt(const std::string& path, std::int64_t fallback) const {
  return has(path) ? getInt(path) : fallback;
}
double Config::getDouble(const std::string& path) const {
  return convert<double>(lookup(impl_->root, path), impl_->file, path, "a number");
}
double Config::getDouble(const std::string& path, double fallback) const {
  return has(path) ? getDouble(path) : fallback;
}
std::string Config::getString(const std::string& path) const {
  return convert<std::string>(lookup(impl_->root, path), impl_->file, path, "a string");
}
std::string Config::getString(const std::string& path, const std::string& fallback) const {
  return has(path) ? getString(path) : fallback;
}
bool Config::getBool(const std::string& path, bool fallback) const {
  return has(path) ? convert<bool>(lookup(impl_->root, path), impl_->file, path, "true or false") : fallback;
}

std::string Config::dump() const {
  YAML::Emitter out;
  out << impl_->root;
  return out.c_str();
}

}  // namespace scgpu
