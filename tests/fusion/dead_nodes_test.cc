// Dead-node elimination: nodes no output depends on get no kernel, no
// traffic and no boundary, and the rest of the plan is what it would be
// without them.
#include "fusion/dead_nodes.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/builder.h"
#include "frontends/graph_file.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Names(const Graph& graph, const std::vector<NodeId>& ids) {
  std::vector<std::string> names;
  for (NodeId id : ids) names.push_back(graph.node(id).name);
  return names;
}

// A plan in node names, so plans of different graphs compare.
std::string Describe(const Graph& graph, const Plan& plan) {
  std::string out;
  for (const Kernel& k : plan.kernels) {
    absl::StrAppend(&out, k.name, " ", k.Strategy(), " nodes=", absl::StrJoin(Names(graph, k.nodes), ","),
                    " in=", absl::StrJoin(Names(graph, k.inputs), ","), " out=",
                    absl::StrJoin(Names(graph, k.outputs), ","), " read=", k.traffic.bytes_read,
                    " written=", k.traffic.bytes_written, "\n");
  }
  for (const Boundary& b : plan.boundaries) {
    absl::StrAppend(&out, graph.node(b.producer).name, "->", graph.node(b.consumer).name, ": ", b.reason, "\n");
  }
  absl::StrAppend(&out, "total=", plan.total.bytes(), " flops=", plan.total.flops, "\n");
  return out;
}

// Live nodes of every kernel kind, and, with `with_dead`, dead nodes of every
// kind beside them: some would have joined a live kernel, some read a live value.
Graph Mixed(bool with_dead) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {64, 128});
  Value w = b.Input("w", DType::kF32, {128, 32});
  Value bias = b.Input("bias", DType::kF32, {32});
  Value y = (Exp(x).Named("e") * 2.0).Named("y");
  if (with_dead) {
    Value dp = Neg(x).Named("dead_sibling");
    (dp * b.Constant(3.0, DType::kF32).Named("dead_three")).Named("dead_scaled");
    ReduceMax(y, {1}).Named("dead_row_max");
    Transpose(x, {1, 0}).Named("dead_transpose");
    ReduceSum(x, {0}).Named("dead_column_sum");
    Matmul(x, w).Named("dead_matmul");
    Reshape(Tanh(x).Named("dead_tanh"), {128, 64}).Named("dead_view");
  }
  Value s = ReduceSum(y, {1}).Named("s");
  Value m = Relu((Matmul(x, w).Named("product") + bias).Named("biased")).Named("m");
  Value t = Transpose(y, {1, 0}).Named("t");
  return *b.Build({s, m, t});
}

TEST(DeadNodesTest, ListsEveryNodeNoOutputDependsOn) {
  const Graph graph = Mixed(true);
  EXPECT_THAT(Names(graph, DeadNodes(graph)),
              ElementsAre("dead_sibling", "dead_three", "dead_scaled", "dead_row_max", "dead_transpose",
                          "dead_column_sum", "dead_matmul", "dead_tanh", "dead_view"));
  EXPECT_THAT(DeadNodes(Mixed(false)), IsEmpty());
  EXPECT_FALSE(WithoutDeadNodes(Mixed(false)).has_value());
}

TEST(DeadNodesTest, UnusedInputsAreNotDead) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4});
  b.Input("unused", DType::kF32, {4});
  const Graph graph = *b.Build({Exp(x).Named("y")});
  EXPECT_THAT(DeadNodes(graph), IsEmpty());
}

TEST(DeadNodesTest, PlaceholdersKeepIdsNamesAndTypes) {
  const Graph graph = Mixed(true);
  const std::optional<Graph> planned = WithoutDeadNodes(graph);
  ASSERT_TRUE(planned.has_value());
  ASSERT_EQ(planned->size(), graph.size());
  EXPECT_EQ(planned->outputs(), graph.outputs());
  const std::vector<NodeId> dead = DeadNodes(graph);
  for (NodeId id = 0; id < graph.size(); ++id) {
    const Node& before = graph.node(id);
    const Node& after = planned->node(id);
    EXPECT_EQ(after.name, before.name);
    EXPECT_EQ(after.dtype, before.dtype);
    EXPECT_EQ(after.shape, before.shape);
    const bool is_dead = std::find(dead.begin(), dead.end(), id) != dead.end();
    EXPECT_EQ(after.op, is_dead ? OpKind::kInput : before.op) << before.name;
  }
}

TEST(DeadNodesTest, PlansAreThoseOfTheGraphWithoutTheDeadNodes) {
  const Graph with_dead = Mixed(true);
  const Graph without = Mixed(false);
  for (bool fuse : {true, false}) {
    absl::StatusOr<Plan> a = fuse ? PlanFusion(with_dead, DeviceLimits{}) : PlanUnfused(with_dead, DeviceLimits{});
    absl::StatusOr<Plan> b = fuse ? PlanFusion(without, DeviceLimits{}) : PlanUnfused(without, DeviceLimits{});
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(Describe(with_dead, *a), Describe(without, *b)) << (fuse ? "fused" : "unfused");
    for (NodeId id : DeadNodes(with_dead)) EXPECT_EQ(a->kernel_of[id], -1) << with_dead.node(id).name;
  }
}

// The issue's reproducer: the transpose once got a kernel that wrote an
// output parameter it did not have.
TEST(DeadNodesTest, UnusedTransposeGetsNoKernel) {
  absl::StatusOr<Graph> graph = ParseGraphText(R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [4, 4] }
    node { name: "dead" op: "transpose" operand: "x" perm: [1, 0] }
    node { name: "y" op: "neg" operand: "x" }
    output: "y"
  )pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (bool fuse : {true, false}) {
    absl::StatusOr<Plan> plan = fuse ? PlanFusion(*graph, DeviceLimits{}) : PlanUnfused(*graph, DeviceLimits{});
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_EQ(plan->kernels.size(), 1u);
    EXPECT_THAT(Names(*graph, plan->kernels[0].nodes), ElementsAre("y"));
    EXPECT_THAT(Names(*graph, plan->kernels[0].outputs), ElementsAre("y"));
    EXPECT_THAT(plan->boundaries, IsEmpty());
    EXPECT_EQ(plan->total.bytes(), 2 * 16 * 4);
  }
}

// A value read by a dead node in another kernel is no longer written out for it.
TEST(DeadNodesTest, DeadReadersDoNotMaterializeALiveValue) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {32, 32});
  Value e = Exp(x).Named("e");
  Transpose(e, {1, 0}).Named("dead");
  Value y = (e * 2.0).Named("y");
  const Graph graph = *b.Build({y});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_THAT(Names(graph, plan.kernels[0].outputs), ElementsAre("y"));
  EXPECT_EQ(plan.total.bytes(), 2 * 32 * 32 * 4);
}

}  // namespace
}  // namespace kiln
