#include "base/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "base/input_file.h"
#include "base/yaml_input.h"


namespace scgpu {
namespace fs = std::filesystem;

namespace {

// Where a node was written: a file position (0-based, as yaml-cpp marks), or a whole source with no
// position (an override, a default).
struct Origin {
  std::string source;
  int line = -1, col = -1;
  std::string str() const {
    return line >= 0 ? fmt::format("{}:{}:{}", source, line + 1, col + 1) : source;
  }
};

struct Entry;

// The config tree. yaml-cpp's own nodes lose their marks when cloned, so the loader keeps its own
// tree with an origin per node: a value inherited through `extends:` still points at its file.
struct Node {
  enum Kind { Null, Scalar, Map, Seq } kind = Null;
  std::string scalar;
  bool quoted = false;
  std::vector<Entry> entries;  // Map: in file order; Seq: keys "0", "1", ...
  Origin at;

  Entry* find(const std::string& key);
  const Entry* find(const std::string& key) const;
};

struct Entry {
  std::string key;
  Origin key_at;
  Node value;
};

Entry* Node::find(const std::string& key) {
  for (auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}
const Entry* Node::find(const std::string& key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  if (path.empty()) return parts;
  std::string part;
  std::stringstream ss(path);
  while (std::getline(ss, part, '.')) parts.push_back(part);
  if (path.back() == '.') parts.push_back("");
  return parts;
}

Origin originOf(const std::string& source, const YAML::Mark& m) {
  Origin o{source};
  if (!m.is_null()) {
    o.line = m.line;
    o.col = m.column;
  }
  return o;
}

// Converts a yaml-cpp tree into ours. `keep_marks` is false for override values, whose positions
// would point into the override text rather than a file.
Node build(const YAML::Node& y, const std::string& source, bool keep_marks, const std::string& path) {
  Node n;
  n.at = keep_marks ? originOf(source, y.Mark()) : Origin{source};
  switch (y.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      n.kind = Node::Null;
      break;
    case YAML::NodeType::Scalar:
      n.kind = Node::Scalar;
      n.scalar = y.Scalar();
      // yaml-cpp tags plain scalars "?" and quoted ones "!"; an explicit tag (!!str) also makes a string.
      n.quoted = !(y.Tag().empty() || y.Tag() == "?");
      break;
    case YAML::NodeType::Sequence: {
      n.kind = Node::Seq;
      std::size_t i = 0;
      for (const auto& item : y) {
        const std::string key = std::to_string(i++);
        Entry e{key, n.at, build(item, source, keep_marks, path.empty() ? key : path + "." + key)};
        n.entries.push_back(std::move(e));
      }
      break;
    }
    case YAML::NodeType::Map: {
      n.kind = Node::Map;
      // Keys seen so far, for the duplicate check: a hash index keeps it linear in the keys.
      std::unordered_map<std::string, std::size_t> index;
      for (const auto& kv : y) {
        const Origin key_at = keep_marks ? originOf(source, kv.first.Mark()) : Origin{source};
        if (!kv.first.IsScalar())
          throw ConfigError(fmt::format("{}: error: a key {} is not a plain name", key_at.str(),
                                        path.empty() ? std::string("at the top level") : "under '" + path + "'"));
        const std::string key = kv.first.Scalar();
        const std::string full = path.empty() ? key : path + "." + key;
        if (key.empty()) throw ConfigError(fmt::format("{}: error: empty key under '{}'", key_at.str(), path));
        if (key.find('.') != std::string::npos)
          throw ConfigError(fmt::format("{}: error: key '{}' contains '.': write nested keys as nested mappings",
                                        key_at.str(), full));
        if (const auto dup = index.find(key); dup != index.end())
          throw ConfigError(fmt::format("{}: error: duplicate key '{}' (first written at {})", key_at.str(), full,
                                        n.entries[dup->second].key_at.str()));
        index.emplace(key, n.entries.size());
        Entry e{key, key_at, build(kv.second, source, keep_marks, full)};
        // An empty value has no position of its own (yaml-cpp marks the next token): point at its key.
        if (e.value.at.line < 0 || (e.value.kind == Node::Null && e.value.at.line != key_at.line))
          e.value.at = key_at;
        n.entries.push_back(std::move(e));
      }
      break;
    }
  }
  return n;
}

// Deep merge: keys of `over` replace those of `base`; mappings merge recursively. An empty (null)
// section over a mapping adds nothing.
void mergeInto(Node& base, const Node& over) {
  if (base.kind == Node::Map && over.kind == Node::Null) return;
  if (base.kind != Node::Map || over.kind != Node::Map) {
    base = over;
    return;
  }
  // A hash index of base's keys keeps the merge linear in the keys of both.
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < base.entries.size(); ++i) index.emplace(base.entries[i].key, i);
  for (const Entry& e : over.entries) {
    const auto it = index.find(e.key);
    if (it == index.end()) {
      index.emplace(e.key, base.entries.size());
      base.entries.push_back(e);
    } else {
      Entry& b = base.entries[it->second];
      b.key_at = e.key_at;
      mergeInto(b.value, e.value);
    }
  }
}

std::string readableChain(const std::vector<std::string>& chain, const std::string& last) {
  std::string s;
  for (const auto& c : chain) s += c + " -> ";
  return s + last;
}

fs::path findParent(const fs::path& base_dir, const std::string& name) {
  std::vector<fs::path> candidates{base_dir / name, base_dir / (name + ".yaml")};
  if (name.find('/') == std::string::npos) candidates.push_back(fs::path(Config::configDir()) / (name + ".yaml"));
  std::error_code ec;  // a path too long or a loop of links is "not found", not an exception
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c.lexically_normal();
  return {};
}

Node parseFile(const std::string& path, std::vector<std::string>& chain);

// Resolves `extends:` in a freshly parsed top-level node (removing the key).
Node resolveExtends(Node node, const std::string& source, const fs::path& base_dir, std::vector<std::string>& chain) {
  if (node.kind != Node::Map)
    throw ConfigError(fmt::format("{}: error: expected a mapping of config keys at the top level", node.at.str()));
  auto it = std::find_if(node.entries.begin(), node.entries.end(), [](const Entry& e) { return e.key == "extends"; });
  if (it == node.entries.end()) return node;
  const Entry ext = *it;
  node.entries.erase(it);
  if (ext.value.kind != Node::Scalar || ext.value.scalar.empty())
    throw ConfigError(fmt::format("{}: error: `extends` expects a config name or path", ext.value.at.str()));
  const fs::path parent = findParent(base_dir, ext.value.scalar);
  if (parent.empty())
    throw ConfigError(fmt::format("{}: error: extended config '{}' not found (looked beside {} and in {})",
                                  ext.value.at.str(), ext.value.scalar, source, Config::configDir()));
  // A cycle is reported at the `extends:` that closes it.
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(parent, ec);
  for (const auto& c : chain)
    if (fs::weakly_canonical(c, ec) == canonical)
      throw ConfigError(fmt::format("{}: error: `extends:` cycle: {}", ext.value.at.str(),
                                    readableChain(chain, parent.string())));
  Node base = parseFile(parent.string(), chain);
  mergeInto(base, node);
  return base;
}

Node parseFile(const std::string& path, std::vector<std::string>& chain) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  for (const auto& c : chain)
    if (fs::weakly_canonical(c, ec) == canonical)
      throw ConfigError(fmt::format("{}: error: `extends:` cycle: {}", chain.back(), readableChain(chain, path)));
  if (chain.size() > 16)
    throw ConfigError(fmt::format("{}: error: `extends:` chain deeper than 16", path));
  const YAML::Node y = loadYaml(readInputFile(path, "config file"), path);
  Node node = build(y, path, true, "");
  if (node.kind != Node::Map)
    throw ConfigError(fmt::format("{}: error: expected a mapping of config keys at the top level", path));
  chain.push_back(path);
  Node out = resolveExtends(std::move(node), path, fs::path(path).parent_path(), chain);
  chain.pop_back();
  return out;
}

void applyOverride(Node& root, const std::string& text) {
  const std::string source = fmt::format("--set '{}'", text);
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError(fmt::format("{}: error: expected key=value, e.g. sm.count=4", source));
  const std::string key = text.substr(0, eq);
  const std::vector<std::string> parts = splitPath(key);
  for (const auto& p : parts)
    if (p.empty() || p.find_first_of(" \t:") != std::string::npos)
      throw ConfigError(fmt::format("{}: error: '{}' is not a dotted key path like sm.l1.size_bytes", source, key));
  YAML::Node y;
  try {
    y = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("{}: error: value is not valid YAML: {}", source, e.msg));
  }
  checkYamlShape(y, source);
  Node value = build(y, source, false, key);
  const Origin at{source};
  Node* cur = &root;
  std::string walked;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    walked += (i ? "." : "") + parts[i];
    Entry* e = cur->find(parts[i]);
    if (!e) {
      Node section;
      section.kind = Node::Map;
      section.at = at;
      cur->entries.push_back(Entry{parts[i], at, std::move(section)});
      e = &cur->entries.back();
    } else if (e->value.kind == Node::Null) {
      e->value.kind = Node::Map;
      e->value.at = at;
    } else if (e->value.kind != Node::Map) {
      throw ConfigError(fmt::format("{}: error: key '{}' is a value (written at {}), not a mapping of keys", source,
                                    walked, e->value.at.str()));
    }
    cur = &e->value;
  }
  if (Entry* e = cur->find(parts.back())) {
    e->key_at = at;
    mergeInto(e->value, value);
  } else {
    cur->entries.push_back(Entry{parts.back(), at, std::move(value)});
  }
}

