// Shape and dtype inference through Graph::AddNode, the graph's own checks and
// VerifyGraph: every inferred type and every user-facing error message.
#include "graph/infer.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph.h"
#include "graph/verifier.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;

class InferTest : public ::testing::Test {
 protected:
  NodeId Input(std::string name, DType dtype, Dims shape) {
    absl::StatusOr<NodeId> id =
        g_.AddNode({.name = std::move(name), .op = OpKind::kInput, .dtype = dtype, .shape = shape});
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or(-1);
  }
  // Adds a node that must be valid and returns it.
  const Node& Add(NodeSpec spec) {
    absl::StatusOr<NodeId> id = g_.AddNode(std::move(spec));
    EXPECT_TRUE(id.ok()) << id.status();
    return g_.node(*id);
  }
  absl::Status Error(NodeSpec spec) { return g_.AddNode(std::move(spec)).status(); }

  Graph g_;
};

TEST_F(InferTest, InputsAndConstants) {
  const Node& x = Add({.name = "x", .op = OpKind::kInput, .dtype = DType::kBF16, .shape = {4, 8}});
  EXPECT_EQ(x.dtype, DType::kBF16);
  EXPECT_THAT(x.shape, ElementsAre(4, 8));
  const Node& scalar = Add({.name = "s", .op = OpKind::kInput, .dtype = DType::kF32, .shape = {}});
  EXPECT_THAT(scalar.shape, ElementsAre());

  const Node& c = Add({.name = "c", .op = OpKind::kConstant, .dtype = DType::kF32, .value = 0.1});
  EXPECT_EQ(c.dtype, DType::kF32);
  EXPECT_THAT(c.shape, ElementsAre());
  EXPECT_EQ(c.value, static_cast<double>(0.1f));
  // Float constants keep f32 precision whatever their dtype (bf16 would be 0.044677734375).
  const Node& b =
      Add({.name = "b", .op = OpKind::kConstant, .dtype = DType::kBF16, .value = 0.044715});
  EXPECT_EQ(b.dtype, DType::kBF16);
  EXPECT_EQ(b.value, static_cast<double>(0.044715f));
  const Node& i = Add({.name = "i", .op = OpKind::kConstant, .dtype = DType::kI32, .value = -7});
  EXPECT_EQ(i.value, -7.0);
  const Node& t = Add({.name = "t", .op = OpKind::kConstant, .dtype = DType::kBool, .value = 1});
  EXPECT_EQ(t.value, 1.0);
}

TEST_F(InferTest, UnaryOpsKeepTypeAndShape) {
  NodeId x = Input("x", DType::kF16, {3, 5});
  const OpKind unary[] = {OpKind::kNeg,     OpKind::kAbs,  OpKind::kExp,       OpKind::kLog,
                          OpKind::kTanh,    OpKind::kErf,  OpKind::kSqrt,      OpKind::kRsqrt,
                          OpKind::kSigmoid, OpKind::kRelu, OpKind::kReciprocal};
  for (OpKind op : unary) {
    const Node& node = Add({.name = std::string(OpName(op)), .op = op, .operands = {x}});
    EXPECT_EQ(node.dtype, DType::kF16) << OpName(op);
    EXPECT_THAT(node.shape, ElementsAre(3, 5)) << OpName(op);
  }
  NodeId n = Input("n", DType::kI32, {2});
  for (OpKind op : {OpKind::kNeg, OpKind::kAbs, OpKind::kRelu}) {
    const Node& node = Add({.name = absl::StrCat("i_", OpName(op)), .op = op, .operands = {n}});
    EXPECT_EQ(node.dtype, DType::kI32) << OpName(op);
  }
}

