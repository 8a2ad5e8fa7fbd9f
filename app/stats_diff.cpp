#include "app/stats_diff.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "base/input_file.h"

namespace scgpu::cli {
namespace {

using nlohmann::json;

json readObject(const std::string& path) {
  const std::string text = readInputFile(path, "statistics file");
  const std::uint64_t max_depth = inputLimits().json_depth;
  // The depth check runs while parsing: a document nested past the limit is refused before the
  // recursive parts (flatten, the diff) see it.
  const json::parser_callback_t depth_check = [&](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        std::uint64_t(depth) + 1 > max_depth)
      throw LimitError(inputLimitMessage(path, "the JSON nesting depth", std::uint64_t(depth) + 1, "json_depth",
                                         max_depth));
    return true;
  };
  json j;
  try {
    j = json::parse(text, depth_check);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: error: not valid JSON (at byte {})", path, e.byte));
  } catch (const json::exception& e) {
    // Valid syntax that nlohmann cannot hold (a number past double's range): say which file.
    std::string what = e.what();
    if (const auto close = what.find("] "); what.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      what = what.substr(close + 2);
    throw std::runtime_error(fmt::format("{}: error: not usable JSON: {}", path, what));
  }
  if (!j.is_object())
    throw std::runtime_error(fmt::format("{}: error: the top level is not an object (is it a `scgpu run --stats-json` file?)",
                                         path));
  return j;
}

// nlohmann's flatten() with an explicit stack: JSON nested as deep as the user allows (the
// json_depth limit) must not recurse on the host stack. Keys are JSON pointers, as flatten's.
json flatten(const json& root) {
  json out = json::object();
  std::vector<std::pair<const json*, std::string>> stack{{&root, ""}};
  auto escape = [](const std::string& key) {
    std::string e;
    for (char c : key) e += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return e;
  };
  while (!stack.empty()) {
    auto [v, ptr] = stack.back();
    stack.pop_back();
    if (v->is_object() && !v->empty()) {
      for (auto it = v->rbegin(); it != v->rend(); ++it) stack.emplace_back(&*it, ptr + "/" + escape(it.key()));
    } else if (v->is_array() && !v->empty()) {
      for (std::size_t i = v->size(); i-- > 0;) stack.emplace_back(&(*v)[i], ptr + "/" + std::to_string(i));
    } else if (v->is_structured()) {
      out[ptr] = nullptr;  // an empty object or array, as flatten() writes it
    } else {
      out[ptr] = *v;
    }
  }
  return out;
}

struct Line {
  char kind;  // '~' changed, '+' added, '-' removed
  std::string path, text;
};

std::string valueText(const json& v) { return v.dump(); }

// The absolute change of two numbers, exact for integers.
std::string absoluteChange(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    auto wide = [](const json& v) -> __int128 {
      return v.is_number_unsigned() ? __int128(v.get<std::uint64_t>()) : __int128(v.get<std::int64_t>());
    };
    const __int128 d = wide(b) - wide(a);
    const unsigned __int128 mag = d < 0 ? (unsigned __int128)(-d) : (unsigned __int128)d;
    // |d| < 2^65: more than 64 bits only when the values have opposite signs and are huge.
    std::string digits;
    if (mag <= std::numeric_limits<std::uint64_t>::max()) {
      digits = std::to_string(std::uint64_t(mag));
    } else {
      unsigned __int128 m = mag;
      while (m > 0) {
        digits.insert(digits.begin(), char('0' + int(m % 10)));
        m /= 10;
      }
    }
    return (d < 0 ? "-" : "+") + digits;
  }
  return fmt::format("{:+.6g}", b.get<double>() - a.get<double>());
}

}  // namespace

