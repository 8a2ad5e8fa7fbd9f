// A GPU description loaded from YAML: `extends:` inheritance, `--set key=value` overrides, and
// typed look-ups whose errors name the file, line, column and key path. The effective config
// (after inheritance and overrides) can be written back out with the results.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace YAML { class Node; }

namespace scgpu {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Config {
 public:
  // Loads a YAML file, follows `extends:` (relative to the file), then applies overrides of the
  // form "sm.count=4" (values parsed as YAML scalars).
  static Config load(const std::string& path, const std::vector<std::string>& overrides = {});
  static Config fromString(const std::string& yaml, const std::string& source_name = "<string>",
                           const std::vector<std::string>& overrides = {});
  // configs/tiny.yaml from $SCGPU_CONFIG_DIR or the source tree.
  static Config loadDefault(const std::vector<std::string>& overrides = {});
  // The directory holding the shipped configs.
  static std::string configDir();
  // Resolves a config name ("tiny", "hopper") or a path to a file path.
  static std::string resolve(const std::string& name_or_path);

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
  bool getBool(const std::string& path, bool fallback) const;

  // Where the config came from, and the effective config as YAML text.
  const std::string& sourceName() const { return source_; }
  std::string dump() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  std::string source_;
};

}  // namespace scgpu
