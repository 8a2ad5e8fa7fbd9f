// The fat-binary reader of libcudart.so.13 (cudart/fatbin.h) on the fat binaries nvcc 13 embedded
// in the committed programs of cuda_programs/bin (compressed by default), and on damaged copies of
// them: every damage is a FatbinError, never a crash or a runaway allocation.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cudart/fatbin.h"
#include "testbench/test_util.h"

namespace {

using scgpu::cudart::bestPtx;
using scgpu::cudart::FatbinEntry;
using scgpu::cudart::FatbinError;
using scgpu::cudart::parseFatbin;

constexpr std::size_t kLimit = 64 << 20;

template <typename T> T at(const std::vector<std::uint8_t>& b, std::size_t off) {
  T v{};
  if (off + sizeof v <= b.size()) std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

// The contents of the ELF64 section `name` of a program (empty when it has none).
std::vector<std::uint8_t> elfSection(const std::string& path, const std::string& name) {
  const std::string file = scgpu::test::readFile(path);
  const std::vector<std::uint8_t> elf(file.begin(), file.end());
  if (elf.size() < 64 || std::memcmp(elf.data(), "\x7f" "ELF", 4) != 0) return {};
  const auto shoff = at<std::uint64_t>(elf, 0x28);
  const auto shentsize = at<std::uint16_t>(elf, 0x3a), shnum = at<std::uint16_t>(elf, 0x3c);
  const auto shstrndx = at<std::uint16_t>(elf, 0x3e);
  auto header = [&](unsigned i) { return shoff + std::uint64_t(i) * shentsize; };
  const auto strtab = at<std::uint64_t>(elf, header(shstrndx) + 0x18);
  for (unsigned i = 0; i < shnum; ++i) {
    const auto name_off = at<std::uint32_t>(elf, header(i));
    const char* n = reinterpret_cast<const char*>(elf.data() + strtab + name_off);
    if (name != n) continue;
    const auto off = at<std::uint64_t>(elf, header(i) + 0x18), size = at<std::uint64_t>(elf, header(i) + 0x20);
    if (off + size > elf.size()) return {};
    return {elf.begin() + long(off), elf.begin() + long(off + size)};
  }
  return {};
}

// The lines of the first .entry up to its closing brace, each with its whitespace collapsed,
// without .loc and .file lines and empty lines.
std::vector<std::string> entryInstructions(const std::string& ptx) {
  std::vector<std::string> out;
  std::istringstream in(ptx.substr(std::min(ptx.size(), ptx.find(".visible .entry"))));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word, joined;
    while (words >> word) joined += (joined.empty() ? "" : " ") + word;
    if (joined.empty() || joined.rfind(".loc", 0) == 0 || joined.rfind(".file", 0) == 0) continue;
    out.push_back(joined);
    if (joined == "}") break;
  }
  return out;
}

// The fat binary a program registers: the .nv_fatbin section holds several containers one after
// the other (nvcc 13 puts an SASS-only one for linking first); the one with PTX is the one the
// program passes to __cudaRegisterFatBinary.
std::vector<std::uint8_t> fatbinOf(const std::string& program) {
  const std::vector<std::uint8_t> section =
      elfSection(std::string(SCGPU_SOURCE_DIR) + "/cuda_programs/bin/" + program, ".nv_fatbin");
  std::size_t at = 0;
  while (section.size() - at >= 16) {
    const std::uint64_t bytes = scgpu::cudart::fatbinContainerBytes(section.data() + at);
    if (bytes > section.size() - at) break;
    for (const FatbinEntry& e : parseFatbin(section.data() + at, bytes, kLimit))
      if (e.kind == FatbinEntry::Kind::Ptx) return {section.begin() + long(at), section.begin() + long(at + bytes)};
    at += (bytes + 7) / 8 * 8;
  }
  return {};
}

TEST(Fatbin, DefaultBuildHoldsCompressedPtxForSm75AndItIsTheKernelsPtx) {
  const auto fb = fatbinOf("saxpy");
  ASSERT_GT(fb.size(), 16u);
  const auto bytes = scgpu::cudart::fatbinContainerBytes(fb.data());
  ASSERT_LE(bytes, fb.size());
  const std::vector<FatbinEntry> entries = parseFatbin(fb.data(), bytes, kLimit);
  bool elf75 = false;
  for (const auto& e : entries) elf75 |= e.kind == FatbinEntry::Kind::Elf && e.arch == 75;
  EXPECT_TRUE(elf75) << "nvcc 13's default build has sm_75 SASS";
  const FatbinEntry* ptx = bestPtx(entries, 90);
  ASSERT_NE(ptx, nullptr);
  EXPECT_EQ(ptx->arch, 75u);
  EXPECT_TRUE(ptx->compressed) << "nvcc 13 compresses by default";
  EXPECT_NE(ptx->text.find(".target sm_75"), std::string::npos);
  EXPECT_NE(ptx->text.find(".visible .entry saxpy("), std::string::npos);
  EXPECT_EQ(ptx->text.find('\0'), std::string::npos);
  // The same kernel source compiled to PTX by the suite (with line info): the kernel's
  // instructions are the same, once whitespace and .loc/.file lines are set aside.
  const std::string suite = scgpu::test::readFile(std::string(SCGPU_SOURCE_DIR) + "/kernels/ptx/sm_75/saxpy.ptx");
  ASSERT_FALSE(suite.empty());
  EXPECT_EQ(entryInstructions(ptx->text), entryInstructions(suite));
  EXPECT_GT(entryInstructions(suite).size(), 10u);
}

TEST(Fatbin, BestPtxIsTheNewestNotAboveTheDevice) {
  const auto fb = fatbinOf("hgemm_tensor");  // built with -arch=sm_90: compute_90 PTX only
  ASSERT_GT(fb.size(), 16u);
  const auto entries = parseFatbin(fb.data(), scgpu::cudart::fatbinContainerBytes(fb.data()), kLimit);
  const FatbinEntry* p90 = bestPtx(entries, 90);
  ASSERT_NE(p90, nullptr);
  EXPECT_EQ(p90->arch, 90u);
  EXPECT_NE(p90->text.find("mma.sync.aligned.m16n8k16"), std::string::npos);
  EXPECT_EQ(bestPtx(entries, 80), nullptr) << "no PTX an sm_80 device could run";
}

// nvcc -arch=sm_90a embeds compute_90 PTX beside compute_90a's: an sm_90 device takes the
// architecture-specific one (wgmma is in it only; the compute_90 kernel of hgemm_wgmma traps).
TEST(Fatbin, ArchSpecificPtxIsPreferredOnItsOwnArchitecture) {
  const auto fb = fatbinOf("hgemm_wgmma");
  ASSERT_GT(fb.size(), 16u);
  const auto entries = parseFatbin(fb.data(), scgpu::cudart::fatbinContainerBytes(fb.data()), kLimit);
  int plain = 0, specific = 0;
  for (const auto& e : entries)
    if (e.kind == FatbinEntry::Kind::Ptx && e.arch == 90) ++(e.arch_specific ? specific : plain);
  EXPECT_EQ(plain, 1);
  EXPECT_EQ(specific, 1);
  const FatbinEntry* p90 = bestPtx(entries, 90);
  ASSERT_NE(p90, nullptr);
  EXPECT_TRUE(p90->arch_specific);
  EXPECT_NE(p90->text.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(p90->text.find("wgmma.mma_async"), std::string::npos);
  const FatbinEntry* p100 = bestPtx(entries, 100);  // a newer device: compute_90a is not for it
  ASSERT_NE(p100, nullptr);
  EXPECT_FALSE(p100->arch_specific);
}

TEST(Fatbin, DamageIsAnErrorNeverACrash) {
  const auto fb = fatbinOf("saxpy");
  ASSERT_GT(fb.size(), 16u);
  const std::size_t bytes = scgpu::cudart::fatbinContainerBytes(fb.data());
  // Bad magic.
  auto bad = fb;
  bad[0] ^= 0xff;
  EXPECT_THROW(parseFatbin(bad.data(), bytes, kLimit), FatbinError);
  // Cut short: the container says more than there is.
  EXPECT_THROW(parseFatbin(fb.data(), bytes - 1, kLimit), FatbinError);
  EXPECT_THROW(parseFatbin(fb.data(), 8, kLimit), FatbinError);
  // A limit below the PTX's size: refused before it is decompressed.
  EXPECT_THROW(parseFatbin(fb.data(), bytes, 100), FatbinError);
  // Every byte of the container flipped in turn (a stride keeps it quick): parses or throws.
  for (std::size_t i = 0; i < bytes; i += 7) {
    auto damaged = fb;
    damaged[i] ^= 0x5a;
    try {
      const auto entries = parseFatbin(damaged.data(), bytes, kLimit);
      for (const auto& e : entries) EXPECT_LE(e.text.size(), kLimit);
    } catch (const FatbinError&) {
    }
  }
}

}  // namespace
