// Row schedules that follow from the row's bytes rather than its element
// count, and small broadcast producers of graph inputs folded into the row
// kernel that consumes them (fusion/grouping.cc, fusion/row_schedule.cc).
#include "fusion/row_schedule.h"

#include <string>
#include <vector>

#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> NodeNames(const Graph& graph, const std::vector<NodeId>& ids) {
  std::vector<std::string> names;
  for (NodeId id : ids) names.push_back(graph.node(id).name);
  return names;
}

Plan Fused(const Graph& graph) {
  absl::StatusOr<Plan> plan = PlanFusion(graph, DeviceLimits{});
  EXPECT_TRUE(plan.ok()) << plan.status();
  return *plan;
}

TEST(RowScheduleTest, WeightCastsFoldIntoTheLayerNormKernel) {
  const Graph graph = LayerNormWithWeights(DType::kBF16, 8192, 8192);
  const Plan plan = Fused(graph);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const Kernel& k = plan.kernels[0];
  EXPECT_EQ(k.kind, KernelKind::kRowReduction);
  EXPECT_THAT(NodeNames(graph, k.inputs), ElementsAre("x", "w", "b"));
  EXPECT_THAT(NodeNames(graph, k.outputs), ElementsAre("y"));
  EXPECT_THAT(NodeNames(graph, k.row().broadcast_nodes), ElementsAre("w32", "b32"));
  // x and y once, the bf16 weight and bias once each: no f32 copies of them.
  EXPECT_EQ(k.traffic.bytes_read, 8192LL * 8192 * 2 + 2 * 8192 * 2);
  EXPECT_EQ(k.traffic.bytes_written, 8192LL * 8192 * 2);
  EXPECT_THAT(plan.boundaries, IsEmpty());
}

TEST(RowScheduleTest, WeightCastsFoldOnEveryRowStrategy) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{65536, 1024}, {16396, 4093}, {523, 128256}}) {
    SCOPED_TRACE(cols);
    const Graph graph = LayerNormWithWeights(DType::kBF16, rows, cols);
    const Plan plan = Fused(graph);
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_THAT(NodeNames(graph, plan.kernels[0].row().broadcast_nodes), ElementsAre("w32", "b32"));
  }
}

// Expect no change: a cast that is also a graph output, or that a second
// kernel reads, keeps its own kernel and is read from memory.
TEST(RowScheduleTest, ProducersUsedElsewhereKeepTheirKernel) {
  {
    GraphBuilder b;
    Value x = b.Input("x", DType::kF32, {64, 4096});
    Value w = Cast(b.Input("w", DType::kBF16, {4096}), DType::kF32).Named("w32");
    Value y = (x - ReduceMax(x, {1}, true)) * w;
    const Graph graph = *b.Build({y.Named("y"), w});
    const Plan plan = Fused(graph);
    ASSERT_EQ(plan.kernels.size(), 2u);
    EXPECT_THAT(NodeNames(graph, plan.kernels[0].nodes), ElementsAre("w32"));
    EXPECT_THAT(plan.kernels[1].row().broadcast_nodes, IsEmpty());
  }
  {
    GraphBuilder b;
    Value x = b.Input("x", DType::kF32, {64, 4096});
    Value w = Cast(b.Input("w", DType::kBF16, {4096}), DType::kF32).Named("w32");
    Value y = (x - ReduceMax(x, {1}, true)) * w;
    Value z = ReduceSum(Exp(x), {0}, true) + w;  // a column reduction: another kernel reads w32
    const Graph graph = *b.Build({y.Named("y"), z.Named("z")});
    const Plan plan = Fused(graph);
    int holding_w32 = 0;
    for (const Kernel& k : plan.kernels) {
      if (NodeNames(graph, k.nodes) == std::vector<std::string>{"w32"}) ++holding_w32;
      if (k.kind == KernelKind::kRowReduction) EXPECT_THAT(k.row().broadcast_nodes, IsEmpty());
    }
    EXPECT_EQ(holding_w32, 1);
  }
}

// A block per row holds 64 bytes of the row a thread: 16 f32 values, 32 bf16.
TEST(RowScheduleTest, BlockThreadsFollowTheRowsBytes) {
  struct Case {
    DType dtype;
    int64_t cols;
    int threads;
    int values_per_thread;
  };
  for (const Case& c : {Case{DType::kF32, 8192, 512, 16}, Case{DType::kBF16, 8192, 256, 32},
                        Case{DType::kF16, 16384, 512, 32}, Case{DType::kBF16, 4093, 128, 32},
                        Case{DType::kBF16, 2048, 128, 16}}) {
    SCOPED_TRACE(c.cols);
    const Plan plan = Fused(*SoftmaxNaive(c.dtype, 8192, c.cols));
    ASSERT_EQ(plan.kernels.size(), 1u);
    const RowSchedule& row = plan.kernels[0].row();
    EXPECT_EQ(row.strategy, RowStrategy::kBlockPersistent);
    EXPECT_EQ(row.threads, c.threads);
    EXPECT_EQ(row.values_per_thread, c.values_per_thread);
  }
}

}  // namespace
}  // namespace kiln
