// Elementwise ONNX ops: one kiln op each (Clip two, Not a comparison), or
// folded when every input is known.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "frontends/onnx/onnx_ops.h"

namespace kiln {
namespace {

OpKind UnaryKind(absl::string_view op) {
  if (op == "Sqrt") return OpKind::kSqrt;
  if (op == "Reciprocal") return OpKind::kReciprocal;
  if (op == "Exp") return OpKind::kExp;
  if (op == "Log") return OpKind::kLog;
  if (op == "Tanh") return OpKind::kTanh;
  if (op == "Erf") return OpKind::kErf;
  if (op == "Sigmoid") return OpKind::kSigmoid;
  if (op == "Relu") return OpKind::kRelu;
  if (op == "Neg") return OpKind::kNeg;
  return OpKind::kAbs;
}

OpKind BinaryKind(absl::string_view op) {
  if (op == "Add") return OpKind::kAdd;
  if (op == "Sub") return OpKind::kSub;
  if (op == "Mul") return OpKind::kMul;
  if (op == "Div") return OpKind::kDiv;
  if (op == "Pow") return OpKind::kPow;
  if (op == "Max") return OpKind::kMax;
  return OpKind::kMin;
}

OpKind CompareKind(absl::string_view op) {
  if (op == "Equal") return OpKind::kEq;
  if (op == "Less") return OpKind::kLt;
  if (op == "Greater") return OpKind::kGt;
  if (op == "LessOrEqual") return OpKind::kLe;
  return OpKind::kGe;
}

// The rank of the broadcast result of every input.
size_t ResultRank(const OnnxContext& c) {
  size_t rank = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    if (c.has_input(i)) rank = std::max(rank, c.input(i).shape.size());
  }
  return rank;
}

// op(operands...) in kiln, each operand a node or a scalar immediate.
absl::Status EmitElementwise(OnnxContext& c, OpKind op, std::vector<int> inputs) {
  std::vector<Value> operands;
  for (int i : inputs) {
    absl::StatusOr<Value> v = c.Operand(i, ResultRank(c));
    if (!v.ok()) return v.status();
    operands.push_back(*v);
  }
  Value result;
  if (operands.size() == 1) result = c.Emit({.op = op}, {operands[0]});
  if (operands.size() == 2) result = c.Emit({.op = op}, {operands[0], operands[1]});
  if (operands.size() == 3) result = c.Emit({.op = op}, {operands[0], operands[1], operands[2]});
  return c.SetOutput(0, result);
}

}  // namespace

absl::Status ImportUnary(OnnxContext& c) {
  const OpKind op = UnaryKind(c.node().op_type());
  if (c.AllKnown()) return c.FoldElementwise(op);
  return EmitElementwise(c, op, {0});
}

absl::Status ImportBinary(OnnxContext& c) {
  const OpKind op = BinaryKind(c.node().op_type());
  // Max and Min take any number of inputs; the others two.
  const bool variadic = op == OpKind::kMax || op == OpKind::kMin;
  if (!variadic && c.num_inputs() != 2) return c.Invalid(absl::StrCat("takes 2 inputs, got ", c.num_inputs()));
  if (c.num_inputs() == 0) return c.Invalid("takes at least one input");
  if (op == OpKind::kPow && c.input(1).type != c.input(0).type) {
    if (!c.input(1).known.has_value()) return c.Unimplemented("an exponent of another type must be known");
  }
  if (c.AllKnown()) return c.FoldElementwise(op);
  if (c.num_inputs() == 1) return c.SetOutput(0, c.Runtime(0));
  absl::StatusOr<Value> acc = c.Operand(0, ResultRank(c));
  for (int i = 1; acc.ok() && i < c.num_inputs(); ++i) {
    absl::StatusOr<Value> next = c.Operand(i, ResultRank(c));
    if (!next.ok()) return next.status();
    Value rhs = *next;
    if (op == OpKind::kPow && rhs.dtype() != acc->dtype()) rhs = c.Emit({.op = OpKind::kCast, .dtype = acc->dtype()}, {rhs});
    acc = c.Emit({.op = op}, {*acc, rhs});
  }
  return c.SetOutput(0, acc);
}

absl::Status ImportCompare(OnnxContext& c) {
  const OpKind op = CompareKind(c.node().op_type());
  if (c.AllKnown()) return c.FoldElementwise(op, onnx::TensorProto::BOOL);
  return EmitElementwise(c, op, {0, 1});
}

absl::Status ImportNot(OnnxContext& c) {
  if (c.AllKnown()) {
    absl::StatusOr<const OnnxTensor*> x = c.Known(0, "x");
    if (!x.ok()) return x.status();
    OnnxTensor result = **x;
    for (double& v : result.data) v = v == 0.0 ? 1.0 : 0.0;
    return c.SetKnown(0, std::move(result));
  }
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  return c.SetOutput(0, c.Emit({.op = OpKind::kEq}, {*x, c.Scalar(0, DType::kBool)}));
}

absl::Status ImportWhere(OnnxContext& c) {
  if (c.AllKnown()) return c.FoldElementwise(OpKind::kSelect, -1, 1);
  return EmitElementwise(c, OpKind::kSelect, {0, 1, 2});
}

absl::Status ImportCast(OnnxContext& c) {
  absl::StatusOr<int64_t> to = c.Int("to", onnx::TensorProto::UNDEFINED);
  if (!to.ok()) return to.status();
  if (absl::Status s = c.ExpectInt("saturate", 1, "kiln casts as ONNX's default does"); !s.ok()) return s;
  if (c.AllKnown()) {
    OnnxTensor result = *c.input(0).known;
    result.type = static_cast<int32_t>(*to);
    for (double& v : result.data) v = RoundToOnnxType(v, result.type);
    return c.SetKnown(0, std::move(result));
  }
  if (*to == onnx::TensorProto::INT64) {
    return c.Unimplemented("a cast to INT64 computed at run time is not supported: kiln's integers are i32");
  }
  absl::StatusOr<DType> dtype = KilnDTypeOf(static_cast<int32_t>(*to));
  if (!dtype.ok()) return c.Unimplemented(dtype.status().message());
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  return c.SetOutput(0, c.Emit({.op = OpKind::kCast, .dtype = *dtype}, {*x}));
}

absl::Status ImportClip(OnnxContext& c) {
  for (int i : {1, 2}) {
    if (c.has_input(i) && NumElements(c.input(i).shape) != 1) return c.Invalid(absl::StrCat("bound ", i, " is not a scalar"));
  }
  if (c.AllKnown()) {
    OnnxTensor result = *c.input(0).known;
    const double lo = c.has_input(1) ? c.input(1).known->data[0] : -HUGE_VAL;
    const double hi = c.has_input(2) ? c.input(2).known->data[0] : HUGE_VAL;
    for (double& v : result.data) v = std::isnan(v) ? v : std::min(std::max(v, lo), hi);
    return c.SetKnown(0, std::move(result));
  }
  absl::StatusOr<Value> y = c.Runtime(0);
  // ONNX Clip: min(max(x, lo), hi).
  for (int i : {1, 2}) {
    if (!y.ok() || !c.has_input(i)) continue;
    absl::StatusOr<Value> bound = c.Operand(i, c.input(0).shape.size());
    if (!bound.ok()) return bound.status();
    y = c.Emit({.op = i == 1 ? OpKind::kMax : OpKind::kMin}, {*y, *bound});
  }
  return c.SetOutput(0, y);
}

}  // namespace kiln