TEST_F(InferTest, BinaryOpsBroadcast) {
  NodeId col = Input("col", DType::kF32, {4, 1});
  NodeId row = Input("row", DType::kF32, {1, 6});
  NodeId c = g_.AddNode({.name = "c", .op = OpKind::kConstant, .value = 2}).value();
  for (OpKind op : {OpKind::kAdd, OpKind::kSub, OpKind::kMul, OpKind::kDiv, OpKind::kMax,
                    OpKind::kMin, OpKind::kPow}) {
    const Node& node = Add({.name = std::string(OpName(op)), .op = op, .operands = {col, row}});
    EXPECT_EQ(node.dtype, DType::kF32);
    EXPECT_THAT(node.shape, ElementsAre(4, 6)) << OpName(op);
  }
  EXPECT_THAT(Add({.name = "scaled", .op = OpKind::kMul, .operands = {c, col}}).shape,
              ElementsAre(4, 1));
  NodeId cube = Input("cube", DType::kF32, {2, 4, 6});
  EXPECT_THAT(Add({.name = "rank_extend", .op = OpKind::kAdd, .operands = {cube, row}}).shape,
              ElementsAre(2, 4, 6));
  NodeId n = Input("n", DType::kI32, {3});
  EXPECT_EQ(Add({.name = "isum", .op = OpKind::kAdd, .operands = {n, n}}).dtype, DType::kI32);
}

TEST_F(InferTest, ComparesGiveBool) {
  NodeId a = Input("a", DType::kBF16, {2, 3});
  NodeId b = Input("b", DType::kBF16, {3});
  for (OpKind op : {OpKind::kEq, OpKind::kNe, OpKind::kLt, OpKind::kLe, OpKind::kGt, OpKind::kGe}) {
    const Node& node = Add({.name = std::string(OpName(op)), .op = op, .operands = {a, b}});
    EXPECT_EQ(node.dtype, DType::kBool) << OpName(op);
    EXPECT_THAT(node.shape, ElementsAre(2, 3)) << OpName(op);
  }
  NodeId p = Input("p", DType::kBool, {3});
  EXPECT_EQ(Add({.name = "beq", .op = OpKind::kEq, .operands = {p, p}}).dtype, DType::kBool);
  NodeId n = Input("n", DType::kI32, {3});
  EXPECT_EQ(Add({.name = "ilt", .op = OpKind::kLt, .operands = {n, n}}).dtype, DType::kBool);
}

TEST_F(InferTest, SelectAndCast) {
  NodeId cond = Input("cond", DType::kBool, {4, 1});
  NodeId a = Input("a", DType::kI32, {1, 5});
  NodeId b = Input("b", DType::kI32, {});
  const Node& s = Add({.name = "s", .op = OpKind::kSelect, .operands = {cond, a, b}});
  EXPECT_EQ(s.dtype, DType::kI32);
  EXPECT_THAT(s.shape, ElementsAre(4, 5));
  for (DType to : kAllDTypes) {
    const Node& c = Add({.name = absl::StrCat("to_", DTypeName(to)),
                         .op = OpKind::kCast,
                         .operands = {a},
                         .dtype = to});
    EXPECT_EQ(c.dtype, to);
    EXPECT_THAT(c.shape, ElementsAre(1, 5));
  }
}

TEST_F(InferTest, Reductions) {
  NodeId x = Input("x", DType::kF32, {2, 3, 4});
  const Node& sum = Add({.name = "sum", .op = OpKind::kReduceSum, .operands = {x}, .axes = {1}});
  EXPECT_THAT(sum.shape, ElementsAre(2, 4));
  EXPECT_THAT(sum.axes, ElementsAre(1));
  const Node& max = Add({.name = "max",
                         .op = OpKind::kReduceMax,
                         .operands = {x},
                         .axes = {-1, 0},
                         .keepdims = true});
  EXPECT_THAT(max.shape, ElementsAre(1, 3, 1));
  EXPECT_THAT(max.axes, ElementsAre(0, 2));  // normalized and sorted
  EXPECT_TRUE(max.keepdims);
  const Node& all =
      Add({.name = "all", .op = OpKind::kReduceMean, .operands = {x}, .axes = {0, 1, 2}});
  EXPECT_THAT(all.shape, ElementsAre());
  EXPECT_EQ(all.dtype, DType::kF32);
  NodeId h = Input("h", DType::kF16, {5});
  const Node& hmin = Add({.name = "hmin", .op = OpKind::kReduceMin, .operands = {h}, .axes = {0}});
  EXPECT_EQ(hmin.dtype, DType::kF16);
}

