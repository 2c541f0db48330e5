// Round trips through the protobuf graph format: Graph -> proto -> Graph,
// binary and text, for every seed workload and a graph using every op.
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "frontends/builder.h"
#include "frontends/graph_file.h"
#include "frontends/graph_proto.h"
#include "frontends/graph_text.h"
#include "frontends/workloads.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

using google::protobuf::util::MessageDifferencer;

// Every field of every node, and the outputs. Values compare by bits so that
// NaN and -0 count.
void ExpectSameGraph(const Graph& actual, const Graph& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (NodeId id = 0; id < expected.size(); ++id) {
    const Node& a = actual.node(id);
    const Node& e = expected.node(id);
    SCOPED_TRACE(NodeLabel(e));
    EXPECT_EQ(a.name, e.name);
    EXPECT_EQ(a.op, e.op);
    EXPECT_EQ(a.operands, e.operands);
    EXPECT_EQ(a.dtype, e.dtype);
    EXPECT_EQ(a.shape, e.shape);
    EXPECT_EQ(std::memcmp(&a.value, &e.value, sizeof(double)), 0) << a.value << " vs " << e.value;
    EXPECT_EQ(a.axes, e.axes);
    EXPECT_EQ(a.keepdims, e.keepdims);
    EXPECT_EQ(a.perm, e.perm);
    EXPECT_EQ(a.starts, e.starts);
    EXPECT_EQ(a.steps, e.steps);
    ASSERT_EQ(a.data == nullptr, e.data == nullptr);
    if (a.data != nullptr) EXPECT_EQ(*a.data, *e.data);
  }
  EXPECT_EQ(actual.outputs(), expected.outputs());
}

void ExpectRoundTrips(const Graph& graph) {
  const proto::GraphProto graph_proto = ToProto(graph);
  absl::StatusOr<Graph> from_proto = FromProto(graph_proto);
  ASSERT_TRUE(from_proto.ok()) << from_proto.status();
  ExpectSameGraph(*from_proto, graph);
  // Compared as bytes: a NaN constant is never equal to itself as a double.
  EXPECT_EQ(ToProto(*from_proto).SerializeAsString(), graph_proto.SerializeAsString())
      << ToProto(*from_proto).DebugString();

  const std::string bytes = SerializeGraphBinary(graph);
  absl::StatusOr<Graph> from_binary = ParseGraphBinary(bytes);
  ASSERT_TRUE(from_binary.ok()) << from_binary.status();
  ExpectSameGraph(*from_binary, graph);
  EXPECT_EQ(SerializeGraphBinary(*from_binary), bytes);

  const std::string text = SerializeGraphText(graph);
  absl::StatusOr<Graph> from_text = ParseGraphText(text);
  ASSERT_TRUE(from_text.ok()) << from_text.status() << "\n" << text;
  ExpectSameGraph(*from_text, graph);
  EXPECT_EQ(SerializeGraphText(*from_text), text);
}

struct WorkloadCase {
  const char* name;
  Dims dims;
};

TEST(ProtoRoundTripTest, EveryWorkloadInEveryFloatDType) {
  const WorkloadCase cases[] = {{"gelu_naive", {16384, 16384}},
                                {"softmax_naive", {512, 131072}},
                                {"row_sum", {256, 1048576}},
                                {"matmul_relu", {8192, 8192, 4096}}};
  for (const WorkloadCase& c : cases) {
    for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
      SCOPED_TRACE(absl::StrCat(c.name, " ", DTypeName(dtype)));
      absl::StatusOr<Graph> graph = BuildWorkload(c.name, dtype, c.dims);
      ASSERT_TRUE(graph.ok()) << graph.status();
      ExpectRoundTrips(*graph);
    }
  }
}

// Uses every OpKind, every dtype, negative and multiple reduction axes,
// keepdims both ways, and several outputs.
absl::StatusOr<Graph> AllOpsGraph() {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4, 6});
  Value w = b.Input("w", DType::kF32, {6, 3});
  Value i = b.Input("i", DType::kI32, {4, 1});
  Value u = Reciprocal(Relu(Sigmoid(Rsqrt(Sqrt(Erf(Tanh(Log(Exp(Abs(Neg(x)))))))))));
  Value mixed = Pow(Min(Max((x + u) - x, x * u), x / u), x);
  Value flags = Ne(Eq(x, u), Le(x, mixed));
  flags = Eq(flags, Ge(x, mixed));
  flags = Eq(flags, Lt(u, mixed));
  flags = Ne(flags, Gt(u, x));
  flags = Eq(flags, b.Constant(1, DType::kBool));
  Value s = Select(flags, mixed, x);
  Value scale = Cast(i * 7.0, DType::kF32) + b.Iota(DType::kF32, {4, 6}, -1);
  Value row_sum = ReduceSum(s * scale, {1}, /*keepdims=*/true);
  Value row_max = ReduceMax(s, {-1});
  Value all_min = ReduceMin(s, {0, 1});
  Value col_mean = ReduceMean(s, {0}, /*keepdims=*/true);
  Value product = Matmul(s + col_mean, w);
  Value t = Transpose(Reshape(product, {2, 6}), {1, 0});
  Value window = Slice(t, {1, 0}, {2, 0}, {3, 2});
  Value half = Cast(window, DType::kF16) + b.Constant(-0.0, DType::kF16) +
               b.Constant(RandomTensor(DType::kF16, {3, 2}, 5));
  Value brain = Cast(row_max, DType::kBF16) * b.Constant(0.1, DType::kBF16);
  return b.Build({half.Named("half"), row_sum.Named("row_sum"), all_min.Named("all_min"),
                  brain.Named("brain")});
}

