// The halves of a block's reduction scratch (codegen/device/kiln_device.cuh,
// kiln_scratch_half) run on the CPU: consecutive reductions, whatever each
// writes (a float a warp, an online pair's two or the moments' three), never
// touch each other's floats, and all stay within the scratch the row emitter
// declares, its halves as wide as the widest statistic.
#include "gtest/gtest.h"
// clang-format off: the shim must come before the device code (whose
// `#pragma unroll`s tests/CMakeLists.txt keeps the host compiler quiet about).
#include "tests/codegen/device_host.h"
#include "codegen/device/kiln_device.cuh"
// clang-format on

namespace kiln {
namespace {

// Floats a reduction writes into its half for 32 warps.
constexpr int kPlain = 32;
constexpr int kPair = 32 * KilnOnline::kFloats;
constexpr int kMoments = 32 * KilnMoments::kFloats;

template <int kHalf>
void ExpectDisjointHalves(std::initializer_list<int> widths) {
  float scratch[2][kHalf];
  int turn = 0;
  float* previous = nullptr;
  int previous_width = 0;
  for (int width : widths) {
    float* half = kiln_scratch_half(scratch, turn);
    EXPECT_GE(half, &scratch[0][0]);
    EXPECT_LE(half + width, &scratch[0][0] + 2 * kHalf);
    if (previous != nullptr) {
      EXPECT_TRUE(half + width <= previous || previous + previous_width <= half)
          << "a reduction of " << width << " floats overlaps the one before, of " << previous_width;
    }
    previous = half;
    previous_width = width;
  }
  EXPECT_EQ(turn, static_cast<int>(widths.size()));
}

TEST(RowScratchHostTest, ConsecutiveReductionsWriteDisjointHalves) {
  // An entropy's order (a pair, then a sum), and the other orders of plain,
  // paired and moments reductions, each over halves of its kernel's widest.
  ExpectDisjointHalves<kPlain>({kPlain, kPlain, kPlain});
  ExpectDisjointHalves<kPair>({kPair, kPlain, kPair, kPair, kPlain, kPlain, kPair});
  ExpectDisjointHalves<kMoments>({kMoments, kPlain, kPair, kMoments, kMoments, kPlain});
}

}  // namespace
}  // namespace kiln
