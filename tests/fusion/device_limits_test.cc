// The clusters planning counts on (fusion/device_limits.h).
#include "fusion/device_limits.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(DeviceLimitsTest, ResidentClustersAreTheMeasuredCounts) {
  const DeviceLimits limits;
  // An H100's: 30 clusters of 8 at two blocks an SM, where 264 slots allow 33.
  EXPECT_EQ(limits.ResidentClusters(8, 2), 30);
  EXPECT_EQ(limits.ResidentClusters(4, 1), 30);
  EXPECT_EQ(limits.ResidentClusters(2, 4), 264);
}

TEST(DeviceLimitsTest, CountsNotInTheTableAreTheBlockSlots) {
  DeviceLimits limits;
  EXPECT_EQ(limits.ResidentClusters(8, 6), 132 * 6 / 8);  // past the table's blocks an SM
  EXPECT_EQ(limits.ResidentClusters(16, 2), 132 * 2 / 16);  // past its cluster sizes
  EXPECT_EQ(limits.cluster_residency.At(3, 1), 0);          // no table row for clusters of 3
  limits.cluster_residency = {};
  EXPECT_EQ(limits.ResidentClusters(8, 2), 33);
}

}  // namespace
}  // namespace kiln
