// Robustness: `scgpu` started on bad inputs of every kind (malformed PTX, config YAML and launch
// files, faulting kernels, bad `stats diff` JSON, hostile command lines) must end with the
// documented exit status and a message that says what is wrong — no crash, no hang, no runaway
// memory. Each case runs the real binary in a child process (fork + execv, never a shell) with
// its address space capped at 1 GiB and a generous time bound (a hang guard, not a speed test).
//
// The inputs are the small files in testbench/robustness/ (README.md lists them by category);
// big or pathological ones (deep nesting, 50,000 keys, links to /dev/urandom, FIFOs, a 300 MiB
// sparse file, file names full of shell metacharacters) are made at test time in a copy of that
// directory, which is also the working directory of every case.
//
// Adding a case is one line in a table below. A case whose behaviour the binary does not have
// yet is kept with the DISABLED_ prefix and a `// pending:` comment saying what it does today;
// run those with --gtest_filter='DISABLED_Robustness*' --gtest_also_run_disabled_tests.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

// RLIMIT_AS breaks the sanitizers' shadow memory: a sanitized build runs without the cap (and
// skips the cases that only the cap keeps from eating the machine).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCGPU_ROBUSTNESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SCGPU_ROBUSTNESS_SANITIZED 1
#endif
#endif
#ifndef SCGPU_ROBUSTNESS_SANITIZED
#define SCGPU_ROBUSTNESS_SANITIZED 0
#endif

namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMemoryCap = 1ull << 30;   // RLIMIT_AS of every child
constexpr int kTimeLimitSeconds = 120;              // then the child (and its group) is killed
constexpr std::size_t kMaxCapturedBytes = 1 << 20;  // of stdout + stderr; the rest is drained

// ---------------------------------------------------------------------------------------------
// Running the binary

struct Outcome {
  int status = -1;         // exit status; 128 + N when killed by signal N
  bool timed_out = false;  // killed by the hang guard
  double seconds = 0;
  std::string output;      // stdout and stderr, interleaved as written
};

// The binary under test: this build's, or another build's (a sanitized one, say) named by
// SCGPU_ROBUSTNESS_BINARY; SCGPU_ROBUSTNESS_NO_CAP=1 drops the memory cap, which a sanitized
// binary needs.
std::string binary() {
  const char* b = std::getenv("SCGPU_ROBUSTNESS_BINARY");
  return b && *b ? b : SCGPU_BINARY;
}
bool capped() {
  const char* no_cap = std::getenv("SCGPU_ROBUSTNESS_NO_CAP");
  return !SCGPU_ROBUSTNESS_SANITIZED && !(no_cap && std::string(no_cap) == "1");
}

