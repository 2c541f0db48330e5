#include "runtime/tuning_key.h"

#include "codegen/kernel_codegen.h"
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

// The key covers the device library the kernel includes as well as its body:
// a choice timed on other library code is timed again.
TEST(KernelTuningKeyTest, HashesTheDeviceLibraryWithTheBody) {
  const Graph graph = SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 100, 262147);
  const DeviceLimits limits;
  absl::StatusOr<Plan> plan = PlanFusion(graph, limits);
  ASSERT_TRUE(plan.ok()) << plan.status();
  Kernel keyed = plan->kernels[0];
  keyed.name = "kiln_tuning_key";
  absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, keyed, limits);
  ASSERT_TRUE(generated.ok()) << generated.status();
  ASSERT_NE(generated->Source(), generated->body);
  absl::StatusOr<Hash128> key = KernelTuningKey(TuningKind::kLaunchBound, graph, plan->kernels[0], limits, kH200);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, TuningKey(TuningKind::kLaunchBound, generated->Source(), kH200, limits.Arch()));
  EXPECT_NE(*key, TuningKey(TuningKind::kLaunchBound, generated->body, kH200, limits.Arch()));
}

}  // namespace
}  // namespace kiln
