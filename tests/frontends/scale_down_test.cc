#include "frontends/scale_down.h"

#include "frontends/builder.h"
#include "frontends/graph_file.h"
#include "frontends/workloads.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(ScaleDownTest, EveryDimIsCappedAndEverythingElseKept) {
  absl::StatusOr<Graph> softmax = BuildWorkload("softmax_naive", DType::kBF16, {512, 131072});
  ASSERT_TRUE(softmax.ok()) << softmax.status();
  absl::StatusOr<Graph> small = ScaleDownGraph(*softmax, 256);
  ASSERT_TRUE(small.ok()) << small.status();
  ASSERT_EQ(small->size(), softmax->size());
  for (NodeId id = 0; id < small->size(); ++id) {
    const Node& node = small->node(id);
    const Node& original = softmax->node(id);
    EXPECT_EQ(node.name, original.name);
    EXPECT_EQ(node.op, original.op);
    EXPECT_EQ(node.operands, original.operands);
    EXPECT_EQ(node.dtype, original.dtype);
    EXPECT_EQ(node.axes, original.axes);
  }
  EXPECT_EQ(small->node(0).shape, (Dims{256, 256}));
  EXPECT_EQ(small->node(1).shape, (Dims{256, 1}));  // m keeps its broadcast 1
  EXPECT_EQ(small->outputs(), softmax->outputs());
}

TEST(ScaleDownTest, SmallDimsAndOnesStay) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {1, 3, 300});
  Value bias = b.Input("bias", DType::kF32, {300});
  Value y = Transpose(x + bias, {2, 0, 1}).Named("y");
  absl::StatusOr<Graph> graph = b.Build({y});
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Graph> small = ScaleDownGraph(*graph, 100);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->node(0).shape, (Dims{1, 3, 100}));
  EXPECT_EQ(small->node(1).shape, (Dims{100}));
  EXPECT_EQ(small->node(3).shape, (Dims{100, 1, 3}));
}

TEST(ScaleDownTest, MatmulStaysValid) {
  absl::StatusOr<Graph> mm = BuildWorkload("matmul_relu", DType::kF16, {8192, 4096, 1000});
  ASSERT_TRUE(mm.ok()) << mm.status();
  absl::StatusOr<Graph> small = ScaleDownGraph(*mm, 256);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->node(0).shape, (Dims{256, 256}));
  EXPECT_EQ(small->node(small->outputs()[0]).shape, (Dims{256, 256}));
}

TEST(ScaleDownTest, ReshapeThatNoLongerMatchesNamesTheNode) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {512, 4});
  Value r = Reshape(x, {2048}).Named("flat");
  absl::StatusOr<Graph> graph = b.Build({r});
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Graph> small = ScaleDownGraph(*graph, 256);
  EXPECT_EQ(small.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(small.status().message(),
            "cannot scale dims down to at most 256: node \"flat\" (reshape): cannot reshape [256,4] "
            "(1024 elements) to [256] (256 elements)");
}

TEST(ScaleDownTest, MaxDimMustBePositive) {
  absl::StatusOr<Graph> graph = BuildWorkload("row_sum", DType::kF32, {4, 4});
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(ScaleDownGraph(*graph, 0).status().message(), "max_dim must be at least 1, got 0");
}

}  // namespace
}  // namespace kiln