TEST_F(InferTest, MatmulReshapeTranspose) {
  NodeId a = Input("a", DType::kBF16, {8, 16});
  NodeId b = Input("b", DType::kBF16, {16, 4});
  const Node& c = Add({.name = "c", .op = OpKind::kMatmul, .operands = {a, b}});
  EXPECT_EQ(c.dtype, DType::kBF16);
  EXPECT_THAT(c.shape, ElementsAre(8, 4));
  NodeId ba = Input("ba", DType::kF32, {3, 8, 16});
  NodeId bb = Input("bb", DType::kF32, {3, 16, 2});
  EXPECT_THAT(Add({.name = "bc", .op = OpKind::kMatmul, .operands = {ba, bb}}).shape,
              ElementsAre(3, 8, 2));
  const Node& r = Add({.name = "r", .op = OpKind::kReshape, .operands = {ba}, .shape = {24, 16}});
  EXPECT_THAT(r.shape, ElementsAre(24, 16));
  EXPECT_EQ(r.dtype, DType::kF32);
  const Node& t = Add({.name = "t", .op = OpKind::kTranspose, .operands = {ba}, .perm = {2, 0, 1}});
  EXPECT_THAT(t.shape, ElementsAre(16, 3, 8));
  EXPECT_THAT(t.perm, ElementsAre(2, 0, 1));
  NodeId one = Input("one", DType::kF32, {1});
  EXPECT_THAT(Add({.name = "scalar", .op = OpKind::kReshape, .operands = {one}}).shape,
              ElementsAre());
}

TEST_F(InferTest, NameErrors) {
  ExpectInvalid(Error({.name = "", .op = OpKind::kInput, .shape = {1}}),
                "a node has an empty name");
  ExpectInvalid(Error({.name = "a b", .op = OpKind::kInput, .shape = {1}}),
                "node name \"a b\" contains ' '; names use only letters, digits and _ . - / :");
  ExpectInvalid(
      Error({.name = "a\"b", .op = OpKind::kInput, .shape = {1}}),
      "node name \"a\\\"b\" contains '\\\"'; names use only letters, digits and _ . - / :");
  ExpectInvalid(Error({.name = "a\nb", .op = OpKind::kInput, .shape = {1}}),
                "node name \"a\\nb\" contains '\\n'; names use only letters, digits and _ . - / :");
  ExpectInvalid(
      Error({.name = std::string(129, 'n'), .op = OpKind::kInput, .shape = {1}}),
      absl::StrCat("node name \"", std::string(32, 'n'), "...\" is longer than 128 characters"));
  EXPECT_TRUE(g_.AddNode({.name = std::string(128, 'n'), .op = OpKind::kInput, .shape = {1}}).ok());
  EXPECT_TRUE(g_.AddNode({.name = "a_b.c-d/e:9", .op = OpKind::kInput, .shape = {1}}).ok());
  NodeId x = Input("x", DType::kF32, {2});
  ExpectInvalid(Error({.name = "x", .op = OpKind::kTanh, .operands = {x}}),
                "node \"x\" (tanh): name is already used by another node");
}

TEST_F(InferTest, OperandAndAttributeErrors) {
  NodeId x = Input("x", DType::kF32, {2, 3});
  ExpectInvalid(Error({.name = "y", .op = OpKind::kTanh, .operands = {5}}),
                "node \"y\" (tanh): operand id 5 does not name an earlier node");
  ExpectInvalid(Error({.name = "y", .op = OpKind::kTanh, .operands = {-1}}),
                "node \"y\" (tanh): operand id -1 does not name an earlier node");
  ExpectInvalid(Error({.name = "y", .op = OpKind::kAdd, .operands = {x}}),
                "node \"y\" (add): takes 2 operands, got 1");
  ExpectInvalid(Error({.name = "y", .op = OpKind::kExp, .operands = {x, x}}),
                "node \"y\" (exp): takes 1 operand, got 2");
  ExpectInvalid(Error({.name = "y", .op = OpKind::kSelect, .operands = {x, x}}),
                "node \"y\" (select): takes 3 operands, got 2");
  ExpectInvalid(Error({.name = "y", .op = OpKind::kInput, .operands = {x}}),
                "node \"y\" (input): takes 0 operands, got 1");
  ExpectInvalid(Error({.name = "y", .op = OpKind::kExp, .operands = {x}, .axes = {0}}),
                "node \"y\" (exp): axes are only for reductions and iota");
  ExpectInvalid(Error({.name = "y", .op = OpKind::kExp, .operands = {x}, .perm = {1, 0}}),
                "node \"y\" (exp): perm is only for transpose");
  ExpectInvalid(Error({.name = "y", .op = OpKind::kExp, .operands = {x}, .shape = {6}}),
                "node \"y\" (exp): a shape is only given for inputs, constants, reshapes, slices and iota");
}