TEST(ProtoRoundTripTest, GraphWithEveryOp) {
  absl::StatusOr<Graph> graph = AllOpsGraph();
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::set<OpKind> ops;
  for (const Node& node : graph->nodes()) ops.insert(node.op);
  ASSERT_EQ(static_cast<int>(ops.size()), kNumOpKinds);
  ExpectRoundTrips(*graph);
}

TEST(ProtoRoundTripTest, ConstantsOfEveryKindKeepTheirExactValue) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {3});
  Value n = b.Input("n", DType::kI32, {3});
  Value y = x * b.Constant(0.79788456, DType::kF32) + b.Constant(1e-30, DType::kF32) +
            b.Constant(std::nan(""), DType::kF32) + b.Constant(-INFINITY, DType::kF32) +
            b.Constant(3.4e38, DType::kF32);
  Value m = n + b.Constant(-2147483648.0, DType::kI32) + b.Constant(16777217, DType::kI32);
  absl::StatusOr<Graph> graph = b.Build({y.Named("y"), m.Named("m")});
  ASSERT_TRUE(graph.ok()) << graph.status();
  ExpectRoundTrips(*graph);
  const std::string text = SerializeGraphText(*graph);
  EXPECT_NE(text.find("value: 0.7978846 }"), std::string::npos) << text;
  EXPECT_NE(text.find("value: 16777217 }"), std::string::npos) << text;
  EXPECT_NE(text.find("value: -inf }"), std::string::npos) << text;
  EXPECT_NE(text.find("value: nan }"), std::string::npos) << text;
}

TEST(ProtoRoundTripTest, TensorConstantsKeepTheirBytesInEveryDType) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {2, 3});
  Value f = x + b.Constant(HostTensor{.dtype = DType::kF32, .shape = {3}, .data = {1, -0.0, std::nan("")}});
  Value h = Cast(x, DType::kF16) * b.Constant(RandomTensor(DType::kF16, {2, 1}, 1));
  Value g = Cast(x, DType::kBF16) - b.Constant(RandomTensor(DType::kBF16, {2, 3}, 2));
  Value i = Cast(x, DType::kI32) + b.Constant(RandomTensor(DType::kI32, {1, 3}, 3));
  Value mask = b.Constant(HostTensor{.dtype = DType::kBool, .shape = {2, 3}, .data = {1, 0, 0, 1, 1, 0}});
  Value y = Select(mask, f, x);
  absl::StatusOr<Graph> graph = b.Build({y.Named("y"), h.Named("h"), g.Named("g"), i.Named("i")});
  ASSERT_TRUE(graph.ok()) << graph.status();
  ExpectRoundTrips(*graph);
  EXPECT_EQ(ToProto(*graph).format_version(), 2u);
  const std::string text = SerializeGraphText(*graph);
  EXPECT_NE(text.find("op: \"constant\" dtype: F32 shape: [3] data: \"\\000\\000\\200?\\000\\000\\000\\200"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("dtype: BOOL shape: [2, 3] data: \"\\001\\000\\000\\001\\001\\000\""), std::string::npos)
      << text;
}

TEST(ProtoRoundTripTest, VersionOneIsWrittenWhenNothingNeedsVersionTwo) {
  absl::StatusOr<Graph> graph = BuildWorkload("gelu_naive", DType::kF32, {4, 4});
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(ToProto(*graph).format_version(), 1u);
}

TEST(ProtoRoundTripTest, TextLayoutIsOneLinePerNode) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {8, 4});
  Value m = ReduceMax(Cast(x, DType::kF32), {-1}, /*keepdims=*/true).Named("m");
  Value y = Transpose(Reshape(m * 0.5, {2, 4}), {1, 0}).Named("y");
  absl::StatusOr<Graph> graph = b.Build({y, m});
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(SerializeGraphText(*graph),
            "format_version: 1\n"
            "node { name: \"x\" op: \"input\" dtype: BF16 shape: [8, 4] }\n"
            "node { name: \"cast_1\" op: \"cast\" operand: [\"x\"] dtype: F32 }\n"
            "node { name: \"m\" op: \"reduce_max\" operand: [\"cast_1\"] axes: [1] keepdims: true }\n"
            "node { name: \"constant_3\" op: \"constant\" dtype: F32 value: 0.5 }\n"
            "node { name: \"mul_4\" op: \"mul\" operand: [\"m\", \"constant_3\"] }\n"
            "node { name: \"reshape_5\" op: \"reshape\" operand: [\"mul_4\"] shape: [2, 4] }\n"
            "node { name: \"y\" op: \"transpose\" operand: [\"reshape_5\"] perm: [1, 0] }\n"
            "output: \"y\"\n"
            "output: \"m\"\n");
}

TEST(ProtoRoundTripTest, CanonicalProtoSurvivesFromProtoToProto) {
  proto::GraphProto graph_proto;
  graph_proto.set_format_version(1);
  proto::NodeProto* x = graph_proto.add_node();
  x->set_name("x");
  x->set_op("input");
  x->set_dtype(proto::F16);
  x->add_shape(3);
  x->add_shape(5);
  proto::NodeProto* s = graph_proto.add_node();
  s->set_name("s");
  s->set_op("reduce_sum");
  s->add_operand(std::string("x"));
  s->add_axes(0);
  s->add_axes(1);
  graph_proto.add_output(std::string("s"));
  absl::StatusOr<Graph> graph = FromProto(graph_proto);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->node(1).shape, Dims{});
  EXPECT_EQ(graph->node(1).dtype, DType::kF16);
  EXPECT_TRUE(MessageDifferencer::Equals(ToProto(*graph), graph_proto))
      << ToProto(*graph).DebugString();
}

}  // namespace
}  // namespace kiln
