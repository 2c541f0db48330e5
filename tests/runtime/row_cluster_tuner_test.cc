#include "runtime/row_cluster_tuner.h"

#include <map>
#include <vector>

#include "gtest/gtest.h"

namespace kiln {
namespace {

// The resident clusters of each size, and the sizes asked for, in order.
struct FakeCounts {
  std::map<int, int> resident;
  std::vector<int> asked;
  absl::StatusOr<int> operator()(int size) {
    asked.push_back(size);
    return resident.at(size);
  }
};

std::vector<int> Sizes(const std::vector<ClusterCount>& counts) {
  std::vector<int> sizes;
  for (const ClusterCount& c : counts) sizes.push_back(c.cluster_blocks);
  return sizes;
}

// H100 counts at two blocks an SM: 30 clusters of 8, 62 of 4, 132 of 2.
const std::map<int, int> kTwoBlocksAnSm = {{8, 30}, {4, 62}, {2, 132}};

TEST(RowClusterCandidatesTest, ClustersThatAllFitAtOnceAreTheOnlyCandidate) {
  FakeCounts counts{.resident = {{8, 45}, {4, 92}, {2, 198}}};
  absl::StatusOr<std::vector<ClusterCount>> c = RowClusterCandidates(32, 8, std::ref(counts));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Sizes(*c), std::vector<int>{8});
  EXPECT_EQ((*c)[0].resident, 45);
  EXPECT_EQ(counts.asked, std::vector<int>{8});
}

TEST(RowClusterCandidatesTest, HalvesUntilTheRowsFitInOneWave) {
  FakeCounts counts{.resident = kTwoBlocksAnSm};
  absl::StatusOr<std::vector<ClusterCount>> c = RowClusterCandidates(32, 8, std::ref(counts));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Sizes(*c), (std::vector<int>{8, 4}));
  EXPECT_EQ(counts.asked, (std::vector<int>{8, 4}));

  FakeCounts more{.resident = kTwoBlocksAnSm};
  c = RowClusterCandidates(64, 8, std::ref(more));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Sizes(*c), (std::vector<int>{8, 4, 2}));
}

TEST(RowClusterCandidatesTest, StopsAtTheSmallestClusterWhereRowsStillRunInWaves) {
  FakeCounts counts{.resident = kTwoBlocksAnSm};
  absl::StatusOr<std::vector<ClusterCount>> c = RowClusterCandidates(500, 8, std::ref(counts));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Sizes(*c), (std::vector<int>{8, 4, 2}));
}

TEST(RowClusterCandidatesTest, AHalfThatSavesNoWaveIsNotACandidate) {
  // 40 rows: 30 clusters of 8 take 2 waves, and so would 20 of 4.
  FakeCounts counts{.resident = {{8, 30}, {4, 20}, {2, 132}}};
  absl::StatusOr<std::vector<ClusterCount>> c = RowClusterCandidates(40, 8, std::ref(counts));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Sizes(*c), std::vector<int>{8});
}

TEST(RowClusterCandidatesTest, AClusterOfWhichNoneFitsSavesWavesForAnyThatDoes) {
  FakeCounts counts{.resident = {{8, 0}, {4, 62}}};
  absl::StatusOr<std::vector<ClusterCount>> c = RowClusterCandidates(32, 8, std::ref(counts));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(Sizes(*c), (std::vector<int>{8, 4}));
}

TEST(RowClusterCandidatesTest, NoClusterHasNoCandidates) {
  FakeCounts counts;
  absl::StatusOr<std::vector<ClusterCount>> c = RowClusterCandidates(32, 1, std::ref(counts));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->empty());
  EXPECT_TRUE(counts.asked.empty());
}

TEST(RowClusterCandidatesTest, ACountThatFailsIsReturned) {
  absl::StatusOr<std::vector<ClusterCount>> c = RowClusterCandidates(
      32, 8, [](int) -> absl::StatusOr<int> { return absl::FailedPreconditionError("no cluster occupancy"); });
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace kiln
