#include "runtime/cluster_residency.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(ClusterWavesTextTest, CountsTheWavesOfAGridThatOverflowsByAFewClusters) {
  EXPECT_EQ(ClusterWavesText(32, 30, 8),
            "clusters of 8 blocks: 30 fit on the GPU at once, so the grid's 32 run in 2 waves");
}

TEST(ClusterWavesTextTest, AGridThatFitsRunsInOneWave) {
  EXPECT_EQ(ClusterWavesText(32, 32, 8),
            "clusters of 8 blocks: 32 fit on the GPU at once, so the grid's 32 run in 1 wave");
  EXPECT_EQ(ClusterWavesText(523, 33, 8),
            "clusters of 8 blocks: 33 fit on the GPU at once, so the grid's 523 run in 16 waves");
}

TEST(ClusterWavesTextTest, SaysWhenNoClusterFits) {
  EXPECT_EQ(ClusterWavesText(4, 0, 16), "clusters of 16 blocks: none fits on the GPU");
}

}  // namespace
}  // namespace kiln
