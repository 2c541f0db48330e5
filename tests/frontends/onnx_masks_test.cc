// Folded causal masks become comparisons of iotas; other constants stay.
#include <optional>

#include "frontends/onnx/onnx_masks.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

HostTensor Mask(int64_t rows, int64_t cols, int offset) {
  HostTensor t{.dtype = DType::kBool, .shape = {1, 1, rows, cols}};
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) t.data.push_back(i + offset >= j ? 1 : 0);
  }
  return t;
}

TEST(OnnxMasksTest, ALowerTriangleIsRowAtLeastColumn) {
  GraphBuilder b;
  std::optional<Value> mask = CausalMaskAsIota(b, Mask(5, 5, 0));
  ASSERT_TRUE(mask.has_value());
  const Graph graph = *b.Build({mask->Named("m")});
  const Node& m = graph.node(graph.outputs()[0]);
  EXPECT_EQ(m.op, OpKind::kGe);
  EXPECT_EQ(m.shape, (Dims{1, 1, 5, 5}));
  const Node& row = graph.node(m.operands[0]);
  const Node& col = graph.node(m.operands[1]);
  EXPECT_EQ(row.op, OpKind::kIota);
  EXPECT_EQ(row.axes, std::vector<int64_t>{2});
  EXPECT_EQ(col.op, OpKind::kIota);
  EXPECT_EQ(col.axes, std::vector<int64_t>{3});
}

TEST(OnnxMasksTest, OtherTensorsStayConstants) {
  GraphBuilder b;
  EXPECT_FALSE(CausalMaskAsIota(b, Mask(5, 5, 1)).has_value());  // one diagonal too many
  EXPECT_FALSE(CausalMaskAsIota(b, Mask(4, 6, -1)).has_value());
  HostTensor f32 = Mask(3, 3, 0);
  f32.dtype = DType::kF32;
  EXPECT_FALSE(CausalMaskAsIota(b, f32).has_value());
  HostTensor vector{.dtype = DType::kBool, .shape = {3}, .data = {1, 0, 0}};
  EXPECT_FALSE(CausalMaskAsIota(b, vector).has_value());
}

}  // namespace
}  // namespace kiln
