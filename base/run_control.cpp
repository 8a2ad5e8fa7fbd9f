#include "base/run_control.h"

#include <atomic>
#include <chrono>
#include <csignal>

#include <fmt/format.h>

namespace scgpu::run_control {
namespace {

std::atomic<bool> g_interrupted{false};
double g_timeout_s = 0;
std::chrono::steady_clock::time_point g_deadline;
struct sigaction g_old_int;

extern "C" void onSigint(int) {
  g_interrupted.store(true, std::memory_order_relaxed);
  sigaction(SIGINT, &g_old_int, nullptr);  // a second Ctrl-C is not caught
}

}  // namespace

void setWallTimeout(double seconds) {
  g_timeout_s = seconds;
  g_deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                      std::chrono::duration<double>(seconds > 0 ? seconds : 0));
}

double wallTimeoutSeconds() { return g_timeout_s; }

Stop stopRequested() {
  if (g_interrupted.load(std::memory_order_relaxed)) return Stop::Interrupted;
  if (g_timeout_s > 0 && std::chrono::steady_clock::now() >= g_deadline) return Stop::WallTimeout;
  return Stop::None;
}

void clear() { g_interrupted.store(false, std::memory_order_relaxed); }

const char* stopKind(Stop s) { return s == Stop::Interrupted ? "interrupted" : "timeout"; }

std::string stopMessage(Stop s) {
  if (s == Stop::Interrupted)
    return "stopped by Ctrl-C (SIGINT); the statistics and traces cover the run up to here";
  return fmt::format("the run took longer than --timeout {} s of wall-clock time; the statistics and traces cover "
                     "the run up to here",
                     g_timeout_s);
}

InterruptGuard::InterruptGuard() {
  clear();
  struct sigaction sa = {};
  sa.sa_handler = onSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
}

InterruptGuard::~InterruptGuard() { sigaction(SIGINT, &g_old_int, nullptr); }

}  // namespace scgpu::run_control