// Runs the binary with `args` in `cwd`: no shell, stdin from /dev/null, stdout and stderr into
// one pipe, RLIMIT_AS capped (unless `cap` is false), killed with its process group after
// kTimeLimitSeconds.
Outcome runScgpu(const std::vector<std::string>& args, const fs::path& cwd, bool cap, int interrupt_after_ms = -1) {
  std::vector<std::string> argv_strings{binary()};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const std::string dir = cwd.string();

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    ::setpgid(0, 0);  // its own group, so that the guard also kills what it spawns
    const int in = ::open("/dev/null", O_RDONLY);
    if (in < 0 || ::dup2(in, 0) < 0 || ::dup2(fds[1], 1) < 0 || ::dup2(fds[1], 2) < 0) ::_exit(125);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    if (cap) {
      const struct rlimit limit{kMemoryCap, kMemoryCap};
      if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(124);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: no race with the child's own call
  ::close(fds[1]);

  Outcome out;
  const auto deadline = start + std::chrono::seconds(kTimeLimitSeconds);
  auto remainingMs = [&] {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return left.count() > 0 ? int(left.count()) : 0;
  };
  auto kill = [&] {
    out.timed_out = true;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  };
  char buf[65536];
  bool interrupted = false;
  while (true) {
    struct pollfd p{fds[0], POLLIN, 0};
    int ms = remainingMs();
    if (interrupt_after_ms >= 0 && !interrupted) {  // Ctrl-C, as a terminal sends it
      const auto since = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      if (since.count() >= interrupt_after_ms) {
        ::kill(pid, SIGINT);
        interrupted = true;
      } else {
        ms = std::min(ms, int(interrupt_after_ms - since.count()));
      }
    }
    if (ms == 0) {
      kill();
      break;
    }
    const int r = ::poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;  // timeout: the next round kills (or interrupts)
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of output
    if (out.output.size() < kMaxCapturedBytes)
      out.output.append(buf, std::min<std::size_t>(std::size_t(n), kMaxCapturedBytes - out.output.size()));
  }
  ::close(fds[0]);
  // The pipe closed (or the guard fired); the child may still be on its way out.
  int wstatus = 0;
  while (true) {
    const pid_t w = ::waitpid(pid, &wstatus, out.timed_out ? 0 : WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (w == 0) {
      if (remainingMs() == 0) kill();
      else ::usleep(10000);
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(wstatus)) out.status = WEXITSTATUS(wstatus);
  else if (WIFSIGNALED(wstatus)) out.status = 128 + WTERMSIG(wstatus);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The working directory: a copy of testbench/robustness plus the inputs made at test time

// A file name that a shell would split into commands: quotes, `;`, `$()`, backticks, spaces.
// Each would-be command touches a marker file in the working directory.
const std::string kMetaName = "oob '\"; touch pwned_semicolon; $(touch pwned_subshell) `touch pwned_backtick` x.yaml";
const std::vector<std::string> kMetaMarkers = {"pwned_semicolon", "pwned_subshell", "pwned_backtick"};
const std::string kMetaSet = "name=x\"'; touch pwned_set; $(touch pwned_set_subshell) `touch pwned_set_backtick`";
const std::vector<std::string> kMetaSetMarkers = {"pwned_set", "pwned_set_subshell", "pwned_set_backtick"};
const std::string kMetaConfig = "$(touch pwned_config); touch pwned_config2 .yaml";
const std::vector<std::string> kMetaConfigMarkers = {"pwned_config", "pwned_config2"};

// A --config path of 5,000 characters (50 components of 99) that does not exist.
std::string longConfigPath() {
  std::string p;
  for (int i = 0; i < 50; ++i) p += (i ? "/" : "") + std::string(99, 'd');
  return p + ".yaml";
}

// `--set name=...` with a value of 10^7 nodes once its aliases are expanded (about 400 bytes).
std::string aliasBombSet() {
  std::string v = "name=[&a0 [x, x, x, x, x, x, x, x, x, x]";
  for (int i = 1; i < 7; ++i) {
    v += ", &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) v += (j ? ", *a" : "*a") + std::to_string(i - 1);
    v += "]";
  }
  return v + "]";
}

void writeFile(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// `text` padded with comment lines (`prefix` starts each) to exactly `size` bytes.
std::string padTo(std::string text, std::size_t size, const std::string& prefix) {
  while (text.size() + 81 <= size) text += prefix + std::string(80 - prefix.size(), '-') + "\n";
  if (text.size() + prefix.size() + 1 <= size) text += prefix + std::string(size - text.size() - prefix.size() - 1, '-') + "\n";
  while (text.size() < size) text += "\n";
  return text;
}

class WorkDir {
 public:
  static const fs::path& get() {
    static WorkDir dir;
    return dir.path_;
  }

 private:
  WorkDir() {
    path_ = fs::temp_directory_path() / ("scgpu_robustness_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::copy(fs::path(SCGPU_TESTBENCH_DIR) / "robustness", path_, fs::copy_options::recursive);
    generate(path_);
  }
  ~WorkDir() {
    std::error_code ec;
    if (!std::getenv("SCGPU_KEEP_ROBUSTNESS_DIR")) fs::remove_all(path_, ec);
  }

  static void generate(const fs::path& d) {
    const std::string hdr = ".version 8.0\n.target sm_90\n.address_size 64\n";
    // --- PTX
    writeFile(d / "ptx/identifier_100k.ptx",
              hdr + "\n.visible .entry k()\n{\n" + "L" + std::string(99999, 'a') + ":\n  ret;\n}\n");
    writeFile(d / "ptx/braces_deep.ptx",
              hdr + "\n.visible .entry k()\n" + repeat("{", 100000) + "\n  ret;\n" + repeat("}", 100000) + "\n");
    writeFile(d / "ptx/braces_open.ptx", hdr + "\n.visible .entry k()\n" + repeat("{", 100000) + "\n");
    {
      std::mt19937 rng(7);  // the same bytes on every platform
      std::string garbage(4096, '\0');
      for (auto& c : garbage) c = char(0x80 | (rng() & 0x7f));  // never ASCII: never a PTX token
      writeFile(d / "ptx/garbage.ptx", garbage);
    }
    fs::create_directory(d / "ptx/directory.ptx");
    fs::create_symlink("/dev/urandom", d / "ptx/urandom.ptx");
    ::mkfifo((d / "ptx/fifo.ptx").c_str(), 0600);
    writeFile(d / "ptx/large.ptx", padTo(hdr + "\n.visible .entry k()\n{\n  ret;\n}\n", 60000, "// "));

    // --- config
    writeFile(d / "config/deep_list_50k.yaml", "extends: tiny\nx: " + repeat("[", 50000) + repeat("]", 50000) + "\n");
    writeFile(d / "config/deep_map_50k.yaml", "extends: tiny\nx: " + repeat("{a: ", 50000) + "1" + repeat("}", 50000) + "\n");
    {
      std::string s = "extends: tiny\n";
      for (int i = 0; i < 50000; ++i) s += "k" + std::to_string(i) + ": 0\n";
      writeFile(d / "config/duplicate_keys_50k.yaml", s + "k0: 1\n");  // line 50002 repeats line 2
    }
    fs::create_symlink("loop2.yaml", d / "config/loop1.yaml");
    fs::create_symlink("loop1.yaml", d / "config/loop2.yaml");
    fs::create_directory(d / "config/directory.yaml");
    fs::create_symlink("/dev/urandom", d / "config/urandom.yaml");
    ::mkfifo((d / "config/fifo.yaml").c_str(), 0600);

    // --- launch files
    fs::create_symlink("/dev/urandom", d / "launch/urandom.yaml");
    ::mkfifo((d / "launch/fifo.yaml").c_str(), 0600);
    fs::create_directory(d / "launch/directory.yaml");
    fs::create_symlink("/dev/full", d / "launch/full.npy");
    fs::create_directory(d / "launch/out_dir");
    writeFile(d / "launch/deep_50k.yaml", "ptx: add_one.ptx\nkernel: add_one\ngrid: 1\nblock: 1\nargs: " +
                                              repeat("[", 50000) + repeat("]", 50000) + "\n");
    {
      std::ifstream ok(d / "launch/ok.yaml");
      std::stringstream ss;
      ss << ok.rdbuf();
      writeFile(d / "launch/large.yaml", padTo(ss.str(), 20000, "# "));
    }

    // --- statistics files
    writeFile(d / "stats/deep_50k.json", repeat("{\"a\": ", 50000) + "1" + repeat("}", 50000) + "\n");
    writeFile(d / "stats/deep_array_50k.json", repeat("[", 50000) + repeat("]", 50000) + "\n");
    {
      // 300 MiB, above the default input_file_bytes (256 MiB), and free: a sparse file.
      const std::string p = (d / "stats/sparse_300m.json").string();
      const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || ::ftruncate(fd, off_t(300) << 20) != 0) throw std::runtime_error("cannot make " + p);
      ::close(fd);
    }
    fs::create_directory(d / "stats/directory.json");
    fs::create_symlink("/dev/urandom", d / "stats/urandom.json");
    ::mkfifo((d / "stats/fifo.json").c_str(), 0600);

    // --- command lines: faulting launch files with hostile names (the PTX is fault/oob.ptx)
    writeFile(d / "fault" / kMetaName, "ptx: oob.ptx\nkernel: oob\ngrid: 3\nblock: 64\n"
                                       "buffers:\n  buf: {type: u32, count: 64}\nargs: [buf]\n");
    fs::create_symlink("/dev/full", d / "full.vcd");
    writeFile(d / "-oob.yaml", "ptx: fault/oob.ptx\nkernel: oob\ngrid: 3\nblock: 64\n"
                               "buffers:\n  buf: {type: u32, count: 64}\nargs: [buf]\n");
  }

  fs::path path_;
};

// Placeholders in a case's arguments, replaced at run time.
std::string substitute(const std::string& arg) {
  static const std::map<std::string, std::string> values = {
      {"@LONG_CONFIG@", longConfigPath()},
      {"@META_LAUNCH@", "fault/" + kMetaName},
      {"@META_SET@", kMetaSet},
      {"@META_CONFIG@", kMetaConfig},
      {"@ALIAS_BOMB_SET@", aliasBombSet()},
  };
  const auto it = values.find(arg);
  return it == values.end() ? arg : it->second;
}

// ---------------------------------------------------------------------------------------------
// The cases

struct Case {
  std::string name;               // the test's name; DISABLED_... for pending cases
  std::vector<std::string> args;  // after `scgpu`, relative to the working directory
  int status;                     // the expected exit status
  // Substrings the output (stdout + stderr) must contain; one starting with '!' must be absent.
  std::vector<std::string> expect;
  bool needs_cap = false;  // only safe under the memory cap (skipped in sanitized builds)
  std::vector<std::string> absent_files = {};  // must not exist in the working directory afterwards
  int alt_status = -1;                          // an equally right outcome, when there are two
  std::vector<std::string> alt_expect = {};
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

std::vector<std::string> withLaunch(std::vector<std::string> tail) {
  std::vector<std::string> out{"run", "launch/ok.yaml", "--mode", "functional"};
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}
std::vector<std::string> config(const std::string& path) { return withLaunch({"--config", path}); }
std::vector<std::string> set(const std::string& kv) { return withLaunch({"--set", kv}); }

// The limit message every exceeded input limit gives (base/input_limits.h).
std::string inputLimit(const std::string& value, const std::string& name, const std::string& limit) {
  return "is " + value + ", above the limit " + name + " = " + limit + " (raise it with --limit " + name + "=N)";
}
std::string inputLimitTail(const std::string& name, const std::string& limit) {
  return "above the limit " + name + " = " + limit + " (raise it with --limit " + name + "=N)";
}

// 1. Malformed PTX, loaded through launch files in ptx/ (`ptx/NAME.yaml` runs `ptx/NAME.ptx`).
std::vector<std::string> ptxRun(const std::string& name, std::vector<std::string> tail = {}) {
  std::vector<std::string> out{"run", "ptx/" + name + ".yaml", "--mode", "functional"};
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}
const std::vector<Case> kPtxCases = {
    {"syntax_error", ptxRun("syntax"), 3, {"ptx/syntax.ptx:8:15: error:"}},
    {"unknown_opcode", ptxRun("unknown_opcode"), 3, {"ptx/unknown_opcode.ptx:8:3: error:", "frobnicate"}},
    {"unknown_type", ptxRun("unknown_type"), 3, {"ptx/unknown_type.ptx:7:8: error:", ".b33"}},
    {"bad_operand", ptxRun("bad_operand"), 3, {"ptx/bad_operand.ptx:8:", ": error:"}},
    {"huge_number", ptxRun("huge_number"), 3, {"ptx/huge_number.ptx:8:16: error:", "64 bits"}},
    {"file_index_4294967295", ptxRun("file_index"), 3,
     {"ptx/file_index.ptx:4:", inputLimit("4294967295", "ptx_file_index", "1000000")}},
    {"register_range_100M", ptxRun("register_range"), 3,
     {"ptx/register_range.ptx:7:", inputLimit("100000000", "ptx_registers", "1000000")}},
    {"register_index_20_digits", ptxRun("register_index"), 3, {"ptx/register_index.ptx:8:", ": error:"}},
    {"registers_over_lowered_limit", {"run", "launch/ok.yaml", "--mode", "functional", "--limit", "ptx_registers=5"}, 3,
     {"launch/add_one.ptx:", inputLimitTail("ptx_registers", "5")}},
    {"identifier_100k_chars_with_limit_raised", ptxRun("identifier_100k", {"--limit", "ptx_identifier_chars=100000"}), 0,
     {"DONE k"}},
    {"undeclared_register", ptxRun("undeclared_register"), 3, {"ptx/undeclared_register.ptx:8:11: error:", "%q1"}},
    {"undefined_label", ptxRun("undefined_label"), 3, {"ptx/undefined_label.ptx:7:", "NOWHERE"}},
    {"identifier_100k_chars", ptxRun("identifier_100k"), 3,
     {"ptx/identifier_100k.ptx:7:", inputLimit("100000", "ptx_identifier_chars", "1024")}},
    {"shared_array_4GiB_plus_16", ptxRun("shared_4g"), 3, {"error:", "shared", "!DONE"}},
    {"global_array_8GiB", ptxRun("global_8g"), 3, {"ptx/global_8g.ptx:4:", "'big'"}},
    {"unterminated_body", ptxRun("unterminated"), 3, {"ptx/unterminated.ptx:", "expected '}'"}},
    {"braces_100k_deep", ptxRun("braces_deep"), 3, {"ptx/braces_deep.ptx:6:", ": error:"}},
    {"braces_100k_unclosed", ptxRun("braces_open"), 3, {"ptx/braces_open.ptx:6:", ": error:"}},
    {"binary_garbage", ptxRun("garbage"), 3, {"ptx/garbage.ptx:1:1: error:"}},
    {"nul_byte", ptxRun("nul_byte"), 3, {"ptx/nul_byte.ptx:7:", ": error:"}},
    {"empty_file", ptxRun("empty"), 3, {"ptx/empty.yaml:2:9: error:", "'k'"}},
    {"a_directory", ptxRun("directory"), 3, {"ptx/directory.yaml:1:6: error:", "directory.ptx"}},
    {"link_to_dev_urandom", ptxRun("urandom"), 3, {"ptx/urandom.yaml:1:6: error:", "urandom.ptx"}},
    {"a_fifo", ptxRun("fifo"), 3, {"ptx/fifo.yaml:1:6: error:", "fifo.ptx"}},
    {"missing_file", ptxRun("missing"), 3, {"ptx/missing.yaml:1:6: error:", "missing.ptx", "not found"}},
    {"statements_over_limit", ptxRun("statements", {"--limit", "ptx_statements=100"}), 3,
     {"ptx/statements.ptx", inputLimitTail("ptx_statements", "100")}},
    {"file_over_input_file_bytes", ptxRun("large", {"--limit", "input_file_bytes=48000"}), 3,
     {"ptx/large.ptx", inputLimit("60000", "input_file_bytes", "48000")}},  // (the hopper preset is ~26 KB)
};

// 2. Malformed config YAML (--config FILE, --set KEY=VALUE), with a valid launch file.
const std::vector<Case> kConfigCases = {
    {"syntax_error", config("config/syntax.yaml"), 3, {"config/syntax.yaml:4:1: error:"}},
    {"billion_laughs", config("config/billion_laughs.yaml"), 3,
     {"config/billion_laughs.yaml:", inputLimitTail("yaml_nodes", "1000000")}},
    {"list_50k_deep", config("config/deep_list_50k.yaml"), 3,
     {"config/deep_list_50k.yaml:", inputLimitTail("yaml_depth", "64")}},
    {"map_50k_deep", config("config/deep_map_50k.yaml"), 3,
     {"config/deep_map_50k.yaml:", inputLimitTail("yaml_depth", "64")}},
    {"duplicate_keys_50k", config("config/duplicate_keys_50k.yaml"), 3,
     {"config/duplicate_keys_50k.yaml:50002:1: error: duplicate key 'k0'"}},
    {"unknown_key", config("config/unknown_key.yaml"), 3, {"config/unknown_key.yaml:3:3: error:", "'sm.cuont'"}},
    {"wrong_type", config("config/wrong_type.yaml"), 3, {"config/wrong_type.yaml:3:10: error:", "expected an integer"}},
    {"section_is_a_list", config("config/section_is_list.yaml"), 3,
     {"config/section_is_list.yaml:2:5: error:", "mapping"}},
    {"top_level_is_a_list", config("config/top_is_list.yaml"), 3, {"config/top_is_list.yaml", "mapping"}},
    {"out_of_range", config("config/out_of_range.yaml"), 3, {"config/out_of_range.yaml:3:10: error:", "5000"}},
    {"limit_out_of_range", config("config/limit_out_of_range.yaml"), 3,
     {"config/limit_out_of_range.yaml:3:22: error:", "limits.call_depth_frames"}},
    {"tab_indentation", config("config/tab_indent.yaml"), 3, {"config/tab_indent.yaml:3:", "error:"}},
    {"extends_a_list", config("config/extends_list.yaml"), 3, {"config/extends_list.yaml:1:", "extends"}},
    {"extends_cycle", config("config/cycle_a.yaml"), 3, {"cycle", "cycle_a.yaml", "cycle_b.yaml"}},
    {"extends_cycle_names_the_line", config("config/cycle_a.yaml"), 3, {"config/cycle_b.yaml:1:10: error:", "cycle"}},
    {"extends_itself", config("config/self.yaml"), 3, {"cycle", "self.yaml"}},
    {"extends_missing_parent", config("config/missing_parent.yaml"), 3,
     {"config/missing_parent.yaml:1:10: error:", "'no_such_parent' not found"}},
    {"extends_looping_symlink", config("config/extends_loop.yaml"), 3,
     {"config/extends_loop.yaml:1:10: error:", "loop1.yaml"}},
    {"path_5000_chars", config("@LONG_CONFIG@"), 3, {"error:", "ddddd.yaml"}},
    {"looping_symlink", config("config/loop1.yaml"), 3, {"config/loop1.yaml", "error:"}},
    {"a_directory", config("config/directory.yaml"), 3, {"config/directory.yaml", "not a regular file"}},
    {"link_to_dev_urandom", config("config/urandom.yaml"), 3, {"config/urandom.yaml", "not a regular file"}},
    {"a_fifo", config("config/fifo.yaml"), 3, {"config/fifo.yaml", "not a regular file"}},
    {"missing_name", config("no_such_config"), 3, {"'no_such_config'", "error:"}},
    {"yaml_nodes_limit", withLaunch({"--limit", "yaml_nodes=100"}), 3,
     {".yaml:", inputLimitTail("yaml_nodes", "100")}},
    {"file_over_input_file_bytes", withLaunch({"--limit", "input_file_bytes=1000"}), 3,
     {"tiny.yaml: error: the config file's size in bytes is", inputLimitTail("input_file_bytes", "1000")}},
    {"set_without_equals", set("garbage"), 3, {"--set 'garbage': error:", "key=value"}},
    {"set_empty_key", set("=5"), 3, {"--set '=5': error:"}},
    {"set_key_only", set("sm.count"), 3, {"--set 'sm.count': error:"}},
    {"set_bad_yaml", set("sm.count=[1"), 3, {"--set 'sm.count=[1': error:", "YAML"}},
    {"set_wrong_type", set("sm.count=abc"), 3, {"--set 'sm.count=abc': error:", "expected an integer"}},
    {"set_empty_path_part", set("sm..count=1"), 3, {"--set 'sm..count=1': error:", "dotted key path"}},
    {"set_unknown_key", set("nosuch.key=1"), 3, {"--set 'nosuch.key=1': error:", "unknown key 'nosuch'"}},
    {"set_out_of_range", set("sm.count=0"), 3, {"--set 'sm.count=0': error:", "[1, 1024]"}},
    {"set_huge_integer", set("sm.count=99999999999999999999999"), 3, {"error:", "99999999999999999999999"}},
    {"set_section_to_scalar", set("sm=5"), 3, {"--set 'sm=5': error:", "mapping"}},
    {"set_mapping_value", set("sm.count={a: 1}"), 3, {"--set 'sm.count={a: 1}': error:", "a mapping"}},
    {"set_alias_bomb", set("@ALIAS_BOMB_SET@"), 3, {"--set 'name=", inputLimitTail("yaml_nodes", "1000000")}},
    {"set_limit_zero", set("limits.call_depth_frames=0"), 3, {"error:", "limits.call_depth_frames"}},
};

// 3. Launch files (launch/), PTX launch/add_one.ptx.
std::vector<std::string> launch(const std::string& name, std::vector<std::string> tail = {}) {
  std::vector<std::string> out{"run", "launch/" + name + ".yaml", "--mode", "functional"};
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}
const std::vector<Case> kLaunchCases = {
    {"missing_kernel", launch("missing_kernel"), 3, {"launch/missing_kernel.yaml:1:1: error:", "'kernel'"}},
    {"missing_args", launch("missing_args"), 3, {"launch/missing_args.yaml:1:1: error:", "'args'"}},
    {"unknown_key", launch("unknown_key"), 3, {"launch/unknown_key.yaml:3:1: error:", "'gird'"}},
    {"duplicate_key", launch("duplicate_key"), 3, {"launch/duplicate_key.yaml:5:1: error:", "duplicate key 'block'"}},
    {"yaml_syntax", launch("syntax"), 3, {"launch/syntax.yaml:7:", "error:"}},
    {"grid_mapping", launch("grid_mapping"), 3, {"launch/grid_mapping.yaml:3:7: error:", "a mapping"}},
    {"grid_string", launch("grid_string"), 3, {"launch/grid_string.yaml:3:7: error:", "'four'"}},
    {"grid_four_dims", launch("grid_four_dims"), 3, {"launch/grid_four_dims.yaml:3:7: error:", "1 to 3"}},
    {"grid_zero", launch("grid_zero"), 3, {"launch/grid_zero.yaml:3:11: error:", "at least 1"}},
    {"grid_negative", launch("grid_negative"), 3, {"launch/grid_negative.yaml:3:7: error:", "'-1'"}},
    {"grid_2_to_32", launch("grid_u32_overflow"), 3, {"launch/grid_u32_overflow.yaml:3:7: error:", "'4294967296'"}},
    {"grid_x_2_31", launch("grid_x_2_31"), 3, {"launch/grid_x_2_31.yaml:", "2147483648", "!GPU fault"}},
    {"grid_y_65536", launch("grid_y_65536"), 3, {"launch/grid_y_65536.yaml:", "65536", "!GPU fault"}},
    {"grid_xy_2_32_blocks", launch("grid_xy_2_32", {"--set", "limits.warp_instructions_per_launch=100000"}),
     2, {"kernel 'add_one'", "limits.warp_instructions_per_launch"}, false, {},
     3, {"launch/grid_xy_2_32.yaml:", "!GPU fault"}},
    {"grid_xy_2_32_blocks_timing",
     {"run", "launch/grid_xy_2_32.yaml", "--mode", "timing", "--fault-trace-cycles", "0", "--set",
      "limits.warp_instructions_per_launch=100000"},
     2, {"kernel 'add_one'", "limits.warp_instructions_per_launch"}, false, {},
     3, {"launch/grid_xy_2_32.yaml:", "!GPU fault"}},
    {"block_2048_threads", launch("block_2048"), 3, {"launch/block_2048.yaml:", "2048", "!GPU fault"}},
    {"block_z_65", launch("block_z_65"), 3, {"launch/block_z_65.yaml:", "!GPU fault"}},
    {"dynamic_shared_1MB", launch("dynamic_shared_1m"), 3,
     {"launch/dynamic_shared_1m.yaml:", "1000000", "!GPU fault", "!thread (0,0,0)"}},
    {"dynamic_shared_4GiB", launch("dynamic_shared_4g"), 3, {"launch/dynamic_shared_4g.yaml:5:23: error:", "'4294967296'"}},
    {"unknown_element_type", launch("unknown_type"), 3, {"launch/unknown_type.yaml:6:16: error:", "'f99'"}},
    {"count_over_1TiB", launch("count_over_1tib"), 3, {"launch/count_over_1tib.yaml:6:28: error:", "1 TiB"}},
    {"count_u64_max_f64", launch("count_u64_max"), 3, {"launch/count_u64_max.yaml:6:28: error:", "1 TiB"}},
    {"count_over_u64", launch("count_over_u64"), 3, {"launch/count_over_u64.yaml:6:27: error:", "out of range"}},
    {"buffer_over_device_memory", launch("buffer_8gib"), 3,
     {"launch/buffer_8gib.yaml:6:3: error:", "buffer 'data'"}, true},
    {"value_out_of_range", launch("values_out_of_range"), 3, {"launch/values_out_of_range.yaml:6:39: error:", "'256'"}},
    {"unknown_buffer_in_args", launch("unknown_arg_buffer"), 3, {"launch/unknown_arg_buffer.yaml:7:8: error:", "'dta'"}},
    {"too_few_args", launch("arg_count_mismatch"), 3, {"launch/arg_count_mismatch.yaml:7:7: error:", "2 parameters"}},
    {"kernel_not_in_module", launch("kernel_not_found"), 3, {"launch/kernel_not_found.yaml:2:9: error:", "'add_two'"}},
    {"npy_missing", launch("npy_missing"), 3, {"launch/npy_missing.yaml:6:34: error:", "'missing.npy' not found"}},
    {"npy_short", launch("npy_short"), 3, {"launch/npy_short.yaml:6:34: error:", "shorter"}},
    {"npy_bad_magic", launch("npy_bad_magic"), 3, {"launch/npy_bad_magic.yaml:6:34: error:", "magic"}},
    {"npy_wrong_dtype", launch("npy_dtype"), 3, {"launch/npy_dtype.yaml:6:34: error:", "'<f4'"}},
    {"npy_big_endian", launch("npy_big_endian"), 3, {"launch/npy_big_endian.yaml:6:34: error:", "big-endian"}},
    {"npy_fortran_order", launch("npy_fortran"), 3, {"launch/npy_fortran.yaml:6:34: error:", "Fortran"}},
    {"npy_bad_header_dict", launch("npy_bad_dict"), 3, {"launch/npy_bad_dict.yaml:6:34: error:", "'bogus'"}},
    {"npy_shape_overflows_64_bits", launch("npy_huge_shape"), 3, {"launch/npy_huge_shape.yaml:6:34: error:", "shape"}},
    {"npy_unknown_version", launch("npy_version"), 3, {"launch/npy_version.yaml:6:34: error:", "version 9"}},
    {"npy_truncated_header", launch("npy_truncated"), 3, {"launch/npy_truncated.yaml:6:34: error:", "truncated"}},
    {"npy_header_length_4G", launch("npy_header_len"), 3, {"launch/npy_header_len.yaml:6:34: error:", "too long"}},
    {"raw_init_odd_size", launch("raw_odd_size"), 3, {"launch/raw_odd_size.yaml:6:34: error:", "6 bytes"}},
    {"expect_npy_wrong_size", launch("expect_wrong_size"), 3, {"launch/expect_wrong_size.yaml:6:51: error:", "holds 4"}},
    {"expect_raw_wrong_size", launch("expect_raw_wrong_size"), 3,
     {"launch/expect_raw_wrong_size.yaml:6:51: error:", "holds 4"}},
    {"output_dir_missing", launch("output_no_dir"), 3, {"launch/output_no_dir.yaml:6:51: error:", "'no_such_dir/x.npy'"}},
    {"output_raw_to_dev_full", launch("output_dev_full"), 3, {"/dev/full", "error:", "!wrote /dev/full"}},
    {"output_npy_to_dev_full", launch("output_npy_dev_full"), 3, {"launch/full.npy", "error:", "!wrote"}},
    {"output_is_a_directory", launch("output_is_dir"), 3, {"launch/out_dir", "error:", "!wrote"}},
    {"launch_file_links_to_dev_urandom", launch("urandom"), 3,
     {"launch/urandom.yaml", "not a regular file"}, true},
    {"launch_file_is_a_fifo", launch("fifo"), 3, {"launch/fifo.yaml", "not a regular file"}},
    {"launch_file_is_a_directory", launch("directory"), 3, {"launch/directory.yaml", "error:"}},
    {"launch_file_missing", launch("no_such_file"), 3, {"launch/no_such_file.yaml", "error:"}},
    {"launch_file_50k_deep", launch("deep_50k"), 3,
     {"launch/deep_50k.yaml:", inputLimitTail("yaml_depth", "64")}},
    {"launch_file_over_input_file_bytes", launch("large", {"--limit", "input_file_bytes=16384"}), 3,
     {"launch/large.yaml", inputLimit("20000", "input_file_bytes", "16384")}},
};

// 4. Kernels that fault (fault/NAME.yaml runs kernel NAME of fault/NAME.ptx): exit 2, the report
// names the kernel, block, warp, thread and PC. Timing-mode cases turn off the waveform re-run.
std::vector<std::string> fault(const std::string& name, const std::string& mode, std::vector<std::string> tail = {}) {
  std::vector<std::string> out{"run", "fault/" + name + ".yaml", "--mode", mode};
  if (mode == "timing") out.insert(out.end(), {"--fault-trace-cycles", "0"});
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}
const std::vector<Case> kFaultCases = {
    {"out_of_bounds_functional", fault("oob", "functional"), 2,
     {"illegal address", "kernel 'oob'", "block (0,0,0), warp 1, thread (45,0,0)", "pc 4", "fault/oob.ptx:14:3"}},
    // In timing mode every block's thread 45 faults; which block does first is the schedule's.
    {"out_of_bounds_timing", fault("oob", "timing"), 2,
     {"illegal address", "kernel 'oob'", "warp 1, thread (45,0,0)", "pc 4", "fault/oob.ptx:14:3"}},
    {"misaligned_functional", fault("misaligned", "functional"), 2,
     {"misaligned address", "kernel 'misaligned'", "block (0,0,0), warp 0, thread (0,0,0)", "pc 1"}},
    {"misaligned_timing", fault("misaligned", "timing"), 2,
     {"misaligned address", "kernel 'misaligned'", "block (0,0,0), warp 0, thread (0,0,0)", "pc 1"}},
    {"misaligned_u64_store", fault("misaligned_u64", "functional"), 2,
     {"misaligned address", "kernel 'misaligned_u64'", "warp 0, thread (0,0,0)", "pc 1"}},
    {"misaligned_atomic", fault("misaligned_atomic", "functional"), 2,
     {"misaligned address", "kernel 'misaligned_atomic'", "warp 0, thread (0,0,0)", "pc 1"}},
    {"null_pointer", fault("null_pointer", "functional"), 2,
     {"illegal address", "kernel 'null_pointer'", "block (0,0,0), warp 0, thread (0,0,0)", "pc 1"}},
    {"address_near_2_64", fault("high_address", "functional"), 2,
     {"illegal address", "kernel 'high_address'", "block (0,0,0), warp 0, thread (0,0,0)", "pc 1"}},
    {"shared_out_of_bounds", fault("shared_oob", "functional"), 2,
     {"illegal address", "kernel 'shared_oob'", "warp 0, thread (0,0,0)", "pc 2"}},
    {"local_out_of_bounds", fault("local_oob", "functional"), 2,
     {"illegal address", "kernel 'local_oob'", "warp 0, thread (0,0,0)", "pc 3"}},
    {"trap_functional", fault("trap", "functional"), 2,
     {"trap", "kernel 'trap'", "block (0,0,0), warp 1, thread (38,0,0)", "pc 2"}},
    {"trap_timing", fault("trap", "timing"), 2, {"trap", "kernel 'trap'", "block (0,0,0), warp 1, thread (38,0,0)", "pc 2"}},
    {"trap_in_block_3", fault("trap_block3", "functional"), 2,
     {"trap", "kernel 'trap_block3'", "block (3,0,0), warp 0, thread (0,0,0)", "pc 2"}},
    {"illegal_instruction", fault("illegal_barrier", "functional"), 2,
     {"illegal instruction", "kernel 'illegal_barrier'", "warp 0, thread (0,0,0)", "pc 1", "barrier id 20"}},
    {"barrier_never_completes_functional", fault("deadlock", "functional"), 2,
     {"barrier deadlock", "kernel 'deadlock'", "warp 0, thread (0,0,0)", "pc 5", "barrier 1", "barrier 2"}},
    {"barrier_never_completes_timing", fault("deadlock", "timing"), 2,
     {"barrier deadlock", "kernel 'deadlock'", "warp 0, thread (0,0,0)", "pc 5"}},
    {"block_watchdog", fault("spin", "functional", {"--set", "limits.watchdog_warp_instructions_per_block=100000"}), 2,
     {"kernel 'spin'", "block (0,0,0), warp 0, thread (0,0,0)", "limits.watchdog_warp_instructions_per_block"}},
    {"unbounded_recursion_functional", fault("recursion", "functional"), 2,
     {"kernel 'recursion'", "thread (0,0,0)", "limits.call_depth_frames"}, true},
    {"unbounded_recursion_timing", fault("recursion", "timing"), 2,
     {"kernel 'recursion'", "thread (0,0,0)", "limits.call_depth_frames"}, true},
    {"infinite_loop_functional",
     fault("spin", "functional", {"--set", "limits.warp_instructions_per_launch=100000"}), 2,
     {"kernel 'spin'", "warp 0, thread (0,0,0)", "limits.warp_instructions_per_launch"}},
    {"infinite_loop_timing_cycles", fault("spin", "timing", {"--set", "limits.cycles_per_launch=100000"}), 2,
     {"kernel 'spin'", "warp 0, thread (0,0,0)", "limits.cycles_per_launch"}},
    {"infinite_loop_timing_block_watchdog", fault("spin", "timing", {"--set", "watchdog.block_resident_cycles=50000"}),
     2, {"watchdog", "kernel 'spin'", "block (0,0,0), warp 0, thread (0,0,0)", "watchdog.block_resident_cycles"}},
    {"infinite_loop_timing_max_cycles", fault("spin", "timing", {"--max-cycles", "100000"}), 2,
     {"timeout", "kernel 'spin'", "warp 0, thread (0,0,0)", "limits.cycles_per_launch = 100000"}},
    {"infinite_loop_wall_timeout_timing",
     fault("spin", "timing", {"--timeout", "0.5", "--set", "watchdog.block_resident_cycles=1000000000000"}), 2,
     {"timeout", "kernel 'spin'", "--timeout 0.5 s"}},
    {"infinite_loop_wall_timeout_functional",
     fault("spin", "functional", {"--timeout", "0.5", "--set", "limits.watchdog_warp_instructions_per_block=1000000000000"}),
     2, {"timeout", "kernel 'spin'", "--timeout 0.5 s"}},
    {"infinite_loop_timing_instructions",
     fault("spin", "timing", {"--set", "limits.warp_instructions_per_launch=100000"}), 2,
     {"kernel 'spin'", "warp 0, thread (0,0,0)", "limits.warp_instructions_per_launch"}},
};

// 5. `scgpu stats diff A B`: 0 same, 1 different, 2 a file unreadable or not a JSON object.
std::vector<std::string> diff(const std::string& b, std::vector<std::string> tail = {}) {
  std::vector<std::string> out{"stats", "diff", "stats/a.json", b};
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}
const std::vector<Case> kStatsCases = {
    {"same_file", diff("stats/a.json"), 0, {"no differences"}},
    {"different_file", diff("stats/b.json"), 1, {"/a", "1 difference"}},
    {"not_json", diff("stats/not_json.json"), 2, {"stats/not_json.json: error:", "not valid JSON"}},
    {"top_level_array", diff("stats/array.json"), 2, {"stats/array.json: error:", "not an object"}},
    {"top_level_string", diff("stats/string.json"), 2, {"stats/string.json: error:", "not an object"}},
    {"empty_file", diff("stats/empty.json"), 2, {"stats/empty.json: error:"}},
    {"trailing_comma", diff("stats/trailing_comma.json"), 2, {"stats/trailing_comma.json: error:"}},
    {"two_documents", diff("stats/two_documents.json"), 2, {"stats/two_documents.json: error:"}},
    {"truncated", diff("stats/truncated.json"), 2, {"stats/truncated.json: error:"}},
    {"invalid_utf8", diff("stats/bad_utf8.json"), 2, {"stats/bad_utf8.json: error:"}},
    {"number_overflow", diff("stats/huge_number.json"), 2, {"stats/huge_number.json: error:", "1e999"}},
    {"integer_over_64_bits", diff("stats/big_integer.json"), 1, {"/a", "1 difference"}},
    {"depth_257", diff("stats/depth_257.json"), 2,
     {"stats/depth_257.json: error:", inputLimit("257", "json_depth", "256")}},
    {"objects_50k_deep", diff("stats/deep_50k.json"), 2,
     {"stats/deep_50k.json: error:", inputLimit("257", "json_depth", "256")}},
    {"arrays_50k_deep", diff("stats/deep_array_50k.json"), 2,
     {"stats/deep_array_50k.json: error:", inputLimit("257", "json_depth", "256")}},
    {"objects_50k_deep_limit_raised", diff("stats/deep_50k.json", {"--limit", "json_depth=100000"}), 1,
     {"2 differences", "1 added, 1 removed"}},
    {"file_300MiB_over_default_limit", diff("stats/sparse_300m.json"), 2,
     {"stats/sparse_300m.json: error:", inputLimit("314572800", "input_file_bytes", "268435456")}},
    {"file_over_lowered_limit", {"--limit", "input_file_bytes=5", "stats", "diff", "stats/a.json", "stats/b.json"}, 2,
     {"stats/a.json: error:", inputLimit("9", "input_file_bytes", "5")}},
    {"a_directory", diff("stats/directory.json"), 2, {"stats/directory.json: error:", "not a regular file"}},
    {"link_to_dev_urandom", diff("stats/urandom.json"), 2, {"stats/urandom.json: error:", "not a regular file"}},
    {"a_fifo", diff("stats/fifo.json"), 2, {"stats/fifo.json: error:", "not a regular file"}},
    {"missing_file", diff("stats/missing.json"), 2, {"stats/missing.json: error:"}},
    {"first_file_bad", {"stats", "diff", "stats/not_json.json", "stats/missing.json"}, 2,
     {"stats/not_json.json: error:"}},
    {"one_file_only", {"stats", "diff", "stats/a.json"}, 3, {"B is required"}},
    {"threshold_not_a_number", diff("stats/b.json", {"--threshold", "abc"}), 3, {"--threshold", "'abc'"}},
};

// 6. Command lines: hostile file names and values, unknown options, bad limits and trace options.
const std::vector<Case> kCliCases = {
    // The fault re-runs the simulation for a waveform (posix_spawn): no shell may see the name.
    {"metacharacters_in_launch_file_name", {"run", "@META_LAUNCH@"}, 2,
     {"kernel 'oob'", "thread (45,0,0)", "waveform of the last"}, false, kMetaMarkers},
    {"metacharacters_in_set_value", {"run", "fault/oob.yaml", "--set", "@META_SET@"}, 2,
     {"kernel 'oob'", "waveform of the last"}, false, kMetaSetMarkers},
    {"metacharacters_in_config_path", withLaunch({"--config", "@META_CONFIG@"}), 3, {"pwned_config", "error:"}, false,
     kMetaConfigMarkers},
    {"target_starting_with_dash", {"run", "--", "-oob.yaml"}, 2, {"kernel 'oob'", "waveform of the last"}},
    {"unknown_option", withLaunch({"--bogus"}), 3, {"--bogus"}},
    {"unknown_subcommand", {"bogus"}, 3, {"subcommand"}},
    {"no_subcommand", {}, 3, {"subcommand"}},
    {"run_without_target", {"run"}, 3, {"TARGET is required"}},
    {"unknown_workload", {"run", "no_such_workload"}, 3, {"unknown workload 'no_such_workload'"}},
    {"workload_option_on_launch_file", withLaunch({"--scale", "2"}), 3, {"--scale applies to suite workloads"}},
    {"scale_zero", {"run", "saxpy", "--scale", "0"}, 3, {"--scale"}},
    {"seed_not_a_number", {"run", "saxpy", "--seed", "abc"}, 3, {"--seed"}},
    {"unknown_arch", {"run", "saxpy", "--arch", "sm_10"}, 3, {"--arch", "sm_10"}},
    {"unknown_mode", withLaunch({"--mode", "fast"}), 3, {"--mode", "fast"}},
    {"limit_unknown_name", withLaunch({"--limit", "bogus=5"}), 3, {"unknown limit 'bogus'", "yaml_nodes"}},
    {"limit_zero", withLaunch({"--limit", "yaml_nodes=0"}), 3, {"--limit yaml_nodes=0: error:", "positive integer"}},
    {"limit_not_a_number", withLaunch({"--limit", "yaml_nodes=abc"}), 3, {"--limit yaml_nodes=abc: error:"}},
    {"limit_negative", withLaunch({"--limit", "yaml_nodes=-1"}), 3, {"--limit yaml_nodes=-1: error:"}},
    {"limit_20_digits", withLaunch({"--limit", "yaml_nodes=99999999999999999999"}), 3,
     {"--limit yaml_nodes=99999999999999999999: error:"}},
    {"limit_without_value", withLaunch({"--limit", "yaml_nodes"}), 3, {"--limit yaml_nodes: error:", "NAME=VALUE"}},
    {"limit_empty_name", withLaunch({"--limit", "=5"}), 3, {"--limit =5: error:"}},
    // Output files that cannot be written: exit 3 naming the file, not a report that it was written.
    {"stats_json_to_dev_full", withLaunch({"--stats-json", "/dev/full"}), 3, {"/dev/full: error:", "write failed"}},
    {"stats_json_in_missing_dir", withLaunch({"--stats-json", "no_such_dir/s.json"}), 3, {"no_such_dir/s.json: error:"}},
    {"timeline_to_dev_full", {"run", "launch/ok.yaml", "--timeline", "/dev/full"}, 3, {"/dev/full: error:"}},
    {"trace_to_dev_full", {"run", "launch/ok.yaml", "--trace", "full.vcd"}, 3, {"full.vcd", "error", "!wrote full.vcd"}},
    {"trace_without_suffix", {"run", "launch/ok.yaml", "--trace", "/dev/full"}, 3, {"'/dev/full'", ".vcd or .fst"}},
    // Globs with ten '*': the matcher must be linear, not backtracking.
    {"trace_filter_ten_stars", {"run", "launch/ok.yaml", "--trace", "t1.vcd", "--trace-filter", "**********"}, 0,
     {"wrote t1.vcd"}},
    {"trace_filter_ten_stars_no_match",
     {"run", "launch/ok.yaml", "--trace", "t2.vcd", "--trace-filter", "*s*m*a*a*a*a*a*a*a*a*x,*.*.*.*.*.*.*.*.*.*q"}, 0,
     {"wrote t2.vcd"}},
    {"trace_filter_unclosed_bracket", {"run", "launch/ok.yaml", "--trace", "t3.vcd", "--trace-filter", "sm[0-"}, 3,
     {"trace filter 'sm[0-'"}},
    {"trace_filter_empty_range", {"run", "launch/ok.yaml", "--trace", "t4.vcd", "--trace-filter", "sm[9-0].*"}, 3,
     {"trace filter 'sm[9-0].*'"}},
    {"trace_window_not_numbers", {"run", "launch/ok.yaml", "--trace", "t5.vcd", "--trace-window", "x:y"}, 3,
     {"--trace-window", "START:END"}},
    {"trace_window_no_colon", {"run", "launch/ok.yaml", "--trace", "t6.vcd", "--trace-window", "10"}, 3,
     {"--trace-window", "START:END"}},
    {"trace_window_start_over_64_bits",
     {"run", "launch/ok.yaml", "--trace", "t7.vcd", "--trace-window", "99999999999999999999999:"}, 3,
     {"--trace-window", "START:END"}},
    {"trace_window_two_colons", {"run", "launch/ok.yaml", "--trace", "t8.vcd", "--trace-window", "1:2:3"}, 3,
     {"--trace-window", "!wrote t8.vcd"}},
    {"trace_window_negative_end", {"run", "launch/ok.yaml", "--trace", "t9.vcd", "--trace-window", ":-1"}, 3,
     {"--trace-window", "!wrote t9.vcd"}},
    {"trace_window_trailing_garbage",
     {"run", "launch/ok.yaml", "--trace", "t10.vcd", "--trace-window", "12abc:20"}, 3, {"--trace-window", "!wrote t10.vcd"}},
    {"trace_window_start_after_end", {"run", "launch/ok.yaml", "--trace", "t11.vcd", "--trace-window", "5:3"}, 3,
     {"--trace-window", "!wrote t11.vcd"}},
};

// ---------------------------------------------------------------------------------------------
// The test

std::string excerpt(const std::string& s) {
  constexpr std::size_t kMax = 6000;
  if (s.size() <= kMax) return s;
  return s.substr(0, kMax / 2) + "\n[... " + std::to_string(s.size() - kMax) + " bytes ...]\n" + s.substr(s.size() - kMax / 2);
}

bool matches(const Outcome& o, int status, const std::vector<std::string>& expect, std::string* why) {
  if (o.timed_out) {
    *why = "killed after " + std::to_string(kTimeLimitSeconds) + " s (a hang)";
    return false;
  }
  if (o.status != status) {
    *why = "exit status " + std::to_string(o.status) + ", expected " + std::to_string(status);
    return false;
  }
  for (const auto& e : expect) {
    const bool absent = !e.empty() && e[0] == '!';
    const std::string text = absent ? e.substr(1) : e;
    const bool found = o.output.find(text) != std::string::npos;
    if (found == absent) {
      *why = (absent ? "output contains \"" : "output lacks \"") + text + "\"";
      return false;
    }
  }
  return true;
}

void runCase(const Case& c) {
  const bool cap = capped();
  if (c.needs_cap && !cap) GTEST_SKIP() << "needs the 1 GiB address-space cap, which sanitizers rule out";
  const fs::path& dir = WorkDir::get();
  for (const auto& f : c.absent_files) fs::remove(dir / f);

  std::vector<std::string> args;
  std::string shown = "scgpu";
  for (const auto& a : c.args) {
    args.push_back(substitute(a));
    shown += " '" + (args.back().size() > 200 ? args.back().substr(0, 200) + "..." : args.back()) + "'";
  }
  const Outcome o = runScgpu(args, dir, cap);
  const std::string context = "in " + dir.string() + ":\n  " + shown + "\nexit status " + std::to_string(o.status) +
                              (o.timed_out ? " (killed by the time guard)" : "") + " after " +
                              std::to_string(o.seconds) + " s; output:\n" + excerpt(o.output);

  std::string why, alt_why;
  const bool ok = matches(o, c.status, c.expect, &why) ||
                  (c.alt_status >= 0 && matches(o, c.alt_status, c.alt_expect, &alt_why));
  EXPECT_TRUE(ok) << why << (alt_why.empty() ? "" : "; nor the alternative: " + alt_why) << "\n" << context;
  for (const auto& f : c.absent_files)
    EXPECT_FALSE(fs::exists(dir / f)) << "'" << f << "' exists: a shell ran part of an argument\n" << context;
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

// The rows of a table that are (or are not) DISABLED_. The disabled ones get an instantiation of
// their own, DISABLED_Robustness, so that the suite name starts with DISABLED_: GoogleTest skips
// "Suite.Case/DISABLED_x" as well, but CMake's gtest_discover_tests only marks a test disabled
// when its suite or test name starts with DISABLED_ (and ctest would run it).
std::vector<Case> rows(const std::vector<Case>& table, bool disabled) {
  std::vector<Case> out;
  for (const auto& c : table)
    if ((c.name.rfind("DISABLED_", 0) == 0) == disabled) out.push_back(c);
  return out;
}

// One fixture per category; full names read Robustness/<Category>.Case/<name> and
// DISABLED_Robustness/<Category>.Case/DISABLED_<name>.
#define SCGPU_ROBUSTNESS_CATEGORY(Category, table)                                                   \
  class Category : public ::testing::TestWithParam<Case> {};                                         \
  TEST_P(Category, Case) { runCase(GetParam()); }                                                    \
  INSTANTIATE_TEST_SUITE_P(Robustness, Category, ::testing::ValuesIn(rows(table, false)), caseName); \
  INSTANTIATE_TEST_SUITE_P(DISABLED_Robustness, Category, ::testing::ValuesIn(rows(table, true)), caseName)

SCGPU_ROBUSTNESS_CATEGORY(MalformedPtx, kPtxCases);
SCGPU_ROBUSTNESS_CATEGORY(MalformedConfig, kConfigCases);
SCGPU_ROBUSTNESS_CATEGORY(BadLaunchFile, kLaunchCases);
SCGPU_ROBUSTNESS_CATEGORY(FaultingKernel, kFaultCases);
SCGPU_ROBUSTNESS_CATEGORY(BadStatsDiff, kStatsCases);
SCGPU_ROBUSTNESS_CATEGORY(HostileCommandLine, kCliCases);

// Ctrl-C stops a spinning kernel in either mode: exit status 130, the report, and the statistics
// gathered so far, marked partial.
TEST(RobustnessInterrupt, CtrlCStopsASpinningKernelAndWritesPartialStatistics) {
  for (const std::string mode : {"timing", "functional"}) {
    const fs::path json = WorkDir::get() / ("interrupted_" + mode + ".json");
    fs::remove(json);
    const Outcome o = runScgpu({"run", "fault/spin.yaml", "--mode", mode, "--fault-trace-cycles", "0", "--set",
                                "limits.watchdog_warp_instructions_per_block=1000000000000", "--set",
                                "watchdog.block_resident_cycles=1000000000000", "--stats-json",
                                json.string()},
                               WorkDir::get(), capped(), 1500);
    EXPECT_EQ(o.status, 130) << mode << ": " << o.output;
    EXPECT_NE(o.output.find("interrupted"), std::string::npos) << o.output;
    EXPECT_NE(o.output.find("kernel 'spin'"), std::string::npos) << o.output;
    ASSERT_TRUE(fs::exists(json)) << o.output;
    std::ifstream in(json);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["partial"], true);
    EXPECT_EQ(j["exit_code"], 130);
    EXPECT_EQ(j["fault"]["kind"], "interrupted");
    EXPECT_GT(j["launches"][0]["warp_instructions"].get<std::uint64_t>(), 0u) << j["launches"].dump();
  }
}

// The harness itself: a good launch file passes under the cap.
TEST(RobustnessHarness, GoodLaunchFileRunsUnderTheCap) {
  const Outcome o = runScgpu({"run", "launch/ok.yaml", "--mode", "functional"}, WorkDir::get(), capped());
  EXPECT_EQ(o.status, 0) << o.output;
  EXPECT_NE(o.output.find("DONE add_one"), std::string::npos) << o.output;
}

}  // namespace