TEST_F(InferTest, ShapeErrors) {
  ExpectInvalid(Error({.name = "x", .op = OpKind::kInput, .shape = {2, -1}}),
                "node \"x\" (input): shape [2,-1] has a negative dim");
  ExpectInvalid(Error({.name = "x", .op = OpKind::kInput, .shape = {2, 0}}),
                "node \"x\" (input): shape [2,0] has a zero dim at axis 1; empty tensors are not "
                "supported");
  ExpectInvalid(Error({.name = "x", .op = OpKind::kInput, .shape = {1 << 24, 1 << 24, 2}}),
                "node \"x\" (input): shape [16777216,16777216,2] has more than 2^48 elements");
  ExpectInvalid(Error({.name = "x", .op = OpKind::kInput, .shape = {1, 1, 1, 1, 1, 1, 1, 1, 1}}),
                "node \"x\" (input): rank 9 exceeds the maximum rank 8");
  ExpectInvalid(Error({.name = "c", .op = OpKind::kConstant, .shape = {1}, .value = 1}),
                "node \"c\" (constant): a scalar constant has shape []; a constant of shape [1] needs its data");
  ExpectInvalid(Error({.name = "c", .op = OpKind::kConstant, .dtype = DType::kI32, .value = 1.5}),
                "node \"c\" (constant): value 1.5 is not a valid i32");
  ExpectInvalid(Error({.name = "c", .op = OpKind::kConstant, .dtype = DType::kBool, .value = 0.5}),
                "node \"c\" (constant): value 0.5 is not a valid bool");
}

// Inferred shapes obey the limits input shapes do, so no byte count of a
// valid graph overflows.
TEST_F(InferTest, InferredShapesAreCheckedLikeInputShapes) {
  NodeId col = Input("a", DType::kF32, {int64_t{1} << 32, 1});
  NodeId row = Input("b", DType::kF32, {1, int64_t{1} << 32});
  ExpectInvalid(Error({.name = "c", .op = OpKind::kAdd, .operands = {col, row}}),
                "node \"c\" (add): shape [4294967296,4294967296] has more than 2^48 elements");
  NodeId cond = Input("cond", DType::kBool, {int64_t{1} << 32, 1});
  ExpectInvalid(Error({.name = "s", .op = OpKind::kSelect, .operands = {cond, row, row}}),
                "node \"s\" (select): shape [4294967296,4294967296] has more than 2^48 elements");
  NodeId tall = Input("tall", DType::kF32, {int64_t{1} << 40, 1});
  NodeId wide = Input("wide", DType::kF32, {1, int64_t{1} << 40});
  ExpectInvalid(Error({.name = "m", .op = OpKind::kMatmul, .operands = {tall, wide}}),
                "node \"m\" (matmul): shape [1099511627776,1099511627776] has more than 2^48 elements");
  // At the limit itself the product is accepted.
  NodeId limit_col = Input("lc", DType::kF32, {int64_t{1} << 24, 1});
  NodeId limit_row = Input("lr", DType::kF32, {1, int64_t{1} << 24});
  EXPECT_THAT(Add({.name = "ok", .op = OpKind::kMul, .operands = {limit_col, limit_row}}).shape,
              ElementsAre(int64_t{1} << 24, int64_t{1} << 24));
}

