#include "frontends/builder.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/tensor_bytes.h"

namespace kiln {

DType Value::dtype() const { return builder_->graph().node(id_).dtype; }
const Dims& Value::shape() const { return builder_->graph().node(id_).shape; }

Value Value::Named(std::string name) const {
  if (builder_ != nullptr) builder_->Rename(*this, std::move(name));
  return *this;
}

std::string GraphBuilder::FreshName(absl::string_view stem) {
  for (;;) {
    std::string name = absl::StrCat(stem, "_", ++counter_);
    if (!graph_.FindNode(name).ok()) return name;
  }
}

void GraphBuilder::Rename(Value value, std::string name) {
  if (!status_.ok() || !value.valid()) return;
  status_ = graph_.RenameNode(value.id(), std::move(name));
}

Value GraphBuilder::Add(NodeSpec spec, std::initializer_list<Value> operands) {
  if (!status_.ok()) return {};
  for (const Value& operand : operands) {
    if (!operand.valid() || operand.builder() != this) {
      status_ = absl::InvalidArgumentError(absl::StrCat(
          "an operand of a new ", OpName(spec.op), " node is invalid or comes from another builder"));
      return {};
    }
    spec.operands.push_back(operand.id());
  }
  if (spec.name.empty()) spec.name = FreshName(OpName(spec.op));
  absl::StatusOr<NodeId> id = graph_.AddNode(std::move(spec));
  if (!id.ok()) {
    status_ = id.status();
    return {};
  }
  return Value(this, *id);
}

Value GraphBuilder::Input(std::string name, DType dtype, Dims shape) {
  return Add({.name = std::move(name), .op = OpKind::kInput, .dtype = dtype, .shape = std::move(shape)},
             {});
}

Value GraphBuilder::Constant(double value, DType dtype) {
  return Add({.op = OpKind::kConstant, .dtype = dtype, .value = value}, {});
}

Value GraphBuilder::Constant(const HostTensor& tensor) {
  return Constant(tensor.dtype, tensor.shape, EncodeTensor(tensor));
}

Value GraphBuilder::Constant(DType dtype, Dims shape, absl::string_view bytes) {
  return Add({.op = OpKind::kConstant,
              .dtype = dtype,
              .shape = std::move(shape),
              .data = std::make_shared<const std::string>(bytes)},
             {});
}

Value GraphBuilder::Iota(DType dtype, Dims shape, int64_t axis) {
  return Add({.op = OpKind::kIota, .dtype = dtype, .shape = std::move(shape), .axes = {axis}}, {});
}

absl::StatusOr<Graph> GraphBuilder::Build(const std::vector<Value>& outputs) {
  if (!status_.ok()) return status_;
  std::vector<NodeId> ids;
  for (const Value& output : outputs) {
    if (!output.valid() || output.builder() != this) {
      return absl::InvalidArgumentError("an output is invalid or comes from another builder");
    }
    ids.push_back(output.id());
  }
  Graph graph = graph_;
  if (absl::Status s = graph.SetOutputs(std::move(ids)); !s.ok()) return s;
  return graph;
}

namespace {

Value Unary(OpKind op, Value x) {
  if (x.builder() == nullptr) return {};
  return x.builder()->Add({.op = op}, {x});
}

GraphBuilder* BuilderOf(std::initializer_list<Value> values) {
  for (const Value& v : values) {
    if (v.builder() != nullptr) return v.builder();
  }
  return nullptr;
}

Value Nary(OpKind op, std::initializer_list<Value> operands) {
  GraphBuilder* builder = BuilderOf(operands);
  if (builder == nullptr) return {};
  return builder->Add({.op = op}, operands);
}

// A scalar takes the dtype of the Value it meets.
Value ScalarLike(Value like, double scalar) {
  if (!like.valid()) return {};
  return like.builder()->Constant(scalar, like.dtype());
}

Value Reduce(OpKind op, Value x, std::vector<int64_t> axes, bool keepdims) {
  if (x.builder() == nullptr) return {};
  return x.builder()->Add({.op = op, .axes = std::move(axes), .keepdims = keepdims}, {x});
}

}  // namespace

Value Neg(Value x) { return Unary(OpKind::kNeg, x); }
Value Abs(Value x) { return Unary(OpKind::kAbs, x); }
Value Exp(Value x) { return Unary(OpKind::kExp, x); }
Value Log(Value x) { return Unary(OpKind::kLog, x); }
Value Tanh(Value x) { return Unary(OpKind::kTanh, x); }
Value Erf(Value x) { return Unary(OpKind::kErf, x); }
Value Sqrt(Value x) { return Unary(OpKind::kSqrt, x); }
Value Rsqrt(Value x) { return Unary(OpKind::kRsqrt, x); }
Value Sigmoid(Value x) { return Unary(OpKind::kSigmoid, x); }
Value Relu(Value x) { return Unary(OpKind::kRelu, x); }
Value Reciprocal(Value x) { return Unary(OpKind::kReciprocal, x); }
Value Max(Value a, Value b) { return Nary(OpKind::kMax, {a, b}); }
Value Min(Value a, Value b) { return Nary(OpKind::kMin, {a, b}); }
Value Pow(Value a, Value b) { return Nary(OpKind::kPow, {a, b}); }
Value Eq(Value a, Value b) { return Nary(OpKind::kEq, {a, b}); }
Value Ne(Value a, Value b) { return Nary(OpKind::kNe, {a, b}); }
Value Lt(Value a, Value b) { return Nary(OpKind::kLt, {a, b}); }
Value Le(Value a, Value b) { return Nary(OpKind::kLe, {a, b}); }
Value Gt(Value a, Value b) { return Nary(OpKind::kGt, {a, b}); }
Value Ge(Value a, Value b) { return Nary(OpKind::kGe, {a, b}); }
Value Select(Value c, Value t, Value f) { return Nary(OpKind::kSelect, {c, t, f}); }
Value Cast(Value x, DType dtype) {
  if (x.builder() == nullptr) return {};
  return x.builder()->Add({.op = OpKind::kCast, .dtype = dtype}, {x});
}

Value operator+(Value a, Value b) { return Nary(OpKind::kAdd, {a, b}); }
Value operator-(Value a, Value b) { return Nary(OpKind::kSub, {a, b}); }
Value operator*(Value a, Value b) { return Nary(OpKind::kMul, {a, b}); }
Value operator/(Value a, Value b) { return Nary(OpKind::kDiv, {a, b}); }
Value operator-(Value x) { return Neg(x); }
Value operator+(Value a, double b) { return a + ScalarLike(a, b); }
Value operator-(Value a, double b) { return a - ScalarLike(a, b); }
Value operator*(Value a, double b) { return a * ScalarLike(a, b); }
Value operator/(Value a, double b) { return a / ScalarLike(a, b); }
Value operator+(double a, Value b) { return ScalarLike(b, a) + b; }
Value operator-(double a, Value b) { return ScalarLike(b, a) - b; }
Value operator*(double a, Value b) { return ScalarLike(b, a) * b; }
Value operator/(double a, Value b) { return ScalarLike(b, a) / b; }

Value ReduceSum(Value x, std::vector<int64_t> axes, bool keepdims) {
  return Reduce(OpKind::kReduceSum, x, std::move(axes), keepdims);
}
Value ReduceMax(Value x, std::vector<int64_t> axes, bool keepdims) {
  return Reduce(OpKind::kReduceMax, x, std::move(axes), keepdims);
}
Value ReduceMin(Value x, std::vector<int64_t> axes, bool keepdims) {
  return Reduce(OpKind::kReduceMin, x, std::move(axes), keepdims);
}
Value ReduceMean(Value x, std::vector<int64_t> axes, bool keepdims) {
  return Reduce(OpKind::kReduceMean, x, std::move(axes), keepdims);
}

Value Matmul(Value a, Value b) { return Nary(OpKind::kMatmul, {a, b}); }
Value Reshape(Value x, Dims shape) {
  if (x.builder() == nullptr) return {};
  return x.builder()->Add({.op = OpKind::kReshape, .shape = std::move(shape)}, {x});
}
Value Transpose(Value x, std::vector<int64_t> perm) {
  if (x.builder() == nullptr) return {};
  return x.builder()->Add({.op = OpKind::kTranspose, .perm = std::move(perm)}, {x});
}
Value Slice(Value x, std::vector<int64_t> starts, std::vector<int64_t> steps, Dims shape) {
  if (x.builder() == nullptr) return {};
  return x.builder()->Add(
      {.op = OpKind::kSlice, .shape = std::move(shape), .starts = std::move(starts), .steps = std::move(steps)},
      {x});
}

}  // namespace kiln
