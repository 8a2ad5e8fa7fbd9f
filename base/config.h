// A configuration tree loaded from YAML: `extends:` inheritance, `--set key=value` overrides, the
// origin (file:line:col, --set text, default) of every node, and typed look-ups. Every error names
// the file, line and column (or the --set text) and the key path.
//
// This is the generic layer: it knows nothing of GPUs. A schema (tlm/gpu_config.h for the GPU
// description) checks a loaded tree and hands back the effective keys, which applyEffective()
// turns into the *effective* config: every key of the schema with the value in force (written,
// inherited, overridden, or the default), so has() is true for every schema key and dump() writes
// YAML that loads back to the same typed parameters.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/errors.h"

namespace scgpu {

struct EffectiveKey;

// A config (or other YAML input) that is malformed or breaks the schema.
class ConfigError : public InputError {
 public:
  using InputError::InputError;
};

class Config {
 public:
  // Loads a YAML file, follows `extends:` (a path relative to the file, with or without .yaml, or
  // the name of a shipped config), applies overrides of the form "sm.count=4" (values parsed as
  // YAML; a mapping value merges into a mapping). No schema is applied: see applyEffective().
  static Config loadTree(const std::string& path, const std::vector<std::string>& overrides = {});
  // The same from YAML text; `extends:` is relative to the working directory, then configDir().
  static Config treeFromString(const std::string& yaml, const std::string& source_name = "<string>",
                               const std::vector<std::string>& overrides = {});
  // The directory holding the shipped configs.
  static std::string configDir();
  // Resolves a config name ("tiny", "hopper") or a path to a file path.
  static std::string resolve(const std::string& name_or_path);
  // The shipped configs: names of configDir()/*.yaml without the extension, sorted.
  static std::vector<std::string> shippedConfigs();
  Config();
  Config(const Config&);
  Config& operator=(const Config&);
  ~Config();

  // Dotted key paths: "sm.count", "memory.global_size_bytes".
  bool has(const std::string& path) const;
  std::int64_t getInt(const std::string& path) const;
  std::int64_t getInt(const std::string& path, std::int64_t fallback) const;
  double getDouble(const std::string& path) const;
  double getDouble(const std::string& path, double fallback) const;
  std::string getString(const std::string& path) const;
  std::string getString(const std::string& path, const std::string& fallback) const;
  bool getBool(const std::string& path) const;
  bool getBool(const std::string& path, bool fallback) const;

  // Where the config came from (the path or source name given to load/fromString), and the
  // overrides applied to it.
  const std::string& sourceName() const { return source_; }
  const std::vector<std::string>& overrides() const;
  // The effective config as YAML, keys in schema order, with a comment header naming the source and
  // overrides. with_origins adds a comment after each key saying where its value came from
  // (file:line:col, the --set text, "default", or the DRAM preset).
  std::string dump(bool with_origins = false) const;

  // Where a key's value (or the key itself) was written: "file:line:col", "--set 'k=v'",
  // "default", or "dram preset 'hbm3' at 1309.5 MHz"; "" for a path that is not there.
  std::string where(const std::string& path) const;
  std::string whereKey(const std::string& path) const;

  // Introspection of the tree (used by the schema check; paths as above, "" is the top level).
  enum class Kind { Missing, Null, Scalar, Map, Sequence };
  Kind kind(const std::string& path) const;
  std::vector<std::string> keys(const std::string& path) const;  // a mapping's keys, in file order
  std::string scalar(const std::string& path) const;             // the raw text of a scalar
  bool quoted(const std::string& path) const;                    // a quoted (or tagged) scalar: a string
  // True when the value came from a file or an override rather than a default.
  bool isExplicit(const std::string& path) const;

 protected:
  // Rebuilds the tree in the order of `keys` (a schema's effective keys, below) with every key,
  // keeping the origins of what was written.
  void applyEffective(const std::vector<EffectiveKey>& keys);

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  std::string source_;
};

// One key of the effective config: its text, and where a value that was not written comes from.
struct EffectiveKey {
  std::string path;
  std::string value;
  bool quoted = false;          // write it as a quoted string
  std::string default_origin;   // "default" or "dram preset 'gddr6'"
};

namespace detail {
// Scalar parsing shared by the getters and the schema check: decimal or 0x integers, numbers,
// true/false (YAML 1.2 core schema); nullopt when the text is not one.
std::optional<std::int64_t> parseConfigInt(const std::string& text);
std::optional<double> parseConfigDouble(const std::string& text);
std::optional<bool> parseConfigBool(const std::string& text);
}  // namespace detail

}  // namespace scgpu
