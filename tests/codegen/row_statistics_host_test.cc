// The statistics row kernels reduce as one (codegen/device/kiln_device.cuh:
// KilnOnline, KilnMoments) run on the CPU: rows split into threads' parts as
// a held row kernel splits them (parts of different lengths, empty ones),
// each part's statistic taken the way the kernel takes it, then combined in
// the order of a warp's shuffles and of a block's partials. The result must
// match the row's max and sum of exp, or its mean and variance, computed
// whole in double precision.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
// clang-format off: the shim must come before the device code (whose
// `#pragma unroll`s tests/CMakeLists.txt keeps the host compiler quiet about).
#include "tests/codegen/device_host.h"
#include "codegen/device/kiln_device.cuh"
// clang-format on

namespace kiln {
namespace {

// Splits [0, n) into `parts` consecutive parts of random lengths (some
// empty), as the threads of a row's blocks hold it.
std::vector<std::pair<size_t, size_t>> RandomParts(size_t n, int parts, std::mt19937& rng) {
  std::vector<size_t> cuts = {0, n};
  std::uniform_int_distribution<size_t> at(0, n);
  for (int i = 1; i < parts; ++i) cuts.push_back(at(rng));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) out.push_back({cuts[i], cuts[i + 1]});
  return out;
}

// Combines the statistics as a warp's butterfly does, 32 at a time, then the
// warps' results in order, as kiln_block_stat does.
template <typename S>
S CombineLikeABlock(std::vector<S> parts) {
  while (parts.size() % 32 != 0) parts.push_back(S::identity());
  std::vector<S> warps;
  for (size_t w = 0; w < parts.size(); w += 32) {
    std::vector<S> lanes(parts.begin() + w, parts.begin() + w + 32);
    for (int offset = 16; offset > 0; offset >>= 1) {
      std::vector<S> next(32);
      for (int lane = 0; lane < 32; ++lane) next[lane] = S::combine(lanes[lane], lanes[lane ^ offset]);
      lanes = next;
    }
    warps.push_back(lanes[0]);
  }
  S total = S::identity();
  for (const S& w : warps) total = S::combine(total, w);
  return total;
}

// What a held row kernel's thread computes over its part in one pass: the
// sums of its values and their squares, shifted by its first value.
KilnMoments PartMoments(const std::vector<float>& x, size_t begin, size_t end) {
  const float shift = begin < end ? x[begin] : 0.0f;
  float sum = 0.0f;
  float sq = 0.0f;
  int count = 0;
  for (size_t i = begin; i < end; ++i) {
    const float d = x[i] - shift;
    sum += d;
    sq += d * d;
    ++count;
  }
  return kiln_moments_shifted(count, shift, sum, sq);
}

// The max of a part, then its sum of exp against that max (0 for none or -inf).
KilnOnline PartOnline(const std::vector<float>& x, size_t begin, size_t end) {
  float m = KilnMax::identity();
  for (size_t i = begin; i < end; ++i) m = KilnMax::combine(m, x[i]);
  const float base = m == -KILN_INF ? 0.0f : m;
  float s = 0.0f;
  for (size_t i = begin; i < end; ++i) s += expf(x[i] - base);
  return {m, s};
}

// Rows far from zero against their spread: a sum of squares less the square
// of the sum would lose every digit of the variance in f32; shifted by one of
// the part's values, they keep them.
TEST(RowStatisticsHostTest, MomentsOfPartsCombineToTheRowsMeanAndVariance) {
  std::mt19937 rng(7);
  for (const auto& [n, offset, spread] : {std::tuple{size_t{50257}, 1000.0f, 1.0f}, std::tuple{size_t{4093}, 0.0f, 3.0f},
                                          std::tuple{size_t{131071}, -20.0f, 0.01f}, std::tuple{size_t{7}, 5.0f, 2.0f}}) {
    SCOPED_TRACE(n);
    std::normal_distribution<float> value(offset, spread);
    std::vector<float> x(n);
    for (float& v : x) v = value(rng);
    double mean = 0;
    for (float v : x) mean += v;
    mean /= static_cast<double>(n);
    double var = 0;
    for (float v : x) var += (v - mean) * (v - mean);
    var /= static_cast<double>(n);
    // A thread's part is at most a few dozen elements, as in the kernels,
    // so its own f32 sum stays exact to a few ulps.
    for (int parts : {std::max<int>(1, n / 64), std::max<int>(1, n / 8)}) {
      SCOPED_TRACE(parts);
      std::vector<KilnMoments> moments;
      for (const auto& [begin, end] : RandomParts(n, parts, rng)) moments.push_back(PartMoments(x, begin, end));
      const KilnMoments total = CombineLikeABlock(moments);
      EXPECT_EQ(total.n, static_cast<float>(n));
      EXPECT_NEAR(total.mean, mean, 1e-6 * std::max(1.0, std::abs(mean)) + 1e-4 * spread);
      EXPECT_NEAR(total.m2 / static_cast<float>(n), var, 1e-4 * var);
    }
  }
}

// A streamed row joins a vector at a time (kiln_moments_push_vec) and an
// unaligned end an element at a time (kiln_moments_push).
TEST(RowStatisticsHostTest, PushedVectorsAndElementsGiveTheSameMoments) {
  std::mt19937 rng(11);
  std::normal_distribution<float> value(300.0f, 2.0f);
  std::vector<float> x(8 * 1000 + 5);
  for (float& v : x) v = value(rng);
  KilnMoments pushed = KilnMoments::identity();
  size_t i = 0;
  for (; i + 8 <= x.size(); i += 8) {
    float vec[8];
    std::copy(x.begin() + i, x.begin() + i + 8, vec);
    pushed = kiln_moments_push_vec(pushed, vec);
  }
  for (; i < x.size(); ++i) pushed = kiln_moments_push(pushed, x[i]);
  const KilnMoments whole = PartMoments(x, 0, x.size());
  EXPECT_EQ(pushed.n, whole.n);
  EXPECT_NEAR(pushed.mean, whole.mean, 1e-5f * 300.0f);
  EXPECT_NEAR(pushed.m2, whole.m2, 1e-4f * whole.m2);
}

TEST(RowStatisticsHostTest, NoElementsAreTheIdentity) {
  const KilnMoments none = CombineLikeABlock(std::vector<KilnMoments>(64, PartMoments({}, 0, 0)));
  EXPECT_EQ(none.n, 0.0f);
  EXPECT_EQ(none.m2, 0.0f);
  const KilnMoments one = KilnMoments::combine(PartMoments({}, 0, 0), PartMoments({2.5f}, 0, 1));
  EXPECT_EQ(one.n, 1.0f);
  EXPECT_EQ(one.mean, 2.5f);
  EXPECT_EQ(one.m2, 0.0f);
}

// Parts whose elements are all -inf (masked positions) or that are empty add
// nothing; the rest combine to the row's max and its sum of exp(x - max).
TEST(RowStatisticsHostTest, OnlinePartsCombineToTheRowsMaxAndSumOfExp) {
  std::mt19937 rng(3);
  std::normal_distribution<float> value(0.0f, 4.0f);
  std::bernoulli_distribution masked(0.3);
  std::vector<float> x(50257);
  for (size_t i = 0; i < x.size(); ++i) x[i] = i < 4096 || masked(rng) ? -KILN_INF : value(rng);
  double m = -std::numeric_limits<double>::infinity();
  for (float v : x) m = std::max<double>(m, v);
  double s = 0;
  for (float v : x) s += std::exp(static_cast<double>(v) - m);
  for (int parts : {static_cast<int>(x.size() / 64), static_cast<int>(x.size() / 16)}) {
    SCOPED_TRACE(parts);
    std::vector<KilnOnline> online;
    for (const auto& [begin, end] : RandomParts(x.size(), parts, rng)) online.push_back(PartOnline(x, begin, end));
    // The first 4096 elements are all -inf, so many parts are.
    const KilnOnline total = CombineLikeABlock(online);
    EXPECT_EQ(total.m, static_cast<float>(m));
    EXPECT_NEAR(total.s, s, 1e-5 * s);
  }
  const KilnOnline masked_row = CombineLikeABlock(std::vector<KilnOnline>(8, PartOnline({-KILN_INF, -KILN_INF}, 0, 2)));
  EXPECT_EQ(masked_row.m, -KILN_INF);
  EXPECT_EQ(masked_row.s, 0.0f);
}

}  // namespace
}  // namespace kiln
