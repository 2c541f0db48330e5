// ResizeDim: the swept dim and the dims tied to it change together; dims that
// only broadcast against it, or are merely equal in size, stay; a shape the
// graph states and the new size breaks is refused naming its node.
#include "graph/resize_dim.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

NodeId Add(Graph& g, NodeSpec spec) {
  absl::StatusOr<NodeId> id = g.AddNode(std::move(spec));
  EXPECT_TRUE(id.ok()) << id.status();
  return id.value_or(0);
}

// y = (x * w + sum(x, axis 1)) + b, with x:[64,1024], w:[1024], b:[64,1], and
// an unrelated v:[1024] only added to the row sums' transpose.
Graph Normalization() {
  Graph g;
  const NodeId x = Add(g, {.name = "x", .op = OpKind::kInput, .shape = {64, 1024}});
  const NodeId w = Add(g, {.name = "w", .op = OpKind::kInput, .shape = {1024}});
  const NodeId b = Add(g, {.name = "b", .op = OpKind::kInput, .shape = {64, 1}});
  const NodeId s = Add(g, {.name = "s", .op = OpKind::kReduceSum, .operands = {x}, .axes = {1}, .keepdims = true});
  const NodeId xw = Add(g, {.name = "xw", .op = OpKind::kMul, .operands = {x, w}});
  const NodeId y1 = Add(g, {.name = "y1", .op = OpKind::kAdd, .operands = {xw, s}});
  const NodeId y = Add(g, {.name = "y", .op = OpKind::kAdd, .operands = {y1, b}});
  EXPECT_TRUE(g.SetOutputs({y}).ok());
  return g;
}

Dims ShapeOf(const Graph& g, absl::string_view name) { return g.node(*g.FindNode(name)).shape; }

TEST(ResizeDimTest, TiedDimsFollowAndBroadcastDimsStay) {
  const Graph g = Normalization();
  absl::StatusOr<Graph> wider = ResizeDim(g, *g.FindNode("x"), 1, 50257);
  ASSERT_TRUE(wider.ok()) << wider.status();
  EXPECT_EQ(ShapeOf(*wider, "x"), (Dims{64, 50257}));
  EXPECT_EQ(ShapeOf(*wider, "w"), (Dims{50257}));
  EXPECT_EQ(ShapeOf(*wider, "b"), (Dims{64, 1}));
  EXPECT_EQ(ShapeOf(*wider, "y"), (Dims{64, 50257}));

  absl::StatusOr<Graph> taller = ResizeDim(g, *g.FindNode("x"), 0, 7);
  ASSERT_TRUE(taller.ok()) << taller.status();
  EXPECT_EQ(ShapeOf(*taller, "w"), (Dims{1024}));
  EXPECT_EQ(ShapeOf(*taller, "b"), (Dims{7, 1}));
  EXPECT_EQ(ShapeOf(*taller, "s"), (Dims{7, 1}));

  // Sweeping the weight moves x's rows with it, through the multiply.
  absl::StatusOr<Graph> by_weight = ResizeDim(g, *g.FindNode("w"), 0, 3);
  ASSERT_TRUE(by_weight.ok()) << by_weight.status();
  EXPECT_EQ(ShapeOf(*by_weight, "x"), (Dims{64, 3}));
}

TEST(ResizeDimTest, TiesGoThroughTransposesAndMatmuls) {
  Graph g;
  const NodeId a = Add(g, {.name = "a", .op = OpKind::kInput, .shape = {128, 256}});
  const NodeId b = Add(g, {.name = "b", .op = OpKind::kInput, .shape = {128, 64}});
  const NodeId at = Add(g, {.name = "at", .op = OpKind::kTranspose, .operands = {a}, .perm = {1, 0}});
  const NodeId c = Add(g, {.name = "c", .op = OpKind::kMatmul, .operands = {at, b}});  // [256,64], K = 128
  ASSERT_TRUE(g.SetOutputs({c}).ok());
  absl::StatusOr<Graph> resized = ResizeDim(g, a, 0, 96);  // K
  ASSERT_TRUE(resized.ok()) << resized.status();
  EXPECT_EQ(ShapeOf(*resized, "b"), (Dims{96, 64}));
  EXPECT_EQ(ShapeOf(*resized, "c"), (Dims{256, 64}));
  // Equal in size but not tied: b's 128 rows are K, a's 128 rows too; a's
  // 256 columns (M) move alone.
  resized = ResizeDim(g, a, 1, 100);
  ASSERT_TRUE(resized.ok()) << resized.status();
  EXPECT_EQ(ShapeOf(*resized, "b"), (Dims{128, 64}));
  EXPECT_EQ(ShapeOf(*resized, "c"), (Dims{100, 64}));
}

TEST(ResizeDimTest, AStatedShapeThatNoLongerFitsNamesItsNode) {
  Graph g;
  const NodeId x = Add(g, {.name = "x", .op = OpKind::kInput, .shape = {64, 1024}});
  const NodeId r = Add(g, {.name = "r", .op = OpKind::kReshape, .operands = {x}, .shape = {65536}});
  ASSERT_TRUE(g.SetOutputs({r}).ok());
  absl::StatusOr<Graph> resized = ResizeDim(g, x, 1, 1000);
  EXPECT_EQ(resized.status().message(),
            "node \"r\" (reshape): cannot reshape [64,1000] (64000 elements) to [65536] (65536 elements)");
}

}  // namespace
}  // namespace kiln
