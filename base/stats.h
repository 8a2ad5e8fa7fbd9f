// One registry of named statistics for a whole run: counters, and histograms, registered by
// components under hierarchical names ("gpu.sm[3].sched[1].issued"). Components hold plain
// pointers to their counters, so counting costs one increment; the registry dumps everything as
// JSON in name order (deterministic) and evaluates derived metrics at the end.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace scgpu {

struct Counter {
  std::uint64_t value = 0;
  void operator++() { ++value; }
  void operator+=(std::uint64_t n) { value += n; }
};

// Fixed-bucket histogram of non-negative integer samples (bucket i holds samples in
// [i*width, (i+1)*width); the last bucket takes everything above).
class Histogram {
 public:
  Histogram(std::uint32_t buckets, std::uint64_t width) : counts_(buckets, 0), width_(width ? width : 1) {}
  void sample(std::uint64_t v) {
    std::size_t b = std::size_t(v / width_);
    if (b >= counts_.size()) b = counts_.size() - 1;
    counts_[b]++;
    total_ += v;
    samples_++;
    if (v > max_) max_ = v;
  }
  std::uint64_t samples() const { return samples_; }
  double mean() const { return samples_ ? double(total_) / double(samples_) : 0.0; }
  std::uint64_t max() const { return max_; }
  nlohmann::json toJson() const;

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t width_;
  std::uint64_t total_ = 0, samples_ = 0, max_ = 0;
};

class StatsRegistry {
 public:
  // Registering the same name twice is a programming error (throws std::logic_error).
  Counter* counter(const std::string& name, const std::string& description = "");
  Histogram* histogram(const std::string& name, std::uint32_t buckets, std::uint64_t width,
                       const std::string& description = "");
  // A derived metric, set once its inputs are final (IPC, hit rates, bandwidth).
  void setMetric(const std::string& name, double value, const std::string& description = "");

  std::uint64_t value(const std::string& counter_name) const;  // 0 when absent
  bool has(const std::string& name) const;
  // Sum of every counter whose name matches "prefix*suffix" (e.g. "gpu.sm[", "].issued").
  std::uint64_t sum(const std::string& prefix, const std::string& suffix) const;

  // {"counters": {name: value}, "histograms": {...}, "metrics": {...}} in name order.
  nlohmann::json toJson() const;
  void clear();

 private:
  struct Entry {
    Counter* counter = nullptr;  // in counters_
    std::unique_ptr<Histogram> histogram;
    std::string description;
  };
  std::map<std::string, Entry> entries_;
  // The counters side by side, in the order they were registered (a deque never moves them): a
  // component's counters share cache lines, and the per-cycle ones of 132 SMs stay few lines.
  std::deque<Counter> counters_;
  std::map<std::string, double> metrics_;
};

}  // namespace scgpu
