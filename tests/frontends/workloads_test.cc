#include "frontends/workloads.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "graph/verifier.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::Pair;

constexpr DType kFloatDTypes[] = {DType::kF32, DType::kF16, DType::kBF16};

// (name, op name) of every node in graph order.
std::vector<std::pair<std::string, std::string>> NodeList(const Graph& graph) {
  std::vector<std::pair<std::string, std::string>> list;
  for (const Node& node : graph.nodes()) list.emplace_back(node.name, std::string(OpName(node.op)));
  return list;
}

std::vector<std::string> OperandNames(const Graph& graph, absl::string_view name) {
  std::vector<std::string> names;
  for (NodeId id : graph.node(*graph.FindNode(name)).operands) names.push_back(graph.node(id).name);
  return names;
}

TEST(WorkloadsTest, GeluNaiveIsTheNineOpsOfTheLecture) {
  for (DType dtype : kFloatDTypes) {
    absl::StatusOr<Graph> g = GeluNaive(dtype, {16384, 16384});
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(VerifyGraph(*g).ok());
    EXPECT_THAT(NodeList(*g),
                ElementsAre(Pair("x", "input"), Pair("t1", "mul"), Pair("t2", "mul"),
                            Pair("constant_3", "constant"), Pair("t3", "mul"), Pair("t4", "add"),
                            Pair("constant_6", "constant"), Pair("t5", "mul"), Pair("t6", "tanh"),
                            Pair("constant_9", "constant"), Pair("t7", "add"),
                            Pair("constant_11", "constant"), Pair("t8", "mul"), Pair("y", "mul")));
    EXPECT_THAT(OperandNames(*g, "t1"), ElementsAre("x", "x"));
    EXPECT_THAT(OperandNames(*g, "t2"), ElementsAre("t1", "x"));
    EXPECT_THAT(OperandNames(*g, "t3"), ElementsAre("constant_3", "t2"));
    EXPECT_THAT(OperandNames(*g, "t4"), ElementsAre("x", "t3"));
    EXPECT_THAT(OperandNames(*g, "t5"), ElementsAre("constant_6", "t4"));
    EXPECT_THAT(OperandNames(*g, "t6"), ElementsAre("t5"));
    EXPECT_THAT(OperandNames(*g, "t7"), ElementsAre("constant_9", "t6"));
    EXPECT_THAT(OperandNames(*g, "t8"), ElementsAre("constant_11", "x"));
    EXPECT_THAT(OperandNames(*g, "y"), ElementsAre("t8", "t7"));
    EXPECT_EQ(g->node(*g->FindNode("constant_3")).value, static_cast<double>(0.044715f));
    EXPECT_EQ(g->node(*g->FindNode("constant_6")).value, static_cast<double>(0.79788456f));
    EXPECT_EQ(g->node(*g->FindNode("constant_9")).value, 1.0);
    EXPECT_EQ(g->node(*g->FindNode("constant_11")).value, 0.5);
    for (const Node& node : g->nodes()) {
      EXPECT_EQ(node.dtype, dtype) << node.name;
      if (node.op != OpKind::kConstant) {
        EXPECT_THAT(node.shape, ElementsAre(16384, 16384)) << node.name;
      }
    }
    EXPECT_THAT(g->inputs(), ElementsAre(*g->FindNode("x")));
    EXPECT_THAT(g->outputs(), ElementsAre(*g->FindNode("y")));
  }
  absl::StatusOr<Graph> rank3 = GeluNaive(DType::kF32, {2, 3, 4});
  ASSERT_TRUE(rank3.ok());
  EXPECT_THAT(rank3->node(rank3->outputs()[0]).shape, ElementsAre(2, 3, 4));
}

TEST(WorkloadsTest, SoftmaxNaive) {
  for (DType dtype : kFloatDTypes) {
    absl::StatusOr<Graph> g = SoftmaxNaive(dtype, 512, 131072);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(VerifyGraph(*g).ok());
    EXPECT_THAT(NodeList(*g),
                ElementsAre(Pair("x", "input"), Pair("m", "reduce_max"), Pair("d", "sub"),
                            Pair("e", "exp"), Pair("s", "reduce_sum"), Pair("y", "div")));
    const Node& m = g->node(*g->FindNode("m"));
    EXPECT_THAT(m.axes, ElementsAre(1));
    EXPECT_TRUE(m.keepdims);
    EXPECT_THAT(m.shape, ElementsAre(512, 1));
    EXPECT_THAT(g->node(*g->FindNode("s")).shape, ElementsAre(512, 1));
    EXPECT_THAT(OperandNames(*g, "d"), ElementsAre("x", "m"));
    EXPECT_THAT(OperandNames(*g, "s"), ElementsAre("e"));
    EXPECT_THAT(OperandNames(*g, "y"), ElementsAre("e", "s"));
    const Node& y = g->node(g->outputs()[0]);
    EXPECT_EQ(y.name, "y");
    EXPECT_EQ(y.dtype, dtype);
    EXPECT_THAT(y.shape, ElementsAre(512, 131072));
  }
}

TEST(WorkloadsTest, RowSum) {
  for (DType dtype : kFloatDTypes) {
    absl::StatusOr<Graph> g = RowSum(dtype, 256, 1048576);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_THAT(NodeList(*g), ElementsAre(Pair("x", "input"), Pair("y", "reduce_sum")));
    const Node& y = g->node(g->outputs()[0]);
    EXPECT_THAT(y.axes, ElementsAre(1));
    EXPECT_FALSE(y.keepdims);
    EXPECT_EQ(y.dtype, dtype);
    EXPECT_THAT(y.shape, ElementsAre(256));
  }
}

