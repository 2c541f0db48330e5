#include "runtime/kernel_launch.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(LaunchConfigOfTest, TakesTheGeneratedShape) {
  GeneratedKernel kernel;
  kernel.launch = {.grid = 5340, .block = 512, .cluster = 4, .shared_bytes = 32768, .resident_grid = true};
  const LaunchConfig config = LaunchConfigOf(kernel);
  EXPECT_EQ(config.grid[0], 5340u);
  EXPECT_EQ(config.block[0], 512u);
  EXPECT_EQ(config.shared_bytes, 32768u);
  // The source declares the cluster size; a plain launch forms it.
  EXPECT_EQ(config.cluster_x, 1u);
}

TEST(ResidentGridNoteTest, CountsTheUnitsThatTakeTheWorkInTurn) {
  EXPECT_EQ(ResidentGridNote(1335 * 4, 120 * 4, 4),
            "the work of 1335 clusters of 4 blocks, taken in turn by the 120 that fit on the GPU at once");
  EXPECT_EQ(ResidentGridNote(1000, 264, 1), "the work of 1000 blocks, taken in turn by the 264 that fit on the GPU at once");
}

TEST(ResidentGridNoteTest, AGridThatFitsIsLaunchedWhole) {
  EXPECT_EQ(ResidentGridNote(64 * 8, 64 * 8, 8), "all 64 clusters of 8 blocks fit on the GPU at once");
  EXPECT_EQ(ResidentGridNote(132, 132, 1), "all 132 blocks fit on the GPU at once");
}

}  // namespace
}  // namespace kiln