TEST_F(InferTest, DTypeErrors) {
  NodeId f = Input("f", DType::kF32, {4});
  NodeId h = Input("h", DType::kBF16, {4});
  NodeId n = Input("n", DType::kI32, {4});
  NodeId p = Input("p", DType::kBool, {4});
  ExpectInvalid(Error({.name = "e", .op = OpKind::kExp, .operands = {n}}),
                "node \"e\" (exp): operand 0 (\"n\") has dtype i32, which this op does not accept");
  ExpectInvalid(
      Error({.name = "r", .op = OpKind::kRelu, .operands = {p}}),
      "node \"r\" (relu): operand 0 (\"p\") has dtype bool, which this op does not accept");
  ExpectInvalid(Error({.name = "d", .op = OpKind::kDiv, .operands = {n, n}}),
                "node \"d\" (div): operand 0 (\"n\") has dtype i32, which this op does not accept");
  ExpectInvalid(Error({.name = "w", .op = OpKind::kPow, .operands = {f, n}}),
                "node \"w\" (pow): operand 1 (\"n\") has dtype i32, which this op does not accept");
  ExpectInvalid(
      Error({.name = "a", .op = OpKind::kAdd, .operands = {p, p}}),
      "node \"a\" (add): operand 0 (\"p\") has dtype bool, which this op does not accept");
  ExpectInvalid(Error({.name = "s", .op = OpKind::kAdd, .operands = {f, h}}),
                "node \"s\" (add): operand dtypes f32 and bf16 differ; insert a cast");
  ExpectInvalid(Error({.name = "l", .op = OpKind::kLt, .operands = {p, p}}),
                "node \"l\" (lt): operand 0 (\"p\") has dtype bool, which this op does not accept");
  ExpectInvalid(Error({.name = "q", .op = OpKind::kEq, .operands = {f, n}}),
                "node \"q\" (eq): operand dtypes f32 and i32 differ; insert a cast");
  ExpectInvalid(Error({.name = "s", .op = OpKind::kSelect, .operands = {f, f, f}}),
                "node \"s\" (select): condition (\"f\") has dtype f32; it must be bool");
  ExpectInvalid(Error({.name = "s", .op = OpKind::kSelect, .operands = {p, f, n}}),
                "node \"s\" (select): operand dtypes f32 and i32 differ; insert a cast");
  ExpectInvalid(Error({.name = "m", .op = OpKind::kReduceMean, .operands = {n}, .axes = {0}}),
                "node \"m\" (reduce_mean): operand 0 (\"n\") has dtype i32, which this op does not "
                "accept");
  // Kernels reduce in f32, which cannot hold every i32 sum exactly.
  for (OpKind op : {OpKind::kReduceSum, OpKind::kReduceMax, OpKind::kReduceMin}) {
    ExpectInvalid(Error({.name = "m", .op = op, .operands = {n}, .axes = {0}}),
                  absl::StrCat("node \"m\" (", OpName(op),
                               "): operand 0 (\"n\") has dtype i32, which this op does not accept"));
  }
  ExpectInvalid(Error({.name = "m", .op = OpKind::kReduceSum, .operands = {p}, .axes = {0}}),
                "node \"m\" (reduce_sum): operand 0 (\"p\") has dtype bool, which this op does not "
                "accept");
}

TEST_F(InferTest, BroadcastErrors) {
  NodeId x = Input("x", DType::kF32, {16384, 16384});
  NodeId v = Input("v", DType::kF32, {3});
  ExpectInvalid(Error({.name = "t4", .op = OpKind::kAdd, .operands = {x, v}}),
                "node \"t4\" (add): shapes [16384,16384] and [3] cannot broadcast");
  ExpectInvalid(Error({.name = "t5", .op = OpKind::kGe, .operands = {v, x}}),
                "node \"t5\" (ge): shapes [3] and [16384,16384] cannot broadcast");
  NodeId cond = Input("cond", DType::kBool, {4, 1});
  NodeId a = Input("a", DType::kF32, {1, 5});
  NodeId b = Input("b", DType::kF32, {6});
  ExpectInvalid(Error({.name = "s", .op = OpKind::kSelect, .operands = {cond, a, b}}),
                "node \"s\" (select): shapes [4,5] and [6] cannot broadcast");
}

