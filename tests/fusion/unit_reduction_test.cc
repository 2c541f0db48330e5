// Reductions whose reduced axes all have size 1 plan as elementwise work
// (fusion/op_class.h, IsUnitReduction): a normalization over rows of one
// element is one pointwise kernel that reads x once and writes y once, and
// the plan says why. A reduction over a longer axis is unchanged.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "fusion/op_class.h"
#include "fusion/plan_report.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/node_names.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Plan Planned(const Graph& graph, bool fuse) {
  absl::StatusOr<Plan> plan = fuse ? PlanFusion(graph, DeviceLimits{}) : PlanUnfused(graph, DeviceLimits{});
  EXPECT_TRUE(plan.ok()) << plan.status();
  return *plan;
}

// The reductions each sweep op makes, and the weights [last dim] it reads.
int Reductions(RowOp op) {
  return op == RowOp::kSum || op == RowOp::kMax || op == RowOp::kRmsNorm ? 1 : 2;
}
int Weights(RowOp op) { return op == RowOp::kLayerNorm ? 2 : op == RowOp::kRmsNorm ? 1 : 0; }

// One vectorized pointwise kernel: x once, each weight of one element once,
// y once; every reduction listed with its reason.
void ExpectOnePointwiseKernel(RowOp op, DType dtype, const Dims& shape) {
  SCOPED_TRACE(absl::StrCat(RowOpName(op), " ", DTypeName(dtype), " ", DimsString(shape)));
  const Graph graph = RowOpGraph(op, dtype, shape);
  const Plan plan = Planned(graph, /*fuse=*/true);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const Kernel& k = plan.kernels[0];
  EXPECT_EQ(k.kind, KernelKind::kPointwise);
  EXPECT_EQ(k.Strategy(), "vectorized tiles");
  EXPECT_EQ(k.Reason(), "");
  const int64_t bytes = NumElements(shape) * DTypeSize(dtype);
  EXPECT_EQ(k.traffic.bytes_read, bytes + Weights(op) * DTypeSize(dtype));
  EXPECT_EQ(k.traffic.bytes_written, bytes);
  EXPECT_EQ(plan.total.bytes(), k.traffic.bytes());
  EXPECT_THAT(NodeNames(graph, k.outputs), ElementsAre("y"));
  EXPECT_THAT(plan.boundaries, IsEmpty());
  ASSERT_EQ(plan.unit_reductions.size(), static_cast<size_t>(Reductions(op)));
  for (const UnitReduction& u : plan.unit_reductions) {
    EXPECT_TRUE(IsUnitReduction(graph, u.reduction));
    EXPECT_EQ(plan.kernel_of[u.reduction], 0);
    EXPECT_EQ(u.reason, UnitReductionReason(graph, u.reduction));
  }
}

// The sweep's cases over rows of 1, where row kernels ran at half the copy
// rate: every op in every float type.
TEST(UnitReductionTest, SweepOpsOverRowsOfOneAreOnePointwiseKernel) {
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
      ExpectOnePointwiseKernel(op, dtype, {67108864, 1});
    }
  }
}

TEST(UnitReductionTest, ThreeDimensionalRowsOfOneArePointwiseToo) {
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) ExpectOnePointwiseKernel(op, dtype, {8, 4096, 1});
  }
}

// The exact figures of two sweep cases: f16 layernorm reads x and its two
// 1-element weights, bf16 rmsnorm x and one; sum's result drops the axis.
TEST(UnitReductionTest, TrafficIsOneReadAndOneWrite) {
  const Plan layernorm = Planned(SweepRowGraph(RowOp::kLayerNorm, DType::kF16, 67108864, 1), true);
  EXPECT_EQ(layernorm.total.bytes_read, 134'217'732);
  EXPECT_EQ(layernorm.total.bytes_written, 134'217'728);
  const Plan rmsnorm = Planned(SweepRowGraph(RowOp::kRmsNorm, DType::kBF16, 67108864, 1), true);
  EXPECT_EQ(rmsnorm.total.bytes_read, 134'217'730);
  EXPECT_EQ(rmsnorm.total.bytes_written, 134'217'728);
  const Graph sum_graph = SweepRowGraph(RowOp::kSum, DType::kF32, 67108864, 1);
  const Plan sum = Planned(sum_graph, true);
  EXPECT_EQ(sum.total.bytes_read, 268'435'456);
  EXPECT_EQ(sum.total.bytes_written, 268'435'456);
  EXPECT_THAT(NodeNames(sum_graph, sum.kernels[0].inputs), ElementsAre("x"));
  EXPECT_EQ(sum_graph.node(sum.kernels[0].outputs[0]).shape, (Dims{67108864}));
}

