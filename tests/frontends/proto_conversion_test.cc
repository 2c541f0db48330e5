// FromProto's handling of well-formed files: node order, and which fields
// each op may carry.
#include <string>
#include <vector>

#include "frontends/graph_file.h"
#include "frontends/graph_proto.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

std::vector<std::string> NodeNames(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node& node : graph.nodes()) names.push_back(node.name);
  return names;
}

std::string Message(const absl::StatusOr<Graph>& graph) {
  EXPECT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(graph.status().message());
}

TEST(ProtoConversionTest, NodesMayComeInAnyOrder) {
  absl::StatusOr<Graph> graph = ParseGraphText(R"pb(
    format_version: 1
    node { name: "y" op: "div" operand: ["e", "s"] }
    node { name: "s" op: "reduce_sum" operand: ["e"] axes: [-1] keepdims: true }
    node { name: "e" op: "exp" operand: ["x"] }
    node { name: "x" op: "input" dtype: F32 shape: [2, 3] }
    output: "y"
  )pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(NodeNames(*graph), (std::vector<std::string>{"x", "e", "s", "y"}));
  EXPECT_EQ(graph->node(2).axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(graph->node(3).operands, (std::vector<NodeId>{1, 2}));
  EXPECT_EQ(graph->outputs(), (std::vector<NodeId>{3}));
}

TEST(ProtoConversionTest, ReadyNodesKeepFileOrder) {
  // b and a are both ready once x is placed; b comes first in the file.
  absl::StatusOr<Graph> graph = ParseGraphText(R"pb(
    format_version: 1
    node { name: "sum" op: "add" operand: ["a", "b"] }
    node { name: "b" op: "neg" operand: ["x"] }
    node { name: "c" op: "constant" dtype: F32 value: 2 }
    node { name: "a" op: "mul" operand: ["x", "c"] }
    node { name: "x" op: "input" dtype: F32 shape: [4] }
    output: "sum"
  )pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(NodeNames(*graph), (std::vector<std::string>{"c", "x", "b", "a", "sum"}));
}

TEST(ProtoConversionTest, FilesInOrderKeepTheirOrder) {
  absl::StatusOr<Graph> graph = ParseGraphText(R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [4] }
    node { name: "c" op: "constant" dtype: F32 value: 2 }
    node { name: "a" op: "mul" operand: ["x", "c"] }
    output: "a"
  )pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(NodeNames(*graph), (std::vector<std::string>{"x", "c", "a"}));
}

TEST(ProtoConversionTest, TextAcceptsEveryProtobufSpelling) {
  absl::StatusOr<Graph> graph = ParseGraphText(R"pb(
    # comments and the repeated-field spelling are fine
    format_version: 1
    node < name: 'x' op: "input" dtype: I32 shape: 4 shape: 2 >
    node { name: "t" op: "transpose" operand: "x" perm: 1 perm: 0 }
    output: ["t"]
  )pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node(1).shape, (Dims{2, 4}));
  EXPECT_EQ(graph->node(1).dtype, DType::kI32);
}

TEST(ProtoConversionTest, DTypeIsRequiredWhereTheOpNeedsOne) {
  EXPECT_EQ(Message(ParseGraphText(R"pb(
              format_version: 1
              node { name: "x" op: "input" shape: [4] }
              output: "x"
            )pb")),
            "node \"x\" (input): dtype is required for inputs, constants and casts");
  EXPECT_EQ(Message(ParseGraphText(R"pb(
              format_version: 1
              node { name: "x" op: "input" dtype: F32 shape: [4] }
              node { name: "c" op: "cast" operand: "x" }
              output: "c"
            )pb")),
            "node \"c\" (cast): dtype is required for inputs, constants and casts");
}

TEST(ProtoConversionTest, FieldsAnOpDoesNotUseAreRefused) {
  const std::string head = R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [4, 4] }
    output: "y"
  )pb";
  EXPECT_EQ(Message(ParseGraphText(head + R"pb(node { name: "y" op: "exp" operand: "x" dtype: F32 })pb")),
            "node \"y\" (exp): dtype is only given for inputs, constants and casts");
  EXPECT_EQ(Message(ParseGraphText(head + R"pb(node { name: "y" op: "exp" operand: "x" value: 1 })pb")),
            "node \"y\" (exp): value is only for constants");
  EXPECT_EQ(Message(ParseGraphText(head + R"pb(node { name: "y" op: "exp" operand: "x" keepdims: true })pb")),
            "node \"y\" (exp): keepdims is only for reductions");
  EXPECT_EQ(Message(ParseGraphText(head + R"pb(node { name: "y" op: "exp" operand: "x" axes: 0 })pb")),
            "node \"y\" (exp): axes are only for reductions and iota");
  EXPECT_EQ(Message(ParseGraphText(head + R"pb(node { name: "y" op: "exp" operand: "x" perm: 0 })pb")),
            "node \"y\" (exp): perm is only for transpose");
  EXPECT_EQ(Message(ParseGraphText(head + R"pb(node { name: "y" op: "exp" operand: "x" shape: 16 })pb")),
            "node \"y\" (exp): a shape is only given for inputs, constants, reshapes, slices and iota");
  EXPECT_EQ(
      Message(ParseGraphText(head + R"pb(node { name: "y" op: "constant" dtype: F32 shape: 1 })pb")),
      "node \"y\" (constant): a scalar constant has shape []; a constant of shape [1] needs its data");
  EXPECT_EQ(Message(ParseGraphText(head + R"pb(node { name: "y" op: "exp" operand: "x" data: "ab" })pb")),
            "node \"y\" (exp): data is only for constants");
  EXPECT_EQ(Message(ParseGraphText(head + R"pb(node { name: "y" op: "exp" operand: "x" steps: 1 })pb")),
            "node \"y\" (exp): starts and steps are only for slices");
}

TEST(ProtoConversionTest, UnknownDTypeNumberInBinary) {
  proto::GraphProto graph_proto;
  graph_proto.set_format_version(1);
  proto::NodeProto* x = graph_proto.add_node();
  x->set_name("x");
  x->set_op("input");
  x->set_dtype(static_cast<proto::DType>(42));
  graph_proto.add_output(std::string("x"));
  EXPECT_EQ(Message(ParseGraphBinary(graph_proto.SerializeAsString())),
            "node \"x\" (input): unknown dtype 42");
}

TEST(ProtoConversionTest, ScalarInputHasNoShapeField) {
  absl::StatusOr<Graph> graph = ParseGraphText(R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 }
    node { name: "y" op: "reshape" operand: "x" shape: [1, 1] }
    output: "y"
  )pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node(0).shape, Dims{});
  EXPECT_EQ(graph->node(1).shape, (Dims{1, 1}));
  EXPECT_EQ(ToProto(*graph).node(0).shape_size(), 0);
}

}  // namespace
}  // namespace kiln
