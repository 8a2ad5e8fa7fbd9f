// Requests from outside a simulation that it stop early: Ctrl-C (SIGINT) and a wall-clock
// timeout (`scgpu run --timeout`). The simulation loops poll stopRequested() now and then and end
// the run as if the kernel had faulted (an "interrupted" or "timeout" report), so that the
// statistics and traces gathered so far are still written, marked partial.
#pragma once

#include <string>

namespace scgpu::run_control {

enum class Stop { None, Interrupted, WallTimeout };

// Arms (seconds > 0) or disarms (0) the wall-clock deadline, counted from now.
void setWallTimeout(double seconds);
double wallTimeoutSeconds();

// Why the run should stop, if it should. Cheap enough to call every few thousand cycles (one
// atomic load and one clock read).
Stop stopRequested();

// Forgets a pending Ctrl-C (a new run starts).
void clear();

// The fault kind and message a stop is reported with.
const char* stopKind(Stop s);
std::string stopMessage(Stop s);

// While it lives, the first SIGINT asks the run to stop (the second one kills the process, as
// usual, for a simulator stuck outside the loops that poll).
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

}  // namespace scgpu::run_control