const Node* lookup(const Node& root, const std::string& path) {
  const Node* node = &root;
  for (const auto& part : splitPath(path)) {
    if (node->kind != Node::Map && node->kind != Node::Seq) return nullptr;
    const Entry* e = node->find(part);
    if (!e) return nullptr;
    node = &e->value;
  }
  return node;
}

const Entry* lookupEntry(const Node& root, const std::string& path) {
  const auto parts = splitPath(path);
  if (parts.empty()) return nullptr;
  const Node* parent = &root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const Entry* e = parent->find(parts[i]);
    if (!e) return nullptr;
    parent = &e->value;
  }
  return parent->find(parts.back());
}

// Scalars as the schema reads them (YAML 1.2 core schema, decimal or 0x integers).
std::optional<std::int64_t> parseInt(const std::string& s) {
  if (s.empty()) return std::nullopt;
  std::size_t i = 0;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  int base = 10;
  if (s.size() > i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= s.size()) return std::nullopt;
  unsigned long long v = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    if (v > (9223372036854775807ull - unsigned(d)) / unsigned(base)) return std::nullopt;  // overflow
    v = v * unsigned(base) + unsigned(d);
  }
  return neg ? -std::int64_t(v) : std::int64_t(v);
}

std::optional<double> parseDouble(const std::string& s) {
  if (s.empty()) return std::nullopt;
  if (auto i = parseInt(s)) return double(*i);
  if (s.find_first_not_of("0123456789+-.eE") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<bool> parseBool(const std::string& s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

void emit(YAML::Emitter& out, const Node& n, bool with_origins) {
  switch (n.kind) {
    case Node::Null:
      out << YAML::Null;
      break;
    case Node::Scalar:
      if (n.quoted) out << YAML::DoubleQuoted << n.scalar;
      else out << n.scalar;
      if (with_origins) out << YAML::Comment(n.at.str());
      break;
    case Node::Seq:
      out << YAML::BeginSeq;
      for (const auto& e : n.entries) emit(out, e.value, with_origins);
      out << YAML::EndSeq;
      break;
    case Node::Map:
      out << YAML::BeginMap;
      for (const auto& e : n.entries) {
        out << YAML::Key << e.key << YAML::Value;
        emit(out, e.value, with_origins);
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

struct Config::Impl {
  Node root;
  std::vector<std::string> overrides;
};

Config::Config() : impl_(std::make_shared<Impl>()) { impl_->root.kind = Node::Map; }
Config::Config(const Config&) = default;
Config& Config::operator=(const Config&) = default;
Config::~Config() = default;

std::string Config::configDir() {
  if (const char* env = std::getenv("SCGPU_CONFIG_DIR")) return env;
  return std::string(SCGPU_SOURCE_DIR) + "/configs";
}

std::string Config::resolve(const std::string& name) {
  std::error_code ec;  // a path too long or a loop of links is "not found", not an exception
  if (fs::is_regular_file(name, ec)) return name;
  if (fs::exists(name, ec) && !fs::is_regular_file(name, ec))
    throw ConfigError(fmt::format("config '{}': error: not a regular file", name));
  std::string candidate = configDir() + "/" + name + ".yaml";
  if (name.find('/') == std::string::npos && fs::is_regular_file(candidate, ec)) return candidate;
  throw ConfigError(fmt::format("config '{}': error: no such file, and no config of that name in {}", name, configDir()));
}

std::vector<std::string> Config::shippedConfigs() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(configDir(), ec))
    if (e.is_regular_file() && e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

void Config::applyEffective(const std::vector<EffectiveKey>& keys) {
  // Rebuild the tree in schema order with every key, keeping the origins of what was written.
  Node root;
  root.kind = Node::Map;
  root.at = impl_->root.at;
  for (const auto& k : keys) {
    const auto parts = splitPath(k.path);
    Node* cur = &root;
    std::string path;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      path += (i ? "." : "") + parts[i];
      Entry* e = cur->find(parts[i]);
      if (!e) {
        const Entry* old = lookupEntry(impl_->root, path);
        Entry fresh{parts[i], old ? old->key_at : Origin{k.default_origin}, Node{}};
        if (i + 1 < parts.size()) {
          fresh.value.kind = Node::Map;
          fresh.value.at = old ? old->value.at : Origin{k.default_origin};
        } else {
          fresh.value.kind = Node::Scalar;
          fresh.value.scalar = k.value;
          fresh.value.quoted = k.quoted;
          fresh.value.at = old ? old->value.at : Origin{k.default_origin};
        }
        cur->entries.push_back(std::move(fresh));
        e = &cur->entries.back();
      }
      cur = &e->value;
    }
  }
  impl_->root = std::move(root);
}

Config Config::loadTree(const std::string& path, const std::vector<std::string>& overrides) {
  Config c;
  c.source_ = path;
  std::vector<std::string> chain;
  c.impl_->root = parseFile(path, chain);
  for (const auto& o : overrides) applyOverride(c.impl_->root, o);
  c.impl_->overrides = overrides;
  return c;
}

Config Config::treeFromString(const std::string& yaml, const std::string& source_name,
                              const std::vector<std::string>& overrides) {
  Config c;
  c.source_ = source_name;
  const YAML::Node y = loadYaml(yaml, source_name);
  Node node = build(y, source_name, true, "");
  if (node.kind == Node::Null) node.kind = Node::Map;  // an empty document
  std::vector<std::string> chain{source_name};
  c.impl_->root = resolveExtends(std::move(node), source_name, fs::current_path(), chain);
  for (const auto& o : overrides) applyOverride(c.impl_->root, o);
  c.impl_->overrides = overrides;
  return c;
}

const std::vector<std::string>& Config::overrides() const { return impl_->overrides; }

bool Config::has(const std::string& path) const { return lookup(impl_->root, path) != nullptr; }

namespace {
[[noreturn]] void typeError(const Node& n, const std::string& path, const char* what) {
  throw ConfigError(fmt::format("{}: error: key '{}': expected {}, got {}", n.at.str(), path, what,
                                n.kind == Node::Scalar ? "'" + n.scalar + "'"
                                : n.kind == Node::Map  ? std::string("a mapping")
                                : n.kind == Node::Seq  ? std::string("a list")
                                                       : std::string("nothing")));
}
const Node& required(const Node& root, const std::string& source, const std::string& path) {
  const Node* n = lookup(root, path);
  if (!n) throw ConfigError(fmt::format("{}: error: missing required key '{}'", source, path));
  return *n;
}
}  // namespace

std::int64_t Config::getInt(const std::string& path) const {
  const Node& n = required(impl_->root, source_, path);
  if (n.kind == Node::Scalar && !n.quoted)
    if (auto v = parseInt(n.scalar)) return *v;
  typeError(n, path, "an integer");
}
std::int64_t Config::getInt(const std::string& path, std::int64_t fallback) const {
  return has(path) ? getInt(path) : fallback;
}
double Config::getDouble(const std::string& path) const {
  const Node& n = required(impl_->root, source_, path);
  if (n.kind == Node::Scalar && !n.quoted)
    if (auto v = parseDouble(n.scalar)) return *v;
  typeError(n, path, "a number");
}
double Config::getDouble(const std::string& path, double fallback) const {
  return has(path) ? getDouble(path) : fallback;
}
std::string Config::getString(const std::string& path) const {
  const Node& n = required(impl_->root, source_, path);
  if (n.kind == Node::Scalar) return n.scalar;
  typeError(n, path, "a string");
}
std::string Config::getString(const std::string& path, const std::string& fallback) const {
  return has(path) ? getString(path) : fallback;
}
bool Config::getBool(const std::string& path) const {
  const Node& n = required(impl_->root, source_, path);
  if (n.kind == Node::Scalar && !n.quoted)
    if (auto v = parseBool(n.scalar)) return *v;
  typeError(n, path, "true or false");
}
bool Config::getBool(const std::string& path, bool fallback) const { return has(path) ? getBool(path) : fallback; }

std::string Config::where(const std::string& path) const {
  const Node* n = lookup(impl_->root, path);
  return n ? n->at.str() : std::string();
}
std::string Config::whereKey(const std::string& path) const {
  const Entry* e = lookupEntry(impl_->root, path);
  return e ? e->key_at.str() : std::string();
}

Config::Kind Config::kind(const std::string& path) const {
  const Node* n = lookup(impl_->root, path);
  if (!n) return Kind::Missing;
  switch (n->kind) {
    case Node::Null: return Kind::Null;
    case Node::Scalar: return Kind::Scalar;
    case Node::Map: return Kind::Map;
    case Node::Seq: return Kind::Sequence;
  }
  return Kind::Missing;
}

std::vector<std::string> Config::keys(const std::string& path) const {
  std::vector<std::string> out;
  const Node* n = lookup(impl_->root, path);
  if (n && n->kind == Node::Map)
    for (const auto& e : n->entries) out.push_back(e.key);
  return out;
}

std::string Config::scalar(const std::string& path) const {
  const Node* n = lookup(impl_->root, path);
  return n && n->kind == Node::Scalar ? n->scalar : std::string();
}

bool Config::quoted(const std::string& path) const {
  const Node* n = lookup(impl_->root, path);
  return n && n->kind == Node::Scalar && n->quoted;
}

bool Config::isExplicit(const std::string& path) const {
  const Node* n = lookup(impl_->root, path);
  return n && n->at.source != "default" && n->at.source.rfind("dram preset", 0) != 0;
}

std::string Config::dump(bool with_origins) const {
  YAML::Emitter out;
  std::string header = "Effective scgpu config (every key, in schema order; see docs/config.md)";
  out << YAML::Comment(header);
  out << YAML::Newline;
  std::string from = "source: " + (source_.empty() ? std::string("<defaults>") : source_);
  for (const auto& o : impl_->overrides) from += " --set " + o;
  out << YAML::Comment(from) << YAML::Newline;
  emit(out, impl_->root, with_origins);
  return std::string(out.c_str()) + "\n";
}

// The scalar parsers are shared with the schema check.
namespace detail {
std::optional<std::int64_t> parseConfigInt(const std::string& s) { return parseInt(s); }
std::optional<double> parseConfigDouble(const std::string& s) { return parseDouble(s); }
std::optional<bool> parseConfigBool(const std::string& s) { return parseBool(s); }
}  // namespace detail

}  // namespace scgpu
