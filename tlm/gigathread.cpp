#include "tlm/gigathread.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace scgpu {

GigaThread::GigaThread(const GigaThreadParams& params, const SmParams& sm, std::uint32_t num_sms, StatsRegistry& stats,
                       const std::string& name)
    : params_(params), sm_(sm), usage_(num_sms), resident_(num_sms, 0) {
  if (num_sms == 0) throw std::invalid_argument("GigaThread: the GPU has no SMs");
  if (params.blocks_per_cycle == 0)
    throw std::invalid_argument("GigaThread: gigathread.blocks_per_cycle must be at least 1");
  kernels_launched_ = stats.counter(name + ".kernels_launched", "kernels started");
  blocks_launched_ = stats.counter(name + ".blocks_launched", "thread blocks dispatched to SMs");
  blocks_completed_ = stats.counter(name + ".blocks_completed", "thread blocks finished");
  dispatch_stall_cycles_ = stats.counter(name + ".dispatch_stall_cycles",
                                         "cycles in which the next block was ready but no SM had room for it");
}

void GigaThread::advance(std::uint64_t cycle) {
  if (cycle < now_)
    throw std::logic_error("GigaThread: time went backwards (cycle " + std::to_string(cycle) + " after " +
                           std::to_string(now_) + ")");
  now_ = cycle;
  while (!releases_.empty() && releases_.front().cycle <= cycle) {
    usage_[releases_.front().sm].remove(releases_.front().cost);
    releases_.pop_front();
  }
}

void GigaThread::startKernel(std::uint64_t total_blocks, const sm::BlockCost& cost, std::uint64_t cycle) {
  if (active_)
    throw std::logic_error("GigaThread: a kernel started while the previous one has " +
                           std::to_string(total_ - completed_) + " of " + std::to_string(total_) +
                           " blocks unfinished");
  if (total_blocks > 0 && !sm::fits(sm_, sm::SmUsage{}, cost))
    throw std::invalid_argument("GigaThread: a block (" + std::to_string(cost.threads) + " threads, " +
                                std::to_string(cost.registers) + " registers, " + std::to_string(cost.shared_bytes) +
                                " bytes of shared memory) fits on no SM");
  advance(cycle);
  started_ = true;
  aborted_ = false;
  active_ = total_blocks > 0;
  total_ = total_blocks;
  launched_ = completed_ = 0;
  cost_ = cost;
  first_dispatch_cycle_ = cycle + params_.launch_latency_cycles + params_.dispatch_latency_cycles;
  stalled_ = false;
  ++*kernels_launched_;
}

bool GigaThread::nextDispatch(std::uint64_t cycle, std::uint64_t* block, std::uint32_t* sm) {
  advance(cycle);
  if (!active_ || launched_ == total_ || cycle < first_dispatch_cycle_) return false;
  if (quota_cycle_ != cycle) {
    quota_cycle_ = cycle;
    dispatched_this_cycle_ = 0;
  }
  if (dispatched_this_cycle_ >= params_.blocks_per_cycle) return false;

  const std::uint32_t n = numSms();
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t s = (next_sm_ + i) % n;
    if (!sm::fits(sm_, usage_[s], cost_)) continue;
    usage_[s].add(cost_);
    resident_[s]++;
    *block = launched_++;
    *sm = s;
    next_sm_ = (s + 1) % n;
    dispatched_this_cycle_++;
    ++*blocks_launched_;
    if (stalled_) {
      *dispatch_stall_cycles_ += cycle - stall_since_;
      stalled_ = false;
    }
    // If the next block already has no room, it waits from the next moment it could go: the
    // caller may skip the cycles in between (idle), so the wait starts here, not at a later call.
    if (launched_ < total_ && !fitsSomewhere()) {
      stalled_ = true;
      stall_since_ = dispatched_this_cycle_ >= params_.blocks_per_cycle ? cycle + 1 : cycle;
    }
    return true;
  }
  // The next block is ready but there is no room for it.
  if (!stalled_) {
    stalled_ = true;
    stall_since_ = cycle;
  }
  return false;
}

void GigaThread::blockFinished(std::uint32_t sm, std::uint64_t cycle) {
  if (sm >= numSms())
    throw std::logic_error("GigaThread: a block finished on SM " + std::to_string(sm) + ", but there are " +
                           std::to_string(numSms()) + " SMs");
  if (resident_[sm] == 0 && aborted_) return;  // a block of the dropped kernel
  if (resident_[sm] == 0)
    throw std::logic_error("GigaThread: SM " + std::to_string(sm) + " reported a finished block but runs none");
  advance(cycle);
  resident_[sm]--;
  releases_.push_back({cycle + params_.dispatch_latency_cycles, sm, cost_});
  completed_++;
  ++*blocks_completed_;
  if (completed_ == total_) active_ = false;
}

void GigaThread::abortKernel() {
  active_ = false;
  aborted_ = true;
  stalled_ = false;
  releases_.clear();
  std::fill(usage_.begin(), usage_.end(), sm::SmUsage{});
  std::fill(resident_.begin(), resident_.end(), 0u);
}

bool GigaThread::fitsSomewhere() const {
  return std::any_of(usage_.begin(), usage_.end(), [this](const sm::SmUsage& u) { return sm::fits(sm_, u, cost_); });
}

bool GigaThread::idle() const {
  if (!active_ || launched_ == total_) return true;
  if (now_ < first_dispatch_cycle_) return false;  // the start latency is running
  return releases_.empty() && !fitsSomewhere();
}

std::uint64_t GigaThread::wakeCycle() const {
  if (!active_ || launched_ == total_) return now_;
  if (now_ < first_dispatch_cycle_) return first_dispatch_cycle_;
  if (fitsSomewhere()) {
    const bool quota_used = quota_cycle_ == now_ && dispatched_this_cycle_ >= params_.blocks_per_cycle;
    return quota_used ? now_ + 1 : now_;
  }
  return releases_.empty() ? now_ : std::max(releases_.front().cycle, first_dispatch_cycle_);
}

}  // namespace scgpu
