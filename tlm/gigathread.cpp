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
    changed();
  }
}

GigaThread::Kernel* GigaThread::find(std::uint32_t kernel) {
  for (Kernel& k : kernels_)
    if (k.id == kernel) return &k;
  return nullptr;
}
const GigaThread::Kernel* GigaThread::find(std::uint32_t kernel) const {
  return const_cast<GigaThread*>(this)->find(kernel);
}

void GigaThread::startKernel(std::uint32_t kernel, std::uint64_t total_blocks, const sm::BlockCost& cost,
                             std::uint64_t cycle, std::uint32_t priority, BlockOrder order) {
  if (find(kernel))
    throw std::logic_error("GigaThread: kernel " + std::to_string(kernel) + " started while it is still known");
  if (total_blocks > 0 && !sm::fits(sm_, sm::SmUsage{}, cost))
    throw std::invalid_argument("GigaThread: a block (" + std::to_string(cost.threads) + " threads, " +
                                std::to_string(cost.registers) + " registers, " + std::to_string(cost.shared_bytes) +
                                " bytes of shared memory) fits on no SM");
  advance(cycle);
  aborted_.erase(std::remove(aborted_.begin(), aborted_.end(), kernel), aborted_.end());
  Kernel k;
  k.id = kernel;
  k.priority = priority;
  k.seq = next_seq_++;
  k.total = total_blocks;
  k.cost = cost;
  k.order = std::move(order);
  k.first_dispatch_cycle = cycle + params_.launch_latency_cycles + params_.dispatch_latency_cycles;
  k.resident.assign(numSms(), 0);
  // After every kernel of higher or equal priority: the order is priority, then start order.
  auto at = std::find_if(kernels_.begin(), kernels_.end(), [&](const Kernel& o) { return o.priority < priority; });
  kernels_.insert(at, std::move(k));
  changed();
  ++*kernels_launched_;
}

const GigaThread::Kernel* GigaThread::head() const {
  for (const Kernel& k : kernels_)
    if (k.launched < k.total && now_ >= k.first_dispatch_cycle) return &k;
  return nullptr;
}

bool GigaThread::nextDispatch(std::uint64_t cycle, std::uint32_t* kernel, std::uint64_t* block, std::uint32_t* sm) {
  advance(cycle);
  const Kernel* h = head();
  if (!h) return false;
  if (quota_cycle_ != cycle) {
    quota_cycle_ = cycle;
    dispatched_this_cycle_ = 0;
  }
  if (dispatched_this_cycle_ >= params_.blocks_per_cycle) return false;

  Kernel& k = *find(h->id);
  const std::uint32_t n = numSms();
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t s = (next_sm_ + i) % n;
    if (!sm::fits(sm_, usage_[s], k.cost)) continue;
    usage_[s].add(k.cost);
    changed();
    resident_[s]++;
    k.resident[s]++;
    *kernel = k.id;
    *block = k.order ? k.order(k.launched) : k.launched;
    k.launched++;
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
    const Kernel* next = head();
    if (next && !fitsSomewhere(*next)) {
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

void GigaThread::blockFinished(std::uint32_t sm, std::uint32_t kernel, std::uint64_t cycle) {
  if (sm >= numSms())
    throw std::logic_error("GigaThread: a block finished on SM " + std::to_string(sm) + ", but there are " +
                           std::to_string(numSms()) + " SMs");
  Kernel* k = find(kernel);
  if (!k && std::find(aborted_.begin(), aborted_.end(), kernel) != aborted_.end()) return;  // dropped
  if (!k || k->resident[sm] == 0)
    throw std::logic_error("GigaThread: SM " + std::to_string(sm) + " reported a finished block of kernel " +
                           std::to_string(kernel) + " but runs none");
  advance(cycle);
  resident_[sm]--;
  k->resident[sm]--;
  releases_.push_back({cycle + params_.dispatch_latency_cycles, sm, k->cost});
  k->completed++;
  ++*blocks_completed_;
}

bool GigaThread::kernelDone(std::uint32_t kernel) const {
  const Kernel* k = find(kernel);
  return k && k->completed == k->total;
}

void GigaThread::forgetKernel(std::uint32_t kernel) {
  kernels_.erase(std::remove_if(kernels_.begin(), kernels_.end(), [&](const Kernel& k) { return k.id == kernel; }),
                 kernels_.end());
  changed();
}

void GigaThread::abortAll() {
  for (const Kernel& k : kernels_) aborted_.push_back(k.id);
  kernels_.clear();
  changed();
  stalled_ = false;
  releases_.clear();
  std::fill(usage_.begin(), usage_.end(), sm::SmUsage{});
  std::fill(resident_.begin(), resident_.end(), 0u);
}

std::uint64_t GigaThread::blocksLaunched(std::uint32_t kernel) const {
  const Kernel* k = find(kernel);
  return k ? k->launched : 0;
}
std::uint64_t GigaThread::blocksCompleted(std::uint32_t kernel) const {
  const Kernel* k = find(kernel);
  return k ? k->completed : 0;
}
std::uint64_t GigaThread::totalBlocks(std::uint32_t kernel) const {
  const Kernel* k = find(kernel);
  return k ? k->total : 0;
}

bool GigaThread::fitsSomewhere(const Kernel& k) const {
  if (fit_changed_ != changed_ || fit_kernel_ != k.id) {
    fit_ = std::any_of(usage_.begin(), usage_.end(), [&](const sm::SmUsage& u) { return sm::fits(sm_, u, k.cost); });
    fit_changed_ = changed_;
    fit_kernel_ = k.id;
  }
  return fit_;
}

bool GigaThread::idle() const {
  for (const Kernel& k : kernels_)
    if (k.launched < k.total && now_ < k.first_dispatch_cycle) return false;  // a start latency is running
  const Kernel* h = head();
  if (!h) return true;
  return releases_.empty() && !fitsSomewhere(*h);
}

std::uint64_t GigaThread::wakeCycle() const {
  std::uint64_t wake = ~0ull;
  for (const Kernel& k : kernels_)
    if (k.launched < k.total && now_ < k.first_dispatch_cycle) wake = std::min(wake, k.first_dispatch_cycle);
  if (const Kernel* h = head()) {
    if (fitsSomewhere(*h)) {
      const bool quota_used = quota_cycle_ == now_ && dispatched_this_cycle_ >= params_.blocks_per_cycle;
      wake = std::min(wake, quota_used ? now_ + 1 : now_);
    } else if (!releases_.empty()) {
      wake = std::min(wake, releases_.front().cycle);
    }
  }
  return wake == ~0ull ? now_ : wake;
}

}  // namespace scgpu
