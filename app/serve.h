// `scgpu serve --socket PATH`: the chip as a device that another process drives over a Unix socket
// (docs/host-protocol.md), one client at a time, reset between clients, until SIGINT or SIGTERM.
#pragma once

#include <string>
#include <vector>

namespace scgpu::cli {

struct ServeOptions {
  std::string socket;                  // the socket file to create
  std::string config = "tiny";         // a config name or YAML path
  std::vector<std::string> overrides;  // --set key=value
  double hello_timeout_s = 10;         // a client must complete HELLO within this (0: no limit)
  std::string mode = "functional";     // functional | timing
};

// Serves until SIGINT or SIGTERM, then removes the socket file and returns 0. Throws (ConfigError,
// driver::TransportError) when the config does not load or the socket cannot be made; the CLI turns
// that into exit status 3.
int serve(const ServeOptions& options);

}  // namespace scgpu::cli
