// Launch grids are checked, never truncated: the reproducers once
// emitted grids of 1 and 0 blocks for tensors that need billions.
#include "codegen/launch_grid.h"

#include <string>

#include "codegen/kernel_codegen.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

absl::Status FirstKernelStatus(const Graph& graph) {
  absl::StatusOr<Plan> plan = PlanFusion(graph, DeviceLimits{});
  if (!plan.ok()) return plan.status();
  return GenerateKernel(graph, plan->kernels.front(), DeviceLimits{}).status();
}

unsigned FirstKernelGrid(const Graph& graph) {
  absl::StatusOr<Plan> plan = PlanFusion(graph, DeviceLimits{});
  EXPECT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<GeneratedKernel> kernel = GenerateKernel(graph, plan->kernels.front(), DeviceLimits{});
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  return kernel.ok() ? kernel->launch.grid : 0;
}

TEST(LaunchGridTest, AcceptsUpToTheDeviceLimit) {
  EXPECT_EQ(*LaunchGrid("k", 1), 1u);
  EXPECT_EQ(*LaunchGrid("k", kMaxGridBlocks), 2147483647u);
  ExpectInvalid(LaunchGrid("f3_pointwise", kMaxGridBlocks + 1).status(),
                "kernel f3_pointwise needs 2147483648 blocks; a launch grid holds at most 2147483647");
  EXPECT_EQ(LaunchGrid("k", 0).status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(CappedGrid(0), 1u);
  EXPECT_EQ(CappedGrid(int64_t{1} << 40), 2147483647u);
}

TEST(LaunchGridTest, PointwiseKernelsPastTheGridLimitAreRefused) {
  for (int64_t n : {int64_t{17592186048512}, int64_t{1} << 48}) {
    GraphBuilder b;
    const Graph graph = *b.Build({Exp(b.Input("x", DType::kF32, {n})).Named("y")});
    ExpectInvalid(FirstKernelStatus(graph),
                  n == int64_t{1} << 48
                      ? "kernel f0_pointwise needs 68719476736 blocks; a launch grid holds at most 2147483647"
                      : "kernel f0_pointwise needs 4294967297 blocks; a launch grid holds at most 2147483647");
  }
  // The largest f32 tensor a grid covers: 2^31 - 1 blocks of 1024 vectors of 4.
  GraphBuilder b;
  const Graph graph = *b.Build({Exp(b.Input("x", DType::kF32, {kMaxGridBlocks * 4096})).Named("y")});
  EXPECT_EQ(FirstKernelGrid(graph), 2147483647u);
}

TEST(LaunchGridTest, RowKernelsPastTheGridLimitAreRefused) {
  GraphBuilder b;
  const Graph graph = *b.Build({ReduceSum(b.Input("x", DType::kF32, {int64_t{1} << 47, 2}), {1}).Named("y")});
  ExpectInvalid(FirstKernelStatus(graph),
                "kernel f0_row_reduction needs 137438953472 blocks; a launch grid holds at most 2147483647");
}

// Transposes launch a block per tile, capped (tests/codegen/transpose_emitter_test.cc).
TEST(LaunchGridTest, GridStrideKernelsCapTheirGridAtOneWave) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {int64_t{1} << 24, int64_t{1} << 24});
  const Graph slice = *b.Build({Slice(x, {0, 0}, {1, 2}, {int64_t{1} << 24, int64_t{1} << 23}).Named("s")});
  EXPECT_EQ(FirstKernelGrid(slice), 132u * 8);
}

}  // namespace
}  // namespace kiln
