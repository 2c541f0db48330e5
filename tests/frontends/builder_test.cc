#include "frontends/builder.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "graph/host_tensor.h"
#include "graph/reference.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;

TEST(BuilderTest, DesignExpressionBuildsAndEvaluatesToTheFormula) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {32, 128});
  auto y = 0.5f * x * (1.0f + Tanh(0.79788456f * (x + 0.044715f * x * x * x)));
  absl::StatusOr<Graph> graph = b.Build({y.Named("y")});
  ASSERT_TRUE(graph.ok()) << graph.status();
  // x, 4 constants, 6 muls, 2 adds, tanh.
  EXPECT_EQ(graph->size(), 14);
  EXPECT_EQ(graph->node(graph->outputs()[0]).name, "y");
  EXPECT_EQ(graph->node(graph->outputs()[0]).op, OpKind::kMul);

  const HostTensor input = RandomTensor(DType::kF32, {32, 128}, 9);
  absl::StatusOr<std::vector<HostTensor>> out = EvaluateReference(*graph, {input});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  const HostTensor& result = (*out)[0];
  EXPECT_THAT(result.shape, ElementsAre(32, 128));
  for (size_t i = 0; i < input.data.size(); ++i) {
    const double v = input.data[i];
    const float xf = static_cast<float>(v);
    // The expression's own evaluation order in float: each + - * of floats is
    // the double result rounded once, which is what the graph computes.
    const float inner = 0.79788456f * (xf + ((0.044715f * xf) * xf) * xf);
    const float stepwise =
        (0.5f * xf) * (1.0f + static_cast<float>(std::tanh(static_cast<double>(inner))));
    ASSERT_EQ(result.data[i], static_cast<double>(stepwise)) << "x = " << v;
    const double formula = 0.5 * v * (1.0 + std::tanh(0.79788456 * (v + 0.044715 * v * v * v)));
    ASSERT_NEAR(result.data[i], formula, 1e-6) << "x = " << v;
  }
}

TEST(BuilderTest, GeneratedNamesAndNamed) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {4, 8});
  Value y = x * 2.0;
  Value s = ReduceSum(y, {-1}, /*keepdims=*/true);
  EXPECT_EQ(b.graph().node(y.id()).name, "mul_2");  // constant_1 came first
  EXPECT_EQ(b.graph().node(s.id()).name, "reduce_sum_3");
  EXPECT_EQ(s.dtype(), DType::kBF16);
  EXPECT_THAT(s.shape(), ElementsAre(4, 1));

  Value named = s.Named("row_total");
  EXPECT_EQ(named.id(), s.id());
  EXPECT_EQ(*b.graph().FindNode("row_total"), s.id());
  EXPECT_TRUE(s.Named("row_total").valid());  // renaming to its own name is fine
  // A generated name never collides with one the user chose.
  b.Input("neg_4", DType::kBF16, {1});
  Value n = -x;
  EXPECT_EQ(b.graph().node(n.id()).name, "neg_5");
  absl::StatusOr<Graph> graph = b.Build({s, n});
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(b.status().ok());
}

TEST(BuilderTest, ScalarsTakeTheDTypeOfTheirValue) {
  GraphBuilder b;
  Value h = b.Input("h", DType::kBF16, {2});
  Value y = 0.1 * h;
  const Node& constant = b.graph().node(b.graph().node(y.id()).operands[0]);
  EXPECT_EQ(constant.op, OpKind::kConstant);
  EXPECT_EQ(constant.dtype, DType::kBF16);
  EXPECT_EQ(constant.value, static_cast<double>(0.1f));
  Value n = b.Input("n", DType::kI32, {2});
  Value m = n * 3.0;
  EXPECT_EQ(m.dtype(), DType::kI32);
  ASSERT_TRUE(b.status().ok()) << b.status();

  Value bad = n + 1.5;
  EXPECT_FALSE(bad.valid());
  ExpectInvalid(b.Build({m}).status(),
                "node \"constant_5\" (constant): value 1.5 is not a valid i32");
}

