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

// Matches pattern `p` against `s` from position 0 and returns, for every end position e of s,
// whether p matches s[0, e). A simulation of the pattern's automaton: reach[i][t] says token t
// can start at position i. Each (position, token) pair is visited once, so the cost is
// O(|s| x |p|) whatever the stars (a backtracking matcher is exponential in them).
std::vector<char> matchEnds(const std::vector<Token>& p, std::string_view s) {
  const std::size_t n = s.size(), m = p.size();
  // An "[digits]" index at each position: its value and where it ends (computed once).
  std::vector<std::uint64_t> index_value(n + 1, 0);
  std::vector<std::size_t> index_end(n + 1, 0);
  for (std::size_t i = 0; i <= n; ++i) {
    std::uint64_t v;
    std::size_t e;
    if (readIndex(s, i, v, e)) {
      index_value[i] = v;
      index_end[i] = e;
    }
  }
  std::vector<std::vector<char>> reach(n + 1, std::vector<char>(m + 1, 0));
  reach[0][0] = 1;
  for (std::size_t i = 0; i <= n; ++i) {
    auto& here = reach[i];
    // Tokens in increasing order: epsilon moves (Star, OptIndex skipping) only go forward.
    for (std::size_t t = 0; t < m; ++t) {
      if (!here[t]) continue;
      const Token& tok = p[t];
      const bool has_index = index_end[i] != 0;
      switch (tok.type) {
        case Token::Lit:
          if (i < n && s[i] == tok.c) reach[i + 1][t + 1] = 1;
          break;
        case Token::Quest:
          if (i < n) reach[i + 1][t + 1] = 1;
          break;
        case Token::Star:
          here[t + 1] = 1;                  // matches nothing more
          if (i < n) reach[i + 1][t] = 1;   // or one more character
          break;
        case Token::Index:
          if (has_index && inRanges(tok, index_value[i])) reach[index_end[i]][t + 1] = 1;
          break;
        case Token::OptIndex:
          here[t + 1] = 1;
          if (has_index) reach[index_end[i]][t + 1] = 1;
          break;
      }
    }
  }
  std::vector<char> ends(n + 1, 0);
  for (std::size_t i = 0; i <= n; ++i) ends[i] = reach[i][m];
  return ends;
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
      const std::vector<char> matched = matchEnds(p, path.substr(b));
      for (std::size_t e : ends)
        if (e >= b && matched[e - b]) return true;
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