// The row epilogue graphs over rows of 1: a residual sum stored beside the
// normalized result, and a softmax with an f32 bias beside its logsumexp.
TEST(UnitReductionTest, EpiloguesAndSecondOutputsStayInTheKernel) {
  const int64_t rows = 100003;
  const Plan residual = Planned(ResidualNormSilu(DType::kF32, rows, 1), true);
  ASSERT_EQ(residual.kernels.size(), 1u);
  EXPECT_EQ(residual.kernels[0].kind, KernelKind::kPointwise);
  EXPECT_EQ(residual.kernels[0].outputs.size(), 2u);
  EXPECT_EQ(residual.total.bytes_read, 2 * rows * 4 + 2 * 4);
  EXPECT_EQ(residual.total.bytes_written, 2 * rows * 4);
  const Plan softmax = Planned(BiasedSoftmaxWithLogSumExp(DType::kF16, rows, 1), true);
  ASSERT_EQ(softmax.kernels.size(), 1u);
  EXPECT_EQ(softmax.kernels[0].kind, KernelKind::kPointwise);
  EXPECT_EQ(softmax.total.bytes_read, rows * 2 + 4);
  EXPECT_EQ(softmax.total.bytes_written, rows * 2 + rows * 4);
  EXPECT_EQ(softmax.unit_reductions.size(), 2u);
}

// Unfused, each reduction is a pointwise kernel of its own.
TEST(UnitReductionTest, UnfusedReductionsArePointwiseKernels) {
  const Graph graph = SweepRowGraph(RowOp::kSoftmax, DType::kF32, 4096, 1);
  const Plan plan = Planned(graph, /*fuse=*/false);
  std::vector<std::string> names;
  for (const Kernel& k : plan.kernels) {
    EXPECT_EQ(k.kind, KernelKind::kPointwise) << k.name;
    names.push_back(k.name);
  }
  EXPECT_THAT(names, ElementsAre("u0_reduce_max", "u1_sub", "u2_exp", "u3_reduce_sum", "u4_div"));
  EXPECT_EQ(plan.unit_reductions.size(), 2u);
}

TEST(UnitReductionTest, ExplainSaysWhyTheReductionIsElementwise) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4096, 1});
  Value ms = ReduceMean(x * x, {1}, true).Named("ms");
  Value y = (x * Rsqrt(ms + 1e-5) * b.Input("w", DType::kF32, {1})).Named("y");
  const Graph graph = *b.Build({y});
  EXPECT_EQ(PlanExplain(graph, Planned(graph, true)),
            "f0_pointwise: vectorized tiles over 6 ops\n"
            "elementwise: node \"ms\" (reduce_mean) reduces axes [1] of [4096,1], all of size 1: each result is the "
            "one element it reduces, so it is computed elementwise (read once, written once) rather than as rows of "
            "1 element\n"
            "no fusion boundaries: every producer shares its consumer's kernel\n");
}

// Expect no change: rows of 2, and a reduction over a size-1 axis and a
// longer one, stay row kernels with nothing listed.
TEST(UnitReductionTest, LongerReducedAxesStayRowKernels) {
  const Plan rows_of_two = Planned(SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 33554432, 2), true);
  ASSERT_EQ(rows_of_two.kernels.size(), 1u);
  EXPECT_EQ(rows_of_two.kernels[0].kind, KernelKind::kRowReduction);
  EXPECT_EQ(rows_of_two.kernels[0].row().strategy, RowStrategy::kPackedPersistent);
  EXPECT_EQ(rows_of_two.kernels[0].row().stages.size(), 2u);
  EXPECT_THAT(rows_of_two.unit_reductions, IsEmpty());

  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4096, 1, 64});
  const Graph mixed = *b.Build({(x / ReduceSum(x, {1, 2}, true)).Named("y")});
  EXPECT_FALSE(IsUnitReduction(mixed, 1));
  const Plan plan = Planned(mixed, true);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].kind, KernelKind::kRowReduction);
  EXPECT_EQ(plan.kernels[0].row().row_length, 64);
  EXPECT_THAT(plan.unit_reductions, IsEmpty());
}

// A unit reduction of a row kernel's per-row value is element code there,
// not a reduction stage.
TEST(UnitReductionTest, UnitReductionInsideARowKernelIsNoStage) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4096, 1024});
  Value e = Exp(x).Named("e");
  Value s = ReduceSum(e, {1}, true).Named("s");
  Value top = ReduceMax(s, {1}, true).Named("top");
  const Graph graph = *b.Build({(e / top).Named("y")});
  const Plan plan = Planned(graph, true);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const Kernel& k = plan.kernels[0];
  EXPECT_EQ(k.kind, KernelKind::kRowReduction);
  ASSERT_EQ(k.row().stages.size(), 1u);
  EXPECT_THAT(NodeNames(graph, k.row().stages[0]), ElementsAre("s"));
  EXPECT_EQ(k.traffic.bytes(), 2 * 4096 * 1024 * 4);
  ASSERT_EQ(plan.unit_reductions.size(), 1u);
  EXPECT_EQ(graph.node(plan.unit_reductions[0].reduction).name, "top");
}

}  // namespace
}  // namespace kiln
