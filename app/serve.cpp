#include "app/serve.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "app/cli.h"
#include "driver/socket_server.h"
#include "tlm/gpu_config.h"

namespace scgpu::cli {
namespace {

std::atomic<driver::SocketServer*> g_server{nullptr};

extern "C" void onStopSignal(int) {
  if (driver::SocketServer* s = g_server.load()) s->stop();  // async-signal-safe: one write()
}

void say(const std::string& line) {
  std::fputs(("scgpu serve: " + line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

// Installs the stop handler for SIGINT and SIGTERM and ignores SIGPIPE while it lives.
class SignalScope {
 public:
  SignalScope() {
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old_pipe_);
  }
  ~SignalScope() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGPIPE, &old_pipe_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {}, old_pipe_ {};
};

}  // namespace

int serve(const ServeOptions& options) {
  const GpuConfig config = loadConfig(options.config, options.overrides);
  auto server = std::make_unique<driver::SocketServer>(config, options.socket, driver::modeFromName(options.mode));
  server->setLog(say);
  server->setHelloTimeoutMs(int(std::min(options.hello_timeout_s, 86400.0) * 1000));
  const auto id = server->identity();
  {
    SignalScope signals;
    g_server.store(server.get());
    say(fmt::format("listening on {}: config {}, sm_{}{} with {} SMs, {} channels, {} MiB of device memory "
                    "({}); SIGINT or SIGTERM stops",
                    options.socket, options.config, id.arch >> 8, id.arch & 0xFF, id.num_sms, id.num_channels,
                    id.memory_bytes >> 20, options.mode));
    server->run();
    g_server.store(nullptr);
  }
  const std::uint64_t clients = server->clientsServed();
  server.reset();  // closes and removes the socket file
  say(fmt::format("stopped after {} client{}; removed {}", clients, clients == 1 ? "" : "s", options.socket));
  return kExitOk;
}

}  // namespace scgpu::cli
