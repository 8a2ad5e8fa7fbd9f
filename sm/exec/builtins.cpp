#include "sm/exec/builtins.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "sm/exec/mem_access.h"
#include "sm/global_effects.h"
#include "sm/simt.h"

namespace scgpu::sm {
namespace {

std::uint64_t readArg(Warp& w, int lane, std::uint32_t local_base, const ptx::CallSite& site, std::size_t i) {
  std::uint64_t v = 0;
  if (i < site.arg_offsets.size())
    std::memcpy(&v, localBytes(w, lane, local_base + site.arg_offsets[i]), std::min<std::uint32_t>(8, site.arg_sizes[i]));
  return v;
}

void writeRet(Warp& w, int lane, std::uint32_t local_base, const ptx::CallSite& site, std::uint64_t v) {
  if (site.ret_offsets.empty()) return;
  std::memcpy(localBytes(w, lane, local_base + site.ret_offsets[0]), &v, std::min<std::uint32_t>(8, site.ret_sizes[0]));
}

// A NUL-terminated string at a generic address, bounded so a bad pointer cannot run away.
std::string readString(ExecContext& c, int lane, std::uint64_t addr) {
  std::string s;
  if (addr == 0) return "(null)";
  for (std::size_t i = 0; i < 4096; ++i) {
    char ch = char(*resolve<ptx::Space::Generic>(c, lane, addr + i, 1, false));
    if (!ch) break;
    s.push_back(ch);
  }
  return s;
}

template <typename T>
T readBuffer(ExecContext& c, int lane, std::uint64_t& addr) {
  addr = (addr + sizeof(T) - 1) / sizeof(T) * sizeof(T);
  T v;
  std::memcpy(&v, resolve<ptx::Space::Generic>(c, lane, addr, sizeof(T), false), sizeof(T));
  addr += sizeof(T);
  return v;
}

// Characters one conversion can produce: the size of the buffer it is formatted into, less the NUL.
constexpr std::size_t kMaxConversionChars = 511;

// A conversion's flags, width and precision with every number at most kMaxConversionChars: a
// wider field could only be cut to the buffer, and the C library would still pad (or, for
// `%.999999999f`, allocate) all of it on the host.
std::string boundedFlags(const std::string& flags) {
  std::string out;
  for (std::size_t k = 0; k < flags.size();) {
    if (!std::isdigit(static_cast<unsigned char>(flags[k]))) {
      out.push_back(flags[k++]);
      continue;
    }
    std::size_t end = k;
    while (end < flags.size() && std::isdigit(static_cast<unsigned char>(flags[end]))) ++end;
    const std::string digits = flags.substr(k, end - k);
    // A leading 0 is the zero-padding flag, not part of the width.
    const std::size_t lead = digits[0] == '0' ? digits.find_first_not_of('0') : 0;
    const std::string number = lead == std::string::npos ? "" : digits.substr(lead);
    out += digits.substr(0, lead == std::string::npos ? digits.size() : lead);
    if (!number.empty())
      out += number.size() > 3 || std::stoul(number) > kMaxConversionChars ? std::to_string(kMaxConversionChars)
                                                                          : number;
    k = end;
  }
  return out;
}

// Formats one lane's printf the way the CUDA device runtime does: the arguments sit in a buffer,
// each aligned to its size; integers without a length modifier are 4 bytes, floats are doubles.
std::string formatPrintf(ExecContext& c, int lane, const std::string& fmt, std::uint64_t args, int& count) {
  std::string out;
  count = 0;
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out.push_back('%');
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < fmt.size() && std::strchr("-+ #0", fmt[j])) ++j;
    while (j < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[j])) || fmt[j] == '.')) ++j;
    int longs = 0;
    bool half = false;
    while (j < fmt.size() && std::strchr("hlLqjzt", fmt[j])) {
      if (fmt[j] == 'l' || fmt[j] == 'L' || fmt[j] == 'q' || fmt[j] == 'j' || fmt[j] == 'z' || fmt[j] == 't') ++longs;
      if (fmt[j] == 'h') half = true;
      ++j;
    }
    if (j >= fmt.size()) {
      out += fmt.substr(i);
      break;
    }
    char conv = fmt[j];
    // The spec without length modifiers, re-targeted at the host types used below.
    std::string spec = fmt.substr(i, j - i);
    std::string flags;
    for (char ch : spec)
      if (!std::strchr("hlLqjzt", ch)) flags.push_back(ch);
    flags = boundedFlags(flags);
    char buf[kMaxConversionChars + 1];
    (void)half;
    switch (conv) {
      case 'd': case 'i': {
        long long v = longs ? readBuffer<std::int64_t>(c, lane, args) : readBuffer<std::int32_t>(c, lane, args);
        std::snprintf(buf, sizeof buf, (flags + "ll" + conv).c_str(), v);
        break;
      }
      case 'u': case 'x': case 'X': case 'o': {
        unsigned long long v = longs ? readBuffer<std::uint64_t>(c, lane, args) : readBuffer<std::uint32_t>(c, lane, args);
        std::snprintf(buf, sizeof buf, (flags + "ll" + conv).c_str(), v);
        break;
      }
      case 'c': {
        int v = readBuffer<std::int32_t>(c, lane, args);
        std::snprintf(buf, sizeof buf, (flags + conv).c_str(), v);
        break;
      }
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        double v = readBuffer<double>(c, lane, args);
        std::snprintf(buf, sizeof buf, (flags + conv).c_str(), v);
        break;
      }
      case 's': {
        std::uint64_t p = readBuffer<std::uint64_t>(c, lane, args);
        std::string s = readString(c, lane, p);
        std::snprintf(buf, sizeof buf, (flags + conv).c_str(), s.c_str());
        break;
      }
      case 'p': {
        std::uint64_t p = readBuffer<std::uint64_t>(c, lane, args);
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(p));
        break;
      }
      default:
        std::snprintf(buf, sizeof buf, "%s", fmt.substr(i, j - i + 1).c_str());
        --count;
        break;
    }
    ++count;
    out += buf;
    i = j;
  }
  return out;
}

}  // namespace

