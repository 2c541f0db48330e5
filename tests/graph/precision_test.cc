// Which values need only a 16-bit float's precision (graph/precision.h).
#include "graph/precision.h"

#include "frontends/builder.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

bool Bound(const Graph& graph, const std::vector<bool>& bound, absl::string_view name) {
  return bound[*graph.FindNode(name)];
}

// A bf16 softmax computed in f32: every f32 value reaches the output only
// through the bf16 cast.
TEST(PrecisionTest, ValuesStoredAsSixteenBitNeedOnlyItsPrecision) {
  GraphBuilder b;
  const Value x = Cast(b.Input("x", DType::kBF16, {4, 8}), DType::kF32).Named("x32");
  const Value e = Exp(x - ReduceMax(x, {1}, true)).Named("e");
  const Value y = (e / ReduceSum(e, {1}, true).Named("s")).Named("y32");
  const Graph graph = *b.Build({Cast(y, DType::kBF16).Named("y")});
  const std::vector<bool> bound = SixteenBitBound(graph);
  for (absl::string_view name : {"x", "x32", "e", "s", "y32", "y"}) EXPECT_TRUE(Bound(graph, bound, name)) << name;
}

// An f32 output, a value that also reaches one, and the operands of a
// comparison need full precision.
TEST(PrecisionTest, FullPrecisionWhereAnF32OutputOrAComparisonUsesTheValue) {
  GraphBuilder b;
  const Value x = b.Input("x", DType::kF32, {8});
  const Value e = Exp(x).Named("e");
  const Value t = Tanh(x).Named("t");
  const Value picked = Select(Gt(t, b.Constant(0.5, DType::kF32)), x, x).Named("picked");
  const Graph graph = *b.Build({Cast(e, DType::kBF16).Named("e16"), e, Cast(picked, DType::kBF16)});
  const std::vector<bool> bound = SixteenBitBound(graph);
  EXPECT_FALSE(Bound(graph, bound, "e"));
  EXPECT_FALSE(Bound(graph, bound, "t"));
  EXPECT_TRUE(Bound(graph, bound, "picked"));
  EXPECT_FALSE(Bound(graph, bound, "x"));
}

}  // namespace
}  // namespace kiln
