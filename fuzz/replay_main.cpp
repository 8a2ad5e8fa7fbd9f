// The regression replay of the fuzz targets (no libFuzzer, any compiler): runs the harness's
// LLVMFuzzerTestOneInput once over every file in the directories (or files) named on the command
// line, in name order; files whose names start with '.' or "README" are skipped, and a directory
// that does not exist counts as empty. A crash, sanitizer report or escaped exception fails the run,
// and stderr names the file being replayed.
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
// Present in sanitizer builds: a sanitizer report ends the process with exit(), not a signal.
extern "C" __attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)());

namespace {

char current[4096] = "";

void onDeath() {
  const char prefix[] = "\nfuzz replay: sanitizer report on ";
  [[maybe_unused]] auto w1 = ::write(2, prefix, sizeof prefix - 1);
  [[maybe_unused]] auto w2 = ::write(2, current, std::strlen(current));
  [[maybe_unused]] auto w3 = ::write(2, "\n", 1);
}

void onSignal(int sig) {
  const char prefix[] = "\nfuzz replay: crashed on ";
  [[maybe_unused]] auto w1 = ::write(2, prefix, sizeof prefix - 1);
  [[maybe_unused]] auto w2 = ::write(2, current, std::strlen(current));
  [[maybe_unused]] auto w3 = ::write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  for (int sig : {SIGABRT, SIGSEGV, SIGFPE, SIGBUS, SIGILL}) std::signal(sig, onSignal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(onDeath);
  namespace fs = std::filesystem;
  std::size_t total = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto& entry : fs::directory_iterator(arg)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && name[0] != '.' && name.rfind("README", 0) != 0) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::printf("fuzz replay: %s does not exist: nothing to replay there\n", argv[i]);
      continue;
    }
    for (const fs::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::snprintf(current, sizeof current, "%s", file.c_str());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("fuzz replay: %zu inputs from %s\n", files.size(), argv[i]);
    total += files.size();
  }
  std::printf("fuzz replay: %zu inputs, no crash\n", total);
  return 0;
}