TEST_F(InferTest, ReductionErrors) {
  NodeId x = Input("x", DType::kF32, {3, 4});
  ExpectInvalid(Error({.name = "r", .op = OpKind::kReduceSum, .operands = {x}}),
                "node \"r\" (reduce_sum): no reduction axes given");
  ExpectInvalid(Error({.name = "r", .op = OpKind::kReduceSum, .operands = {x}, .axes = {2}}),
                "node \"r\" (reduce_sum): axis 2 is out of range for rank 2 operand [3,4]");
  ExpectInvalid(Error({.name = "r", .op = OpKind::kReduceMax, .operands = {x}, .axes = {-3}}),
                "node \"r\" (reduce_max): axis -3 is out of range for rank 2 operand [3,4]");
  ExpectInvalid(Error({.name = "r", .op = OpKind::kReduceMin, .operands = {x}, .axes = {1, -1}}),
                "node \"r\" (reduce_min): axes 1 and -1 both name axis 1 of rank 2 operand [3,4]");
  ExpectInvalid(Error({.name = "r", .op = OpKind::kReduceMin, .operands = {x}, .axes = {0, 1, 0}}),
                "node \"r\" (reduce_min): axis 0 is listed twice");
}

TEST_F(InferTest, MatmulErrors) {
  NodeId a = Input("a", DType::kF32, {2, 3});
  NodeId b = Input("b", DType::kF32, {4, 5});
  NodeId h = Input("h", DType::kF16, {3, 5});
  NodeId n = Input("n", DType::kI32, {3, 5});
  NodeId v = Input("v", DType::kF32, {3});
  NodeId a3 = Input("a3", DType::kF32, {2, 3, 4});
  NodeId b3 = Input("b3", DType::kF32, {3, 4, 5});
  ExpectInvalid(Error({.name = "c", .op = OpKind::kMatmul, .operands = {a, b}}),
                "node \"c\" (matmul): inner dims differ: [2,3] x [4,5]");
  ExpectInvalid(Error({.name = "c", .op = OpKind::kMatmul, .operands = {a, h}}),
                "node \"c\" (matmul): operand dtypes f32 and f16 differ; insert a cast");
  ExpectInvalid(Error({.name = "c", .op = OpKind::kMatmul, .operands = {a, n}}),
                "node \"c\" (matmul): operand 1 (\"n\") has dtype i32, which this op does not "
                "accept");
  ExpectInvalid(Error({.name = "c", .op = OpKind::kMatmul, .operands = {v, v}}),
                "node \"c\" (matmul): operands [3] and [3] must have rank 2 to 6 ([..., M, K] x [..., K, N])");
  NodeId r7 = Input("r7", DType::kF32, {1, 1, 1, 1, 1, 3, 4});
  ExpectInvalid(Error({.name = "c", .op = OpKind::kMatmul, .operands = {a, r7}}),
                "node \"c\" (matmul): operands [2,3] and [1,1,1,1,1,3,4] must have rank 2 to 6 ([..., M, K] x "
                "[..., K, N])");
  ExpectInvalid(Error({.name = "c", .op = OpKind::kMatmul, .operands = {a3, b3}}),
                "node \"c\" (matmul): batch dims of [2,3,4] and [3,4,5] cannot broadcast");
}

TEST_F(InferTest, IotaNeedsAShapeOneAxisAndANumericDtype) {
  const Node& rows = Add({.name = "rows", .op = OpKind::kIota, .dtype = DType::kI32, .shape = {3, 5}, .axes = {-2}});
  EXPECT_EQ(rows.shape, (Dims{3, 5}));
  EXPECT_EQ(rows.axes, (std::vector<int64_t>{0}));
  ExpectInvalid(Error({.name = "i", .op = OpKind::kIota, .dtype = DType::kI32, .axes = {0}}),
                "node \"i\" (iota): needs a shape (an iota has no operand to take one from)");
  ExpectInvalid(Error({.name = "i", .op = OpKind::kIota, .dtype = DType::kBool, .shape = {3}, .axes = {0}}),
                "node \"i\" (iota): has dtype bool; an index is i32 or a float");
  ExpectInvalid(Error({.name = "i", .op = OpKind::kIota, .dtype = DType::kF32, .shape = {3, 5}, .axes = {2}}),
                "node \"i\" (iota): needs one axis in [-2, 2) of [3,5]");
  ExpectInvalid(Error({.name = "i", .op = OpKind::kIota, .dtype = DType::kF32, .shape = {3, 5}, .axes = {0, 1}}),
                "node \"i\" (iota): needs one axis in [-2, 2) of [3,5]");
}