void callBuiltin(ExecContext& c, const ptx::DecodedFunction& f, const ptx::CallSite& site) {
  Warp& w = *c.warp;
  const std::uint32_t base = w.frames.back().local_base;
  using B = ptx::DecodedFunction::Builtin;
  switch (f.builtin) {
    case B::Vprintf:
      forLanes(c.mask, [&](int lane) {
        std::string fmt = readString(c, lane, readArg(w, lane, base, site, 0));
        int count = 0;
        std::string text = formatPrintf(c, lane, fmt, readArg(w, lane, base, site, 1), count);
        // The timing model appends at the end of the cycle, in SM order.
        GlobalEffects::callOrRun(c.effects, [launch = c.launch, text = std::move(text)] {
          if (launch->printf_output.size() + text.size() <= launch->printf_limit_bytes) launch->printf_output += text;
        });
        writeRet(w, lane, base, site, std::uint64_t(std::int64_t(count)));
      });
      break;
    case B::AssertFail: {
      int lane = __builtin_ctz(c.mask);
      std::string msg = readString(c, lane, readArg(w, lane, base, site, 0));
      std::string file = readString(c, lane, readArg(w, lane, base, site, 1));
      std::uint32_t line = std::uint32_t(readArg(w, lane, base, site, 2));
      std::string func = readString(c, lane, readArg(w, lane, base, site, 3));
      // Each failing thread prints the line a GPU prints (into the printf output, as CUDA's device
      // assert does) before the kernel stops.
      std::string lines;
      const std::uint32_t* ctaid = c.block->ctaid;
      forLanes(c.mask, [&](int l) {
        lines += fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.\n", file, line,
                             func, ctaid[0], ctaid[1], ctaid[2], w.tid[l][0], w.tid[l][1], w.tid[l][2], msg);
      });
      GlobalEffects::callOrRun(c.effects, [launch = c.launch, lines = std::move(lines)] {
        if (launch->printf_output.size() + lines.size() <= launch->printf_limit_bytes) launch->printf_output += lines;
      });
      throw FaultSignal{"assert", file + ":" + std::to_string(line) + ": " + func + ": Assertion `" + msg + "` failed.",
                        std::uint32_t(lane)};
    }
    case B::Malloc:
      forLanes(c.mask, [&](int lane) {
        GlobalEffects::callOrRun(c.effects, [memory = c.launch->memory, size = readArg(w, lane, base, site, 0), &w,
                                             lane, base, &site] {
          writeRet(w, lane, base, site, memory->allocate(size, "device malloc"));
        });
      });
      break;
    case B::Free:
      forLanes(c.mask, [&](int lane) {
        GlobalEffects::callOrRun(c.effects, [memory = c.launch->memory, addr = readArg(w, lane, base, site, 0)] {
          memory->release(addr);
        });
      });
      break;
    case B::None:
      break;
  }
}

}  // namespace scgpu::sm