int statsDiff(const std::string& a_path, const std::string& b_path, std::ostream& out,
              const StatsDiffOptions& options) {
  json a, b;
  try {
    a = flatten(readObject(a_path));
    b = flatten(readObject(b_path));
  } catch (const std::exception& e) {
    fmt::print(out, "{}\n", e.what());  // "path: error: ..."
    return 2;
  }
  auto ignored = [&](const std::string& path) {
    return std::any_of(options.ignore.begin(), options.ignore.end(),
                       [&](const std::string& s) { return !s.empty() && path.find(s) != std::string::npos; });
  };

  std::vector<Line> lines;
  std::size_t compared = 0, changed = 0, added = 0, removed = 0, hidden = 0, skipped = 0;
  // flatten() yields objects keyed by JSON pointer, iterated in sorted order: merge the two.
  auto ia = a.cbegin(), ib = b.cbegin();
  const auto ea = a.cend(), eb = b.cend();
  while (ia != ea || ib != eb) {
    int order;
    if (ia == ea) order = 1;
    else if (ib == eb) order = -1;
    else order = ia.key() < ib.key() ? -1 : (ib.key() < ia.key() ? 1 : 0);
    const std::string path = order <= 0 ? ia.key() : ib.key();
    if (ignored(path)) {
      ++skipped;
    } else if (order < 0) {
      ++removed;
      lines.push_back({'-', path, valueText(ia.value())});
    } else if (order > 0) {
      ++added;
      lines.push_back({'+', path, valueText(ib.value())});
    } else {
      ++compared;
      const json& va = ia.value();
      const json& vb = ib.value();
      if (va != vb) {
        if (va.is_number() && vb.is_number()) {
          const double x = va.get<double>(), y = vb.get<double>();
          const bool from_zero = x == 0;
          const double rel = from_zero ? INFINITY : (y - x) / std::fabs(x) * 100.0;
          if (!from_zero && std::fabs(rel) < options.threshold_percent) {
            ++hidden;
          } else {
            ++changed;
            lines.push_back({'~', path,
                             fmt::format("{} -> {}  ({}, {})", valueText(va), valueText(vb), absoluteChange(va, vb),
                                         from_zero ? std::string("from 0") : fmt::format("{:+.2f}%", rel))});
          }
        } else {
          ++changed;
          lines.push_back({'~', path, fmt::format("{} -> {}", valueText(va), valueText(vb))});
        }
      }
    }
    if (order <= 0) ++ia;
    if (order >= 0) ++ib;
  }

  fmt::print(out, "--- {}\n+++ {}\n", a_path, b_path);
  std::size_t width = 0;
  for (const Line& l : lines) width = std::max(width, l.path.size());
  width = std::min<std::size_t>(width, 72);
  for (const Line& l : lines) fmt::print(out, "{} {:<{}}  {}\n", l.kind, l.path, width, l.text);

  const std::size_t differences = changed + added + removed;
  std::string notes;
  if (hidden) notes += fmt::format("; {} change{} under {}% not shown", hidden, hidden == 1 ? "" : "s",
                                   options.threshold_percent);
  if (skipped) notes += fmt::format("; {} ignored", skipped);
  if (differences == 0)
    fmt::print(out, "no differences ({} values compared{})\n", compared, notes);
  else
    fmt::print(out, "{} difference{}: {} changed, {} added, {} removed ({} values compared{})\n", differences,
               differences == 1 ? "" : "s", changed, added, removed, compared, notes);
  return differences == 0 ? 0 : 1;
}

int statsDiff(const std::string& a_path, const std::string& b_path, std::ostream& out, double threshold_percent) {
  StatsDiffOptions options;
  options.threshold_percent = threshold_percent;
  return statsDiff(a_path, b_path, out, options);
}

void addStatsDiffCommand(CLI::App& app) {
  CLI::App* stats = nullptr;
  try {
    stats = app.get_subcommand("stats");
  } catch (const CLI::OptionNotFound&) {
    stats = app.add_subcommand("stats", "Work with statistics files written by `scgpu run --stats-json`");
    stats->require_subcommand(1);
  }
  struct Args {
    std::string a, b;
    StatsDiffOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* diff = stats->add_subcommand("diff", "Show what changed between two statistics files");
  diff->footer(
      "Compares every value by its JSON pointer; prints changed values with absolute and relative change,\n"
      "added and removed keys, and a summary. Exit status: 0 same, 1 different, 2 unreadable input.\n"
      "Example:\n"
      "  scgpu stats diff base.json new.json --threshold 1 --ignore wall_seconds --ignore per_second");
  diff->add_option("A", args->a, "The first (old) statistics JSON")->required();
  diff->add_option("B", args->b, "The second (new) statistics JSON")->required();
  diff->add_option("--threshold", args->options.threshold_percent,
                   "Hide numeric changes smaller than this many percent")
      ->type_name("PCT")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double v = -1;
            try {
              v = std::stod(text);
            } catch (const std::exception&) {
            }
            return v >= 0 && std::isfinite(v) ? "" : "the threshold is a percentage, 0 or more (got '" + text + "')";
          },
          "PCT >= 0"))
      ->capture_default_str();
  diff->add_option("--ignore", args->options.ignore, "Skip values whose JSON pointer contains this (repeatable)")
      ->type_name("SUBSTRING")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  diff->callback([args]() {
    const int code = statsDiff(args->a, args->b, std::cout, args->options);
    std::cout.flush();
    throw CLI::RuntimeError(code);
  });
}

}  // namespace scgpu::cli