TEST_F(InferTest, MatmulBroadcastsBatchDims) {
  NodeId a = Input("a", DType::kBF16, {2, 1, 5, 3});
  NodeId b = Input("b", DType::kBF16, {4, 3, 7});
  NodeId w = Input("w", DType::kBF16, {3, 7});
  NodeId a3 = Input("a3", DType::kBF16, {6, 5, 3});
  EXPECT_EQ(Add({.name = "c_ab", .op = OpKind::kMatmul, .operands = {a, b}}).shape, (Dims{2, 4, 5, 7}));
  EXPECT_EQ(Add({.name = "c_a3w", .op = OpKind::kMatmul, .operands = {a3, w}}).shape, (Dims{6, 5, 7}));
  NodeId m = Input("m", DType::kBF16, {5, 3});
  EXPECT_EQ(Add({.name = "c_mb", .op = OpKind::kMatmul, .operands = {m, b}}).shape, (Dims{4, 5, 7}));
}

TEST_F(InferTest, ReshapeAndTransposeErrors) {
  NodeId x = Input("x", DType::kF32, {2, 3});
  ExpectInvalid(Error({.name = "r", .op = OpKind::kReshape, .operands = {x}, .shape = {4, 2}}),
                "node \"r\" (reshape): cannot reshape [2,3] (6 elements) to [4,2] (8 elements)");
  ExpectInvalid(Error({.name = "r", .op = OpKind::kReshape, .operands = {x}, .shape = {-1, 6}}),
                "node \"r\" (reshape): shape [-1,6] has a negative dim");
  ExpectInvalid(Error({.name = "r", .op = OpKind::kReshape, .operands = {x}, .shape = {6, 0}}),
                "node \"r\" (reshape): shape [6,0] has a zero dim at axis 1; empty tensors are not "
                "supported");
  ExpectInvalid(Error({.name = "t", .op = OpKind::kTranspose, .operands = {x}, .perm = {0}}),
                "node \"t\" (transpose): permutation has 1 entries for a rank 2 operand");
  ExpectInvalid(Error({.name = "t", .op = OpKind::kTranspose, .operands = {x}, .perm = {0, 0}}),
                "node \"t\" (transpose): permutation is not a permutation of 0..1");
  ExpectInvalid(Error({.name = "t", .op = OpKind::kTranspose, .operands = {x}, .perm = {0, 2}}),
                "node \"t\" (transpose): permutation is not a permutation of 0..1");
  ExpectInvalid(Error({.name = "t", .op = OpKind::kTranspose, .operands = {x}, .perm = {-1, 0}}),
                "node \"t\" (transpose): permutation is not a permutation of 0..1");
}

TEST_F(InferTest, InferNodeDirectly) {
  Node a{.name = "a", .op = OpKind::kInput, .dtype = DType::kF32, .shape = {16384, 16384}};
  Node b{.name = "b", .op = OpKind::kInput, .dtype = DType::kF32, .shape = {3}};
  const Node* operands[] = {&a, &b};
  ExpectInvalid(
      InferNode({.name = "t4", .op = OpKind::kAdd, .operands = {0, 1}}, operands).status(),
      "node \"t4\" (add): shapes [16384,16384] and [3] cannot broadcast");
}

TEST_F(InferTest, FailedAddLeavesTheGraphUnchanged) {
  NodeId x = Input("x", DType::kF32, {2});
  ASSERT_FALSE(g_.AddNode({.name = "bad", .op = OpKind::kMatmul, .operands = {x, x}}).ok());
  EXPECT_EQ(g_.size(), 1);
  EXPECT_EQ(g_.FindNode("bad").status().code(), absl::StatusCode::kNotFound);
}

