// The halves of a block's reduction scratch (codegen/device/kiln_device.cuh,
// kiln_scratch_half) run on the CPU: consecutive reductions, whatever each
// writes (a float a warp, or an online pair's two), never touch each other's
// floats, and all stay within the 2 * kKilnScratchHalf floats the row emitter
// declares.
#include "gtest/gtest.h"
// clang-format off: the shim must come before the device code (whose
// `#pragma unroll`s tests/CMakeLists.txt keeps the host compiler quiet about).
#include "tests/codegen/device_host.h"
#include "codegen/device/kiln_device.cuh"
// clang-format on

namespace kiln {
namespace {

// Floats a reduction writes into its half for 32 warps: 32 for a plain one,
// 64 for an online pair (32 maxima, then 32 sums).
constexpr int kPlain = 32;
constexpr int kPair = 64;

TEST(RowScratchHostTest, ConsecutiveReductionsWriteDisjointHalves) {
  float scratch[2 * kKilnScratchHalf];
  int turn = 0;
  // An entropy's order, and the other orders of plain and paired reductions.
  const int widths[] = {kPair, kPlain, kPair, kPair, kPlain, kPlain, kPair};
  float* previous = nullptr;
  int previous_width = 0;
  for (int width : widths) {
    float* half = kiln_scratch_half(scratch, turn);
    EXPECT_GE(half, scratch);
    EXPECT_LE(half + width, scratch + 2 * kKilnScratchHalf);
    if (previous != nullptr) {
      EXPECT_TRUE(half + width <= previous || previous + previous_width <= half)
          << "a reduction of " << width << " floats overlaps the one before, of " << previous_width;
    }
    previous = half;
    previous_width = width;
  }
  EXPECT_EQ(turn, 7);
}

}  // namespace
}  // namespace kiln
