// How the planner treats tensor constants (read like inputs, counted in the
// traffic), scalar constants (free immediates) and slices (a kernel each).
#include "fusion/planner.h"

#include "fusion/traffic.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/constant_test_graphs.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Names(const Graph& graph, const std::vector<NodeId>& ids) {
  std::vector<std::string> names;
  for (NodeId id : ids) names.push_back(graph.node(id).name);
  return names;
}

TEST(ConstantPlanningTest, TensorConstantsAreKernelInputsAndCountAsReads) {
  const int64_t m = 64, n = 96, k = 32;
  const Graph graph = DenseLayerWithWeights(DType::kBF16, m, n, k);
  const Plan fused = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(fused.kernels.size(), 1u);
  const Kernel& kernel = fused.kernels[0];
  EXPECT_EQ(kernel.kind, KernelKind::kMatmul);
  EXPECT_THAT(Names(graph, kernel.inputs), ElementsAre("x", "w", "bias", "mask"));
  // x, w and bias in bf16, the mask in bool bytes; the scalar 0 is free.
  EXPECT_EQ(kernel.traffic.bytes_read, (m * k + k * n + n) * 2 + m * n);
  EXPECT_EQ(kernel.traffic.bytes_written, m * n * 2);

  const Plan unfused = *PlanUnfused(graph, DeviceLimits{});
  ASSERT_EQ(unfused.kernels.size(), 4u);
  EXPECT_THAT(Names(graph, unfused.kernels[1].inputs), ElementsAre("matmul_5", "bias"));
  EXPECT_THAT(Names(graph, unfused.kernels[3].inputs), ElementsAre("mask", "relu_7"));
}

TEST(ConstantPlanningTest, ReshapedConstantsAreReadFromMemory) {
  const Graph graph = ReshapedConstants();
  const Plan fused = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(fused.kernels.size(), 1u);
  EXPECT_THAT(Names(graph, fused.kernels[0].inputs), ElementsAre("x", "one", "row"));
  EXPECT_EQ(fused.kernels[0].traffic.bytes_read, (6 + 1 + 6) * 4);
}

TEST(ConstantPlanningTest, ConstantOutputsNeedNoKernel) {
  const Graph graph = ConstantOutputs();
  EXPECT_TRUE(PlanFusion(graph, DeviceLimits{})->kernels.empty());
  EXPECT_TRUE(PlanUnfused(graph, DeviceLimits{})->kernels.empty());
}

TEST(ConstantPlanningTest, EachSliceIsAKernelReadingItsWholeOperand) {
  const int64_t rows = 10, d = 8;
  const Graph graph = SplitAndBroadcast(DType::kF32, rows, d);
  const Plan fused = *PlanFusion(graph, DeviceLimits{});
  std::vector<std::string> kinds;
  for (const Kernel& kernel : fused.kernels) kinds.push_back(kernel.name);
  EXPECT_THAT(kinds, ElementsAre("f0_slice", "f1_slice", "f2_slice", "f3_slice", "f4_slice", "f5_pointwise"));
  EXPECT_THAT(Names(graph, fused.kernels[5].nodes), ElementsAre("mul_6", "y", "z"));
  const Kernel& q = fused.kernels[0];
  EXPECT_EQ(q.Strategy(), "index-mapped copy");
  EXPECT_EQ(q.traffic.bytes_read, rows * 3 * d * 4);
  EXPECT_EQ(q.traffic.bytes_written, rows * d * 4);
  const Kernel& wide = fused.kernels[4];
  EXPECT_THAT(Names(graph, wide.nodes), ElementsAre("wide"));
  EXPECT_EQ(wide.traffic.bytes_read, d * 4);
  ASSERT_FALSE(fused.boundaries.empty());
  EXPECT_EQ(fused.boundaries[0].reason, "a slice runs as its own kernel");
}

}  // namespace
}  // namespace kiln
