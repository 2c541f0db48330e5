// The CUDA expressions of single elementwise nodes.
#include <string>
#include <vector>

#include "codegen/expr_emitter.h"
#include "frontends/builder.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

// The expression for y = pow(x, exponent), x read as "v1".
std::string PowerExpr(double exponent, bool constant) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {8});
  Value e = constant ? b.Constant(exponent, DType::kF32) : b.Input("e", DType::kF32, {8});
  const Graph graph = *b.Build({Pow(x, e).Named("y")});
  const Node& y = graph.node(graph.outputs()[0]);
  const std::vector<const Node*> operands = {&graph.node(y.operands[0]), &graph.node(y.operands[1])};
  return *ElementwiseExpr(y, {"v1", "v2"}, operands, /*sixteen_bit_bound=*/false);
}

TEST(ExprEmitterTest, SmallConstantIntegerPowersAreProducts) {
  EXPECT_EQ(PowerExpr(2, true), "(v1 * v1)");
  EXPECT_EQ(PowerExpr(3, true), "(v1 * v1 * v1)");
  EXPECT_EQ(PowerExpr(4, true), "((v1 * v1) * (v1 * v1))");
}

TEST(ExprEmitterTest, OtherPowersCallPowf) {
  EXPECT_EQ(PowerExpr(2.5, true), "powf(v1, v2)");
  EXPECT_EQ(PowerExpr(5, true), "powf(v1, v2)");
  EXPECT_EQ(PowerExpr(3, false), "powf(v1, v2)");
}

}  // namespace
}  // namespace kiln
