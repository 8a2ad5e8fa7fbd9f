// PathFilter: component-path globs with index sets (see tracer.h).
#include <cctype>
#include <stdexcept>

#include "tlm/trace/tracer.h"

namespace scgpu::trace {
namespace {

using Token = PathFilter::Token;

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::uint64_t parseNumber(std::string_view s, std::size_t& i, std::string_view pattern) {
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) {
    throw std::invalid_argument("trace filter '" + std::string(pattern) + "': expected an index in [...]");
  }
  std::uint64_t n = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    n = n * 10 + std::uint64_t(s[i++] - '0');
    if (n > (std::uint64_t(1) << 40)) throw std::invalid_argument("trace filter '" + std::string(pattern) + "': index too large");
  }
  return n;
}

std::vector<Token> compile(std::string_view p) {
  if (p.empty()) throw std::invalid_argument("trace filter: empty pattern");
  std::vector<Token> out;
  for (std::size_t i = 0; i < p.size();) {
    const char c = p[i];
    Token t;
    if (c == '*') {
      t.type = Token::Star;
      ++i;
    } else if (c == '?') {
      t.type = Token::Quest;
      ++i;
    } else if (c == '[') {
      t.type = Token::Index;
      ++i;
      if (i < p.size() && p[i] == '*') {
        ++i;  // any index: ranges stay empty
      } else {
        for (;;) {
          const std::uint64_t lo = parseNumber(p, i, p);
          std::uint64_t hi = lo;
          if (i < p.size() && p[i] == '-') {
            ++i;
            hi = parseNumber(p, i, p);
            if (hi < lo) throw std::invalid_argument("trace filter '" + std::string(p) + "': empty index range");
          }
          t.ranges.emplace_back(lo, hi);
          if (i < p.size() && p[i] == ',') {
            ++i;
            continue;
          }
          break;
        }
      }
      if (i >= p.size() || p[i] != ']') throw std::invalid_argument("trace filter '" + std::string(p) + "': expected ']'");
      ++i;
    } else if (isNameChar(c) || c == '.') {
      t.type = Token::Lit;
      t.c = c;
      ++i;
    } else {
      throw std::invalid_argument("trace filter '" + std::string(p) + "': unexpected '" + std::string(1, c) + "'");
    }
    out.push_back(std::move(t));
    // A name that ends a component without an index set also matches the name with an index.
    const Token& last = out.back();
    if (last.type == Token::Lit && last.c != '.' && (i == p.size() || p[i] == '.')) {
      Token opt;
      opt.type = Token::OptIndex;
      out.push_back(std::move(opt));
    }
  }
  return out;
}

// "[digits]" at s[i]: its value and the position after it.
bool readIndex(std::string_view s, std::size_t i, std::uint64_t& n, std::size_t& end) {
  if (i >= s.size() || s[i] != '[') return false;
  std::size_t j = i + 1;
  n = 0;
  if (j >= s.size() || !std::isdigit(static_cast<unsigned char>(s[j]))) return false;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) n = n * 10 + std::uint64_t(s[j++] - '0');
  if (j >= s.size() || s[j] != ']') return false;
  end = j + 1;
  return true;
}

bool inRanges(const Token& t, std::uint64_t n) {
  if (t.ranges.empty()) return true;
  for (const auto& [lo, hi] : t.ranges) {
    if (n >= lo && n <= hi) return true;
  }
  return false;
}

bool matchFrom(const std::vector<Token>& p, std::size_t ti, std::string_view s, std::size_t si) {
  while (ti < p.size()) {
    const Token& t = p[ti];
    switch (t.type) {
      case Token::Lit:
        if (si >= s.size() || s[si] != t.c) return false;
        ++ti;
        ++si;
        break;
      case Token::Quest:
        if (si >= s.size()) return false;
        ++ti;
        ++si;
        break;
      case Token::Star:
        for (std::size_t k = si; k <= s.size(); ++k) {
          if (matchFrom(p, ti + 1, s, k)) return true;
        }
        return false;
      case Token::Index: {
        std::uint64_t n;
        std::size_t end;
        if (!readIndex(s, si, n, end) || !inRanges(t, n)) return false;
        ++ti;
        si = end;
        break;
      }
      case Token::OptIndex: {
        std::uint64_t n;
        std::size_t end;
        if (readIndex(s, si, n, end) && matchFrom(p, ti + 1, s, end)) return true;
        ++ti;
        break;
      }
    }
  }
  return si == s.size();
}

}  // namespace

PathFilter::PathFilter(const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns) {
    if (!p.empty()) patterns_.push_back(compile(p));
  }
}

bool PathFilter::matches(std::string_view path) const {
  if (patterns_.empty()) return true;
  // From the start of the path or of its second component (the top component, "gpu", may be
  // left out) to the end of any component: a pattern naming a block selects all below it.
  std::vector<std::size_t> starts{0}, ends;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '.') {
      if (starts.size() == 1) starts.push_back(i + 1);
      ends.push_back(i);
    }
  }
  ends.push_back(path.size());
  for (const auto& p : patterns_) {
    for (std::size_t b : starts) {
      for (std::size_t e : ends) {
        if (e >= b && matchFrom(p, 0, path.substr(b, e - b), 0)) return true;
      }
    }
  }
  return false;
}

std::vector<std::string> PathFilter::split(std::string_view list) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace scgpu::trace
