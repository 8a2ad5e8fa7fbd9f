// A GPU description loaded from YAML: `extends:` inheritance, `--set key=value` overrides, a schema
// check at load (tlm/gpu_params.cpp: unknown keys, types, ranges, combinations), and typed look-ups.
// Every error names the file, line and column (or the --set text) and the key path.
//
// After loading, the tree holds the *effective* config: every key of the schema with the value in
// force (written, inherited, overridden, or the default), so has() is true for every schema key and
// dump() writes YAML that loads back to the same GpuParams. docs/config.md describes the keys.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace scgpu {

struct GpuParams;

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Config {
 public:
  // Loads a YAML file, follows `extends:` (a path relative to the file, with or without .yaml, or
  // the name of a shipped config), applies overrides of the form "sm.count=4" (values parsed as
  // YAML; a mapping value merges into a mapping), then checks the result against the schema.
  static Config load(const std::string& path, const std::vector<std::string>& overrides = {});
  // The same from YAML text; `extends:` is relative to the working directory, then configDir().
  static Config fromString(const std::string& yaml, const std::string& source_name = "<string>",
                           const std::vector<std::string>& overrides = {});
  // configs/tiny.yaml from $SCGPU_CONFIG_DIR or the source tree.
  static Config loadDefault(const std::vector<std::string>& overrides = {});
  // The directory holding the shipped configs.
  static std::string configDir();
  // Resolves a config name ("tiny", "hopper") or a path to a file path.
  static std::string resolve(const std::string& name_or_path);
  // The shipped configs: names of configDir()/*.yaml without the extension, sorted.
  static std::vector<std::string> shippedConfigs();
  // The schema as a Markdown table (key, type, allowed values, default, meaning); the reference in
  // docs/config.md is this text (a test keeps them equal).
  static std::string schemaMarkdown();

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

  // The typed parameters checked at load (a default Config holds GpuParams' defaults).
  const GpuParams& params() const;

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

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  std::string source_;
  void finish();  // schema check and effective tree
};

namespace detail {
// One key of the effective config: its text, and where a value that was not written comes from.
struct EffectiveKey {
  std::string path;
  std::string value;
  bool quoted = false;          // write it as a quoted string
  std::string default_origin;   // "default" or "dram preset 'gddr6'"
};
// Implemented in tlm/gpu_params.cpp, beside the schema: checks `config` (throws ConfigError naming
// file:line:col and key path) and fills `out`; returns every schema key's effective value.
std::vector<EffectiveKey> checkSchema(const Config& config, GpuParams& out);
// Scalar parsing shared by the getters and the schema check: decimal or 0x integers, numbers,
// true/false (YAML 1.2 core schema); nullopt when the text is not one.
std::optional<std::int64_t> parseConfigInt(const std::string& text);
std::optional<double> parseConfigDouble(const std::string& text);
std::optional<bool> parseConfigBool(const std::string& text);
}  // namespace detail

}  // namespace scgpu
