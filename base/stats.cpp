#include "base/stats.h"

#include <stdexcept>

namespace scgpu {

nlohmann::json Histogram::toJson() const {
  return {{"bucket_width", width_}, {"buckets", counts_}, {"samples", samples_}, {"mean", mean()}, {"max", max_}};
}

Counter* StatsRegistry::counter(const std::string& name, const std::string& description) {
  auto [it, inserted] = entries_.try_emplace(name);
  if (!inserted) throw std::logic_error("statistic registered twice: " + name);
  it->second.counter = &counters_.emplace_back();
  it->second.description = description;
  return it->second.counter;
}

Histogram* StatsRegistry::histogram(const std::string& name, std::uint32_t buckets, std::uint64_t width,
                                    const std::string& description) {
  auto [it, inserted] = entries_.try_emplace(name);
  if (!inserted) throw std::logic_error("statistic registered twice: " + name);
  it->second.histogram = std::make_unique<Histogram>(buckets ? buckets : 1, width);
  it->second.description = description;
  return it->second.histogram.get();
}

void StatsRegistry::setMetric(const std::string& name, double value, const std::string&) { metrics_[name] = value; }

std::uint64_t StatsRegistry::value(const std::string& name) const {
  auto it = entries_.find(name);
  return it != entries_.end() && it->second.counter ? it->second.counter->value : 0;
}

bool StatsRegistry::has(const std::string& name) const { return entries_.count(name) || metrics_.count(name); }

std::uint64_t StatsRegistry::sum(const std::string& prefix, const std::string& suffix) const {
  std::uint64_t total = 0;
  for (auto it = entries_.lower_bound(prefix); it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    const std::string& n = it->first;
    if (it->second.counter && n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      total += it->second.counter->value;
  }
  return total;
}

nlohmann::json StatsRegistry::toJson() const {
  nlohmann::json counters = nlohmann::json::object(), histograms = nlohmann::json::object(),
                 metrics = nlohmann::json::object();
  for (const auto& [name, e] : entries_) {
    if (e.counter) counters[name] = e.counter->value;
    if (e.histogram) histograms[name] = e.histogram->toJson();
  }
  for (const auto& [name, v] : metrics_) metrics[name] = v;
  return {{"counters", counters}, {"histograms", histograms}, {"metrics", metrics}};
}

void StatsRegistry::clear() {
  entries_.clear();
  counters_.clear();
  metrics_.clear();
}

}  // namespace scgpu
