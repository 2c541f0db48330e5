#include "runtime/tuning_key.h"

#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

const DeviceInfo kH200{.name = "NVIDIA H200", .sm_major = 9, .sm_minor = 0, .sm_count = 132};

// Held rows in clusters of 8 that loop over their tiles: a kernel both row
// tuners key. Its key names what it computes and its planned schedule, not
// the name the plan gave it, so equal kernels of different graphs share it.
TEST(KernelTuningKeyTest, NamesTheScheduleAndTheTunerButNotTheKernelName) {
  const Graph graph = SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 100, 262147);
  const DeviceLimits limits;
  absl::StatusOr<Plan> plan = PlanFusion(graph, limits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const Kernel& kernel = plan->kernels[0];
  ASSERT_EQ(kernel.row().strategy, RowStrategy::kClusterLooped) << kernel.Strategy();
  ASSERT_EQ(kernel.row().cluster_blocks, 8);
  absl::StatusOr<Hash128> key = KernelTuningKey(TuningKind::kRowClusters, graph, kernel, limits, kH200);
  ASSERT_TRUE(key.ok()) << key.status();

  Kernel renamed = kernel;
  renamed.name = "f7_row_reduction";
  EXPECT_EQ(KernelTuningKey(TuningKind::kRowClusters, graph, renamed, limits, kH200).value_or(Hash128{}), *key);
  Kernel halved = kernel;
  halved.row().cluster_blocks = 4;
  EXPECT_NE(KernelTuningKey(TuningKind::kRowClusters, graph, halved, limits, kH200).value_or(*key), *key);
  EXPECT_NE(KernelTuningKey(TuningKind::kLaunchBound, graph, kernel, limits, kH200).value_or(*key), *key);
  DeviceInfo h100 = kH200;
  h100.name = "NVIDIA H100 80GB HBM3";
  EXPECT_NE(KernelTuningKey(TuningKind::kRowClusters, graph, kernel, limits, h100).value_or(*key), *key);
}

}  // namespace
}  // namespace kiln
