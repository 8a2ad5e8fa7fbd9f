// The tensor cores' fast fused sums (mma::fusedDotRow: a row of D at a time, in doubles and
// vectors) against the plain one (mma::fusedDot: each term's integer significand shifted and
// summed in 64 bits), which the silicon data checks (tensor_test.cpp, wgmma_test.cpp): every input
// type and accumulator, both alignments, row widths with and without a scalar tail, random bit
// patterns (every exponent, subnormals, zeros) and narrow exponent windows (where truncation and
// cancellation decide the last bits), accumulators that are NaN or infinite, on the wide and the
// SSE2 vectors.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sm/exec/mma_arith.h"

namespace scgpu::sm::mma {
namespace {

using ptx::MatElem;

struct Format { MatElem type; int ebits, fbits; };
constexpr Format kInputs[] = {{MatElem::F16, 5, 10}, {MatElem::BF16, 8, 7}, {MatElem::TF32, 8, 10},
                              {MatElem::E4M3, 4, 3}, {MatElem::E5M2, 5, 2}};

// A finite element's raw bits: anything (but NaN and infinity), or an exponent within `window`
// of the format's middle.
std::uint32_t randomElement(std::mt19937_64& rng, const Format& f, int window) {
  for (;;) {
    std::uint32_t e = std::uint32_t(rng()) & ((1u << f.ebits) - 1);
    if (window) e = ((1u << (f.ebits - 1)) + std::uint32_t(rng() % std::uint64_t(window))) & ((1u << f.ebits) - 1);
    const std::uint32_t frac = std::uint32_t(rng()) & ((1u << f.fbits) - 1), sign = std::uint32_t(rng() & 1);
    std::uint32_t bits = sign << (f.ebits + f.fbits) | e << f.fbits | frac;
    if (rng() % 16 == 0) bits = sign << (f.ebits + f.fbits);  // zeros
    if (f.type == MatElem::TF32) bits = bits << 13 | std::uint32_t(rng() & 0x1FFF);  // low bits ignored
    const Element d = decode(bits, f.type);
    if (!d.nan && !d.inf) return bits;
  }
}

std::uint32_t randomAccumulator(std::mt19937_64& rng, MatElem acc, int window) {
  const bool f16 = acc == MatElem::F16;
  const int ebits = f16 ? 5 : 8, fbits = f16 ? 10 : 23;
  std::uint32_t e = std::uint32_t(rng()) & ((1u << ebits) - 1);
  if (window) e = (1u << (ebits - 1)) + std::uint32_t(rng() % std::uint64_t(window));
  if (rng() % 32 == 0) e = (1u << ebits) - 1;  // NaN or infinity
  const std::uint32_t frac = std::uint32_t(rng() % 3 == 0 ? 0 : rng()) & ((1u << fbits) - 1);
  return std::uint32_t(rng() & 1) << (ebits + fbits) | e << fbits | frac;
}

void checkAll(bool wide) {
  useWideVectors(wide);
  std::mt19937_64 rng(20261127);
  std::size_t checked = 0;
  for (const Format& f : kInputs)
    for (MatElem acc : {MatElem::F32, MatElem::F16})
      for (int align : {kAlignBits, kWgmmaFp8AlignBits})
        for (int n : {8, 13, 256})
          for (int k : {4, 16, 32})
            for (int window : {0, 3, 12})
              for (int rep = 0; rep < 3; ++rep) {
                const int m = 2;
                std::vector<std::uint64_t> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
                for (auto& x : a) x = randomElement(rng, f, window);
                for (auto& x : b) x = randomElement(rng, f, window);
                std::vector<std::uint32_t> c(static_cast<std::size_t>(n)), d(c.size());
                FiniteElements fa, fb;
                ASSERT_TRUE(fa.assign(a.data(), a.size(), f.type));
                ASSERT_TRUE(fb.assign(b.data(), b.size(), f.type));
                std::vector<Element> ea(a.size()), eb(b.size());
                for (std::size_t i = 0; i < a.size(); ++i) ea[i] = decode(std::uint32_t(a[i]), f.type);
                for (std::size_t i = 0; i < b.size(); ++i) eb[i] = decode(std::uint32_t(b[i]), f.type);
                for (int i = 0; i < m; ++i) {
                  for (auto& x : c) x = randomAccumulator(rng, acc, window);
                  fusedDotRow(fa, std::size_t(i * k), fb, 0, n, k, c.data(), d.data(), acc, align);
                  for (int j = 0; j < n; ++j) {
                    const std::uint32_t want =
                        fusedDot(&ea[std::size_t(i * k)], &eb[std::size_t(j)], std::size_t(n), k, c[std::size_t(j)], acc, align);
                    ASSERT_EQ(d[std::size_t(j)], want)
                        << "type " << int(f.type) << " acc " << int(acc) << " align " << align << " n " << n << " k " << k
                        << " window " << window << " row " << i << " column " << j << " c " << std::hex << c[std::size_t(j)];
                    ++checked;
                  }
                }
              }
  EXPECT_GT(checked, 100000u);
}

TEST(MmaArith, RowSumsEqualThePlainFusedSumOnWideVectors) {
  checkAll(true);
  useWideVectors(true);
}

TEST(MmaArith, RowSumsEqualThePlainFusedSumOnSse2Vectors) {
  checkAll(false);
  useWideVectors(true);
}

}  // namespace
}  // namespace scgpu::sm::mma