TEST(WorkloadsTest, MatmulReluShapes) {
  for (DType dtype : kFloatDTypes) {
    // Arguments are M, N, K.
    absl::StatusOr<Graph> g = MatmulRelu(dtype, 64, 32, 128);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_THAT(NodeList(*g), ElementsAre(Pair("a", "input"), Pair("b", "input"),
                                          Pair("c", "matmul"), Pair("y", "relu")));
    EXPECT_THAT(g->node(*g->FindNode("a")).shape, ElementsAre(64, 128));
    EXPECT_THAT(g->node(*g->FindNode("b")).shape, ElementsAre(128, 32));
    EXPECT_THAT(g->node(*g->FindNode("c")).shape, ElementsAre(64, 32));
    EXPECT_THAT(OperandNames(*g, "c"), ElementsAre("a", "b"));
    const Node& y = g->node(g->outputs()[0]);
    EXPECT_EQ(y.name, "y");
    EXPECT_EQ(y.dtype, dtype);
    EXPECT_THAT(y.shape, ElementsAre(64, 32));
    EXPECT_THAT(g->inputs(), ElementsAre(0, 1));
  }
}

TEST(WorkloadsTest, BuildWorkloadByName) {
  absl::StatusOr<Graph> gelu = BuildWorkload("gelu_naive", DType::kBF16, {8, 16});
  ASSERT_TRUE(gelu.ok()) << gelu.status();
  EXPECT_EQ(gelu->size(), 14);
  absl::StatusOr<Graph> gelu1 = BuildWorkload("gelu_naive", DType::kF32, {1000});
  ASSERT_TRUE(gelu1.ok());
  EXPECT_THAT(gelu1->node(gelu1->outputs()[0]).shape, ElementsAre(1000));
  absl::StatusOr<Graph> softmax = BuildWorkload("softmax_naive", DType::kF32, {4, 8});
  ASSERT_TRUE(softmax.ok());
  EXPECT_EQ(softmax->size(), 6);
  absl::StatusOr<Graph> sum = BuildWorkload("row_sum", DType::kF16, {4, 8});
  ASSERT_TRUE(sum.ok());
  EXPECT_THAT(sum->node(sum->outputs()[0]).shape, ElementsAre(4));
  absl::StatusOr<Graph> mm = BuildWorkload("matmul_relu", DType::kBF16, {8192, 4096, 1024});
  ASSERT_TRUE(mm.ok());
  EXPECT_THAT(mm->node(*mm->FindNode("a")).shape, ElementsAreArray({8192, 1024}));
  EXPECT_THAT(mm->node(*mm->FindNode("b")).shape, ElementsAreArray({1024, 4096}));
  EXPECT_THAT(mm->node(mm->outputs()[0]).shape, ElementsAreArray({8192, 4096}));
}

TEST(WorkloadsTest, BuildWorkloadErrors) {
  ExpectInvalid(BuildWorkload("softmax", DType::kF32, {4, 8}).status(),
                "unknown workload \"softmax\" (expected gelu_naive, softmax_naive, row_sum, "
                "matmul_relu, matmul_bias_gelu, attention_naive or attention_causal)");
  ExpectInvalid(BuildWorkload("gemm", DType::kF32, {4, 8, 16}).status(),
                "unknown workload \"gemm\" (expected gelu_naive, softmax_naive, row_sum, "
                "matmul_relu, matmul_bias_gelu, attention_naive or attention_causal)");
  ExpectInvalid(BuildWorkload("a\"b", DType::kF32, {4}).status(),
                "unknown workload \"a\\\"b\" (expected gelu_naive, softmax_naive, row_sum, "
                "matmul_relu, matmul_bias_gelu, attention_naive or attention_causal)");
  ExpectInvalid(BuildWorkload("matmul_bias_gelu", DType::kF32, {4, 8}).status(),
                "workload matmul_bias_gelu takes 3 dims, got [4,8]");
  ExpectInvalid(BuildWorkload("softmax_naive", DType::kF32, {4}).status(),
                "workload softmax_naive takes 2 dims, got [4]");
  ExpectInvalid(BuildWorkload("row_sum", DType::kF32, {4, 8, 2}).status(),
                "workload row_sum takes 2 dims, got [4,8,2]");
  ExpectInvalid(BuildWorkload("matmul_relu", DType::kF32, {4, 8}).status(),
                "workload matmul_relu takes 3 dims, got [4,8]");
  ExpectInvalid(BuildWorkload("gelu_naive", DType::kF32, {}).status(),
                "workload gelu_naive takes 1 or more dims, got []");
  // Bad dims and dtypes come back from the graph itself, naming the node.
  ExpectInvalid(BuildWorkload("row_sum", DType::kF32, {0, 8}).status(),
                "node \"x\" (input): shape [0,8] has a zero dim at axis 0; empty tensors are not "
                "supported");
  ExpectInvalid(BuildWorkload("matmul_relu", DType::kF32, {4, -8, 2}).status(),
                "node \"b\" (input): shape [2,-8] has a negative dim");
  ExpectInvalid(BuildWorkload("gelu_naive", DType::kI32, {4}).status(),
                "node \"constant_3\" (constant): value 0.044715 is not a valid i32");
  ExpectInvalid(BuildWorkload("softmax_naive", DType::kI32, {4, 8}).status(),
                "node \"reduce_max_1\" (reduce_max): operand 0 (\"x\") has dtype i32, which this op does "
                "not accept");
}

}  // namespace
}  // namespace kiln
