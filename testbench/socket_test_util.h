// Test helpers for the socket transport: a fresh temporary directory per server, and a Transport
// that owns an `scgpu serve`-equivalent server running in a thread of the test process (so that
// every conformance case of host_interface_test.cpp runs over the real socket protocol).
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "driver/socket_server.h"
#include "driver/transport.h"
#include "tlm/gpu_config.h"

namespace scgpu::testing_socket {

// A directory made with mkdtemp under /tmp (short: a socket path has at most 107 bytes), removed
// with what is left in it (only files are expected) when this goes.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/scgpu-sock-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    for (const char* name : {"s", "log", "file"}) ::unlink((path_ + "/" + name).c_str());
    ::rmdir(path_.c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string socket() const { return path_ + "/s"; }

 private:
  std::string path_;
};

// A client transport whose server runs in a thread of this process.
class ThreadServedTransport : public driver::Transport {
 public:
  explicit ThreadServedTransport(const GpuConfig& config)
      : server_(std::make_unique<driver::SocketServer>(config, dir_.socket())) {
    thread_ = std::thread([this] { server_->run(); });
    try {
      client_ = driver::connectSocketTransport(dir_.socket());
    } catch (...) {
      server_->stop();
      thread_.join();
      throw;
    }
  }
  ~ThreadServedTransport() override {
    client_.reset();  // GOODBYE
    server_->stop();
    thread_.join();
    server_.reset();  // removes the socket file before the directory goes
  }
  std::uint32_t mmioRead(std::uint32_t offset) override { return client_->mmioRead(offset); }
  void mmioWrite(std::uint32_t offset, std::uint32_t value) override { client_->mmioWrite(offset, value); }
  bool interruptPending() override { return client_->interruptPending(); }
  void attachHostMemory(host::HostMemoryPort* memory) override { client_->attachHostMemory(memory); }
  std::uint64_t deviceTimeNs() const override { return client_->deviceTimeNs(); }

 private:
  TempDir dir_;
  std::unique_ptr<driver::SocketServer> server_;
  std::thread thread_;
  std::unique_ptr<driver::Transport> client_;
};

}  // namespace scgpu::testing_socket