TEST(BuilderTest, BroadcastMismatchNamesTheNode) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {16384, 16384});
  Value v = b.Input("v", DType::kF32, {3});
  Value t4 = b.Add({.name = "t4", .op = OpKind::kAdd}, {x, v});
  EXPECT_FALSE(t4.valid());
  ExpectInvalid(b.Build({x}).status(),
                "node \"t4\" (add): shapes [16384,16384] and [3] cannot broadcast");

  GraphBuilder generated;
  Value gx = generated.Input("x", DType::kF32, {16384, 16384});
  Value gv = generated.Input("v", DType::kF32, {3});
  Value sum = (gx + gv).Named("t4");
  EXPECT_FALSE(sum.valid());
  ExpectInvalid(generated.Build({sum}).status(),
                "node \"add_1\" (add): shapes [16384,16384] and [3] cannot broadcast");
}

TEST(BuilderTest, FirstErrorIsKeptAndLaterCallsAreNoOps) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4, 8});
  Value bad = ReduceSum(x, {5});
  EXPECT_FALSE(bad.valid());
  const std::string first =
      "node \"reduce_sum_1\" (reduce_sum): axis 5 is out of range for rank 2 operand [4,8]";
  ExpectInvalid(b.status(), first);
  // Everything after the error, valid or not, yields invalid Values and keeps it.
  EXPECT_FALSE(Exp(x).valid());
  EXPECT_FALSE(Tanh(bad).valid());
  EXPECT_FALSE(b.Input("y", DType::kF32, {2}).valid());
  x.Named("bad name");
  EXPECT_EQ(b.graph().size(), 1);
  ExpectInvalid(b.Build({x}).status(), first);
}

TEST(BuilderTest, ValuesFromTwoBuilders) {
  GraphBuilder one, two;
  Value x = one.Input("x", DType::kF32, {4});
  Value z = two.Input("z", DType::kF32, {4});
  EXPECT_FALSE((x + z).valid());
  ExpectInvalid(one.Build({x}).status(),
                "an operand of a new add node is invalid or comes from another builder");
  EXPECT_TRUE(two.status().ok());
  ExpectInvalid(two.Build({x}).status(), "an output is invalid or comes from another builder");
  ExpectInvalid(two.Build({Value()}).status(),
                "an output is invalid or comes from another builder");
  ASSERT_TRUE(two.Build({z}).ok());

  GraphBuilder three;
  Value w = three.Input("w", DType::kF32, {4});
  EXPECT_FALSE(Max(w, Value()).valid());
  ExpectInvalid(three.Build({w}).status(),
                "an operand of a new max node is invalid or comes from another builder");
}

TEST(BuilderTest, NamedWithAnInvalidOrDuplicateName) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4});
  Value y = Exp(x).Named("bad name");
  ExpectInvalid(
      b.Build({y}).status(),
      "node name \"bad name\" contains ' '; names use only letters, digits and _ . - / :");

  GraphBuilder quote;
  Value q = quote.Input("q", DType::kF32, {4});
  Sqrt(q).Named("a\"b");
  ExpectInvalid(
      quote.status(),
      "node name \"a\\\"b\" contains '\\\"'; names use only letters, digits and _ . - / :");

  GraphBuilder dup;
  Value d = dup.Input("x", DType::kF32, {4});
  Value e = Exp(d).Named("x");
  ExpectInvalid(dup.Build({e}).status(),
                "cannot rename node \"exp_1\" (exp) to \"x\": the name is already used");

  GraphBuilder inputs;
  inputs.Input("x", DType::kF32, {4});
  inputs.Input("x", DType::kF32, {4});
  ExpectInvalid(inputs.status(), "node \"x\" (input): name is already used by another node");
}

TEST(BuilderTest, BuildErrorsAndBuildingTwice) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4});
  ExpectInvalid(b.Build({}).status(), "graph has no outputs");
  ExpectInvalid(b.Build({x, x}).status(), "node \"x\" (input) is listed as an output twice");
  absl::StatusOr<Graph> first = b.Build({x});
  ASSERT_TRUE(first.ok());
  // The builder keeps going after Build; earlier graphs are unaffected copies.
  Value y = Abs(x);
  absl::StatusOr<Graph> second = b.Build({y});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first->size(), 1);
  EXPECT_EQ(second->size(), 2);
  EXPECT_THAT(second->outputs(), ElementsAre(y.id()));
}

TEST(BuilderTest, EveryHelperMakesItsOp) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {2, 3});
  Value y = b.Input("y", DType::kF32, {2, 3});
  Value m = b.Input("m", DType::kF32, {2, 3, 4});
  Value w = b.Input("w", DType::kF32, {3, 5});
  Value p = Lt(x, y);
  const std::vector<std::pair<Value, OpKind>> cases = {
      {Neg(x), OpKind::kNeg},
      {Abs(x), OpKind::kAbs},
      {Exp(x), OpKind::kExp},
      {Log(x), OpKind::kLog},
      {Tanh(x), OpKind::kTanh},
      {Erf(x), OpKind::kErf},
      {Sqrt(x), OpKind::kSqrt},
      {Rsqrt(x), OpKind::kRsqrt},
      {Sigmoid(x), OpKind::kSigmoid},
      {Relu(x), OpKind::kRelu},
      {Reciprocal(x), OpKind::kReciprocal},
      {x + y, OpKind::kAdd},
      {x - y, OpKind::kSub},
      {x * y, OpKind::kMul},
      {x / y, OpKind::kDiv},
      {-x, OpKind::kNeg},
      {x - 1.0, OpKind::kSub},
      {1.0 - x, OpKind::kSub},
      {x / 2.0, OpKind::kDiv},
      {2.0 / x, OpKind::kDiv},
      {x + 1.0, OpKind::kAdd},
      {Max(x, y), OpKind::kMax},
      {Min(x, y), OpKind::kMin},
      {Pow(x, y), OpKind::kPow},
      {Eq(x, y), OpKind::kEq},
      {Ne(x, y), OpKind::kNe},
      {p, OpKind::kLt},
      {Le(x, y), OpKind::kLe},
      {Gt(x, y), OpKind::kGt},
      {Ge(x, y), OpKind::kGe},
      {Select(p, x, y), OpKind::kSelect},
      {Cast(x, DType::kF16), OpKind::kCast},
      {ReduceSum(m, {0}), OpKind::kReduceSum},
      {ReduceMax(m, {1}), OpKind::kReduceMax},
      {ReduceMin(m, {2}), OpKind::kReduceMin},
      {ReduceMean(m, {0, 2}, true), OpKind::kReduceMean},
      {Matmul(x, w), OpKind::kMatmul},
      {Reshape(m, {6, 4}), OpKind::kReshape},
      {Transpose(m, {1, 2, 0}), OpKind::kTranspose},
  };
  ASSERT_TRUE(b.status().ok()) << b.status();
  for (const auto& [value, op] : cases) {
    ASSERT_TRUE(value.valid()) << OpName(op);
    EXPECT_EQ(b.graph().node(value.id()).op, op);
  }
  // The order of a scalar and a Value is kept: 1 - x is sub(constant, x).
  const Node& one_minus = b.graph().node(cases[17].first.id());
  EXPECT_EQ(b.graph().node(one_minus.operands[0]).op, OpKind::kConstant);
  EXPECT_EQ(one_minus.operands[1], x.id());
  EXPECT_THAT(cases[31].first.shape(), ElementsAre(2, 3));
  EXPECT_EQ(cases[31].first.dtype(), DType::kF16);
  EXPECT_THAT(cases[35].first.shape(), ElementsAre(1, 3, 1));
  EXPECT_THAT(cases[36].first.shape(), ElementsAre(2, 5));
  EXPECT_THAT(cases[38].first.shape(), ElementsAre(3, 4, 2));
}

}  // namespace
}  // namespace kiln