TEST(GraphTest, OutputsRenameLookupAndUsers) {
  Graph g;
  NodeId x = *g.AddNode({.name = "x", .op = OpKind::kInput, .shape = {2}});
  NodeId w = *g.AddNode({.name = "w", .op = OpKind::kInput, .shape = {2}});
  NodeId sq = *g.AddNode({.name = "sq", .op = OpKind::kMul, .operands = {x, x}});
  NodeId y = *g.AddNode({.name = "y", .op = OpKind::kAdd, .operands = {sq, w}});
  EXPECT_THAT(g.inputs(), ElementsAre(x, w));
  EXPECT_THAT(g.Users(),
              ElementsAre(ElementsAre(sq, sq), ElementsAre(y), ElementsAre(y), ElementsAre()));
  EXPECT_EQ(*g.FindNode("sq"), sq);
  EXPECT_EQ(g.FindNode("zz").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(g.FindNode("zz").status().message(), "no node named \"zz\"");

  ExpectInvalid(g.SetOutputs({}), "graph has no outputs");
  ExpectInvalid(g.SetOutputs({7}), "output id 7 does not name a node");
  ExpectInvalid(g.SetOutputs({y, sq, y}), "node \"y\" (add) is listed as an output twice");
  ASSERT_TRUE(g.SetOutputs({y, sq}).ok());
  EXPECT_THAT(g.outputs(), ElementsAre(y, sq));

  ExpectInvalid(g.RenameNode(9, "z"), "node id 9 does not name a node");
  ExpectInvalid(g.RenameNode(sq, "x"),
                "cannot rename node \"sq\" (mul) to \"x\": the name is already used");
  ExpectInvalid(
      g.RenameNode(sq, "bad name"),
      "node name \"bad name\" contains ' '; names use only letters, digits and _ . - / :");
  EXPECT_TRUE(g.RenameNode(sq, "sq").ok());
  ASSERT_TRUE(g.RenameNode(sq, "square").ok());
  EXPECT_EQ(g.node(sq).name, "square");
  EXPECT_EQ(*g.FindNode("square"), sq);
  EXPECT_FALSE(g.FindNode("sq").ok());
  // The old name is free again.
  EXPECT_TRUE(g.AddNode({.name = "sq", .op = OpKind::kInput, .shape = {1}}).ok());
}

TEST(GraphTest, NodeLabelEscapesNames) {
  EXPECT_EQ(NodeLabel("t4", OpKind::kAdd), "node \"t4\" (add)");
  EXPECT_EQ(NodeLabel("a\"b\n", OpKind::kReduceSum), "node \"a\\\"b\\n\" (reduce_sum)");
}

TEST(VerifierTest, AcceptsBuiltGraphsAndRequiresOutputs) {
  Graph g;
  NodeId x =
      *g.AddNode({.name = "x", .op = OpKind::kInput, .dtype = DType::kBF16, .shape = {4, 8}});
  NodeId c =
      *g.AddNode({.name = "c", .op = OpKind::kConstant, .dtype = DType::kBF16, .value = 0.1});
  NodeId m = *g.AddNode({.name = "m", .op = OpKind::kMul, .operands = {x, c}});
  NodeId s = *g.AddNode(
      {.name = "s", .op = OpKind::kReduceSum, .operands = {m}, .axes = {-1}, .keepdims = true});
  NodeId r = *g.AddNode({.name = "r", .op = OpKind::kReshape, .operands = {s}, .shape = {2, 2}});
  NodeId t = *g.AddNode({.name = "t", .op = OpKind::kTranspose, .operands = {r}, .perm = {1, 0}});
  NodeId f = *g.AddNode({.name = "f", .op = OpKind::kCast, .operands = {t}, .dtype = DType::kF32});
  NodeId p = *g.AddNode({.name = "p", .op = OpKind::kGt, .operands = {f, f}});
  NodeId sel = *g.AddNode({.name = "sel", .op = OpKind::kSelect, .operands = {p, f, f}});
  NodeId k = *g.AddNode({.name = "k", .op = OpKind::kConstant, .dtype = DType::kI32, .value = 3});
  ExpectInvalid(VerifyGraph(g), "graph has no outputs");
  ASSERT_TRUE(g.SetOutputs({sel, k}).ok());
  EXPECT_TRUE(VerifyGraph(g).ok()) << VerifyGraph(g);
}

}  // namespace
}  // namespace kiln
