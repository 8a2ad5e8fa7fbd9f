// The words a store's line request carries (MemRequest::word_mask): the L2 tells whole sectors from
// partly written ones by them (l2.write_cycles_per_partial_sector, l2.partial_sector_fill). Every
// expected mask follows from the lanes' addresses: bit w of a line's mask is its bytes 4w .. 4w+3.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>

#include "base/stats.h"
#include "sm/timing/lsu.h"
#include "tlm/gpu_config.h"
#include "tlm/gpu_params.h"

namespace scgpu::sm::timing {
namespace {

constexpr std::uint64_t kBase = 0x7000'0000'0000ull;  // the device heap's first address

// One warp store through the tiny preset's LSU: the word mask of each line request, by line.
std::map<std::uint64_t, std::uint32_t> storeWords(std::uint32_t bytes, std::uint64_t (*addr)(int lane)) {
  StatsRegistry stats;
  const SmParams sm = GpuConfig::load(GpuConfig::resolve("tiny")).params().sm;
  Lsu lsu(sm, 0, stats, "gpu.sm[0]");
  MemTrace t;
  t.mask = ~0u;
  t.bytes = bytes;
  t.write = true;
  for (int lane = 0; lane < 32; ++lane) {
    t.addr[lane] = addr(lane);
    t.space[lane] = ptx::Space::Global;
  }
  LsuRequest r;
  lsu.enqueue(t, r);
  std::map<std::uint64_t, std::uint32_t> words;
  for (std::uint64_t now = 0; now < 1000 && !lsu.idle(); ++now) {
    lsu.handleResponses(now);
    lsu.step(now);
    lsu.commitTranslations();
    while (lsu.hasRequest()) {
      memsys::MemRequest q = lsu.peekRequest();
      lsu.popRequest();
      EXPECT_EQ(q.op, memsys::MemOp::Write);
      words[q.addr] = q.word_mask;
      q.response = true;
      lsu.acceptResponse(q, now);
    }
  }
  return words;
}

TEST(LsuStoreWords, CoalescedStoreWritesEveryWordOfItsLine) {
  const auto w = storeWords(4, [](int lane) { return kBase + 4 * std::uint64_t(lane); });
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w.at(kBase), 0xFFFFFFFFu);
}

TEST(LsuStoreWords, ScatteredStoreWritesOneWordPerLine) {
  // Lane L writes the second word of line L (a transpose's column): one word, in sector 0.
  const auto w = storeWords(4, [](int lane) { return kBase + 128 * std::uint64_t(lane) + 4; });
  ASSERT_EQ(w.size(), 32u);
  for (const auto& [line, mask] : w) EXPECT_EQ(mask, 0x2u) << std::hex << line;
}

TEST(LsuStoreWords, WideAndNarrowStoresMarkTheWordsTheyTouch) {
  // 16-byte stores, lanes 64 bytes apart: two lanes per line, words 0-3 and 16-19.
  const auto wide = storeWords(16, [](int lane) { return kBase + 64 * std::uint64_t(lane); });
  ASSERT_EQ(wide.size(), 16u);
  for (const auto& [line, mask] : wide) EXPECT_EQ(mask, 0x000F000Fu) << std::hex << line;
  // 2-byte stores of consecutive lanes: 64 bytes, words 0-15 of one line (a half-word marks its word).
  const auto narrow = storeWords(2, [](int lane) { return kBase + 2 * std::uint64_t(lane); });
  ASSERT_EQ(narrow.size(), 1u);
  EXPECT_EQ(narrow.at(kBase), 0x0000FFFFu);
}

}  // namespace
}  // namespace scgpu::sm::timing
