// Vectors of 16-bit values read as 32-bit words (codegen/device/
// kiln_device.cuh) run on the CPU: kiln_bf16_at converts every element as
// kiln_bf16_to_f32 does, and kiln_load_span of 16-bit values, which joins
// its two paths as words, returns the elements inside its span and zeros
// outside, wherever the span cuts the vector.
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
// clang-format off: the shim must come before the device code (whose
// `#pragma unroll`s tests/CMakeLists.txt keeps the host compiler quiet about).
#include "tests/codegen/device_host.h"
#include "codegen/device/kiln_device.cuh"
// clang-format on

namespace kiln {
namespace {

unsigned Bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

TEST(HalfWordsHostTest, Bf16ElementsConvertFromTheirWords) {
  // Signs, zeros, subnormals, infinities, NaNs and ordinary values, in both
  // halves of a word and beside every other pattern.
  const std::vector<unsigned short> patterns = {0x0000, 0x8000, 0x0001, 0x807f, 0x3f80, 0xbf80, 0x7f7f,
                                                0x7f80, 0xff80, 0x7fc1, 0x4049, 0xc2f7, 0x0080, 0x1234};
  for (unsigned short lo : patterns) {
    for (unsigned short hi : patterns) {
      KilnVec<unsigned short, 8> v = {{lo, hi, hi, lo, 0x3f80, lo, hi, 0xffff}};
      for (int j = 0; j < 8; ++j) {
        EXPECT_EQ(Bits(kiln_bf16_at(v, j)), Bits(kiln_bf16_to_f32(v.v[j])))
            << "element " << j << " of a vector holding 0x" << std::hex << lo << " and 0x" << hi;
      }
    }
  }
}

TEST(HalfWordsHostTest, SpansOfHalvesHoldTheElementsInsideTheirEnds) {
  constexpr int kN = 8;
  alignas(16) unsigned short p[4 * kN];
  for (int i = 0; i < 4 * kN; ++i) p[i] = static_cast<unsigned short>(0x100 + i);
  for (int begin = 0; begin <= 2 * kN; ++begin) {
    for (int end = begin; end <= 4 * kN; ++end) {
      for (int g = 0; g + kN <= 4 * kN; g += kN) {
        const KilnVec<unsigned short, kN> got = kiln_load_span<unsigned short, kN>(p, g, begin, end);
        for (int j = 0; j < kN; ++j) {
          const bool inside = g + j >= begin && g + j < end;
          EXPECT_EQ(got.v[j], inside ? p[g + j] : 0)
              << "element " << j << " of the vector at " << g << ", span [" << begin << ", " << end << ")";
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln
