#include "graph/infer.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kiln {
namespace {

// Collects the node's label so that every error below starts the same way.
class Inference {
 public:
  Inference(NodeSpec spec, absl::Span<const Node* const> operands)
      : spec_(std::move(spec)), operands_(operands) {}

  absl::StatusOr<Node> Run();

 private:
  absl::Status Error(absl::string_view problem) const {
    return absl::InvalidArgumentError(absl::StrCat(NodeLabel(spec_.name, spec_.op), ": ", problem));
  }
  const Node& operand(int i) const { return *operands_[i]; }
  absl::Status CheckShape(const Dims& dims) const;
  absl::Status CheckOperandDType(int i, bool allow_int, bool allow_bool) const;
  absl::Status SameDTypes(int first, int last) const;
  absl::StatusOr<Dims> Broadcast(int first, int last) const;

  absl::Status InferInput(Node& node) const;
  absl::Status InferConstant(Node& node) const;
  absl::Status InferTensorConstant(Node& node) const;
  absl::Status InferUnary(Node& node) const;
  absl::Status InferBinary(Node& node) const;
  absl::Status InferCompare(Node& node) const;
  absl::Status InferSelect(Node& node) const;
  absl::Status InferCast(Node& node) const;
  absl::Status InferReduce(Node& node) const;
  absl::Status InferMatmul(Node& node) const;
  absl::Status InferReshape(Node& node) const;
  absl::Status InferTranspose(Node& node) const;
  absl::Status InferSlice(Node& node) const;
  absl::Status InferIota(Node& node) const;

  NodeSpec spec_;
  absl::Span<const Node* const> operands_;
};

absl::Status Inference::CheckShape(const Dims& dims) const {
  absl::StatusOr<int64_t> count = CheckedNumElements(dims);
  if (!count.ok()) return Error(count.status().message());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) {
      return Error(absl::StrCat("shape ", DimsString(dims), " has a zero dim at axis ", i,
                                "; empty tensors are not supported"));
    }
  }
  return absl::OkStatus();
}

absl::Status Inference::CheckOperandDType(int i, bool allow_int, bool allow_bool) const {
  const DType dtype = operand(i).dtype;
  if (IsFloat(dtype) || (allow_int && dtype == DType::kI32) || (allow_bool && dtype == DType::kBool)) {
    return absl::OkStatus();
  }
  return Error(absl::StrCat("operand ", i, " (\"", operand(i).name, "\") has dtype ",
                            DTypeName(dtype), ", which this op does not accept"));
}

absl::Status Inference::SameDTypes(int first, int last) const {
  for (int i = first + 1; i <= last; ++i) {
    if (operand(i).dtype != operand(first).dtype) {
      return Error(absl::StrCat("operand dtypes ", DTypeName(operand(first).dtype), " and ",
                                DTypeName(operand(i).dtype), " differ; insert a cast"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Dims> Inference::Broadcast(int first, int last) const {
  Dims result = operand(first).shape;
  for (int i = first + 1; i <= last; ++i) {
    absl::StatusOr<Dims> next = BroadcastDims(result, operand(i).shape);
    if (!next.ok()) return Error(next.status().message());
    result = *std::move(next);
  }
  return result;
}

absl::Status Inference::InferInput(Node& node) const {
  node.dtype = spec_.dtype;
  node.shape = spec_.shape;
  return CheckShape(node.shape);
}

absl::Status Inference::InferConstant(Node& node) const {
  node.dtype = spec_.dtype;
  if (spec_.data != nullptr) return InferTensorConstant(node);
  if (!spec_.shape.empty()) {
    return Error(absl::StrCat("a scalar constant has shape []; a constant of shape ", DimsString(spec_.shape),
                              " needs its data"));
  }
  if (!IsFloat(node.dtype) && std::trunc(spec_.value) != spec_.value) {
    return Error(absl::StrCat("value ", spec_.value, " is not a valid ", DTypeName(node.dtype)));
  }
  // Constants are immediates in f32 arithmetic whatever their dtype says, so a
  // bf16 graph's 0.044715 keeps its f32 precision, as in PyTorch.
  node.value = IsFloat(node.dtype) ? RoundToDType(spec_.value, DType::kF32)
                                   : RoundToDType(spec_.value, node.dtype);
  return absl::OkStatus();
}

absl::Status Inference::InferTensorConstant(Node& node) const {
  if (spec_.value != 0.0 || std::signbit(spec_.value)) {
    return Error("a tensor constant holds its data, not a value");
  }
  if (absl::Status s = CheckShape(spec_.shape); !s.ok()) return s;
  const int64_t bytes = NumElements(spec_.shape) * DTypeSize(node.dtype);
  if (static_cast<int64_t>(spec_.data->size()) != bytes) {
    return Error(absl::StrCat("data holds ", spec_.data->size(), " bytes; ", DTypeName(node.dtype),
                              DimsString(spec_.shape), " needs ", bytes));
  }
  if (node.dtype == DType::kBool) {
    for (size_t i = 0; i < spec_.data->size(); ++i) {
      const unsigned char byte = static_cast<unsigned char>((*spec_.data)[i]);
      if (byte > 1) return Error(absl::StrCat("bool element ", i, " is stored as ", byte, "; it must be 0 or 1"));
    }
  }
  node.shape = spec_.shape;
  node.data = spec_.data;
  return absl::OkStatus();
}

absl::Status Inference::InferUnary(Node& node) const {
  const OpKind op = spec_.op;
  const bool int_ok = op == OpKind::kNeg || op == OpKind::kAbs || op == OpKind::kRelu;
  if (absl::Status s = CheckOperandDType(0, int_ok, false); !s.ok()) return s;
  node.dtype = operand(0).dtype;
  node.shape = operand(0).shape;
  return absl::OkStatus();
}

absl::Status Inference::InferBinary(Node& node) const {
  const bool int_ok = spec_.op != OpKind::kPow && spec_.op != OpKind::kDiv;
  for (int i = 0; i < 2; ++i) {
    if (absl::Status s = CheckOperandDType(i, int_ok, false); !s.ok()) return s;
  }
  if (absl::Status s = SameDTypes(0, 1); !s.ok()) return s;
  absl::StatusOr<Dims> shape = Broadcast(0, 1);
  if (!shape.ok()) return shape.status();
  node.dtype = operand(0).dtype;
  node.shape = *std::move(shape);
  return absl::OkStatus();
}

absl::Status Inference::InferCompare(Node& node) const {
  const bool bool_ok = spec_.op == OpKind::kEq || spec_.op == OpKind::kNe;
  for (int i = 0; i < 2; ++i) {
    if (absl::Status s = CheckOperandDType(i, true, bool_ok); !s.ok()) return s;
  }
  if (absl::Status s = SameDTypes(0, 1); !s.ok()) return s;
  absl::StatusOr<Dims> shape = Broadcast(0, 1);
  if (!shape.ok()) return shape.status();
  node.dtype = DType::kBool;
  node.shape = *std::move(shape);
  return absl::OkStatus();
}

absl::Status Inference::InferSelect(Node& node) const {
  if (operand(0).dtype != DType::kBool) {
    return Error(absl::StrCat("condition (\"", operand(0).name, "\") has dtype ",
                              DTypeName(operand(0).dtype), "; it must be bool"));
  }
  if (absl::Status s = SameDTypes(1, 2); !s.ok()) return s;
  absl::StatusOr<Dims> shape = Broadcast(0, 2);
  if (!shape.ok()) return shape.status();
  node.dtype = operand(1).dtype;
  node.shape = *std::move(shape);
  return absl::OkStatus();
}

absl::Status Inference::InferCast(Node& node) const {
  node.dtype = spec_.dtype;
  node.shape = operand(0).shape;
  return absl::OkStatus();
}

absl::Status Inference::InferReduce(Node& node) const {
  // Reductions accumulate in f32 on the GPU, which would round an i32 sum;
  // integer reductions are refused rather than computed inexactly.
  if (absl::Status s = CheckOperandDType(0, false, false); !s.ok()) return s;
  const Dims& in = operand(0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  if (spec_.axes.empty()) return Error("no reduction axes given");
  std::vector<int64_t> axes;
  for (size_t i = 0; i < spec_.axes.size(); ++i) {
    const int64_t axis = spec_.axes[i];
    if (axis < -rank || axis >= rank) {
      return Error(absl::StrCat("axis ", axis, " is out of range for rank ", rank, " operand ",
                                DimsString(in)));
    }
    const int64_t normalized = axis < 0 ? axis + rank : axis;
    const auto earlier = std::find(axes.begin(), axes.end(), normalized);
    if (earlier != axes.end()) {
      const int64_t first = spec_.axes[earlier - axes.begin()];
      // Spelled differently (1 and -1), the same axis would read as two.
      return Error(first == axis ? absl::StrCat("axis ", axis, " is listed twice")
                                 : absl::StrCat("axes ", first, " and ", axis, " both name axis ", normalized,
                                                " of rank ", rank, " operand ", DimsString(in)));
    }
    axes.push_back(normalized);
  }
  std::sort(axes.begin(), axes.end());
  node.dtype = operand(0).dtype;
  node.keepdims = spec_.keepdims;
  for (int64_t i = 0; i < rank; ++i) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), i);
    if (!reduced) {
      node.shape.push_back(in[i]);
    } else if (spec_.keepdims) {
      node.shape.push_back(1);
    }
  }
  node.axes = std::move(axes);
  return absl::OkStatus();
}

// [..., M, K] x [..., K, N] -> [..., M, N]: ranks 2 to kMaxMatmulRank, the
// batch dims (all but the last two) broadcast like NumPy's matmul.
absl::Status Inference::InferMatmul(Node& node) const {
  for (int i = 0; i < 2; ++i) {
    if (absl::Status s = CheckOperandDType(i, false, false); !s.ok()) return s;
  }
  if (absl::Status s = SameDTypes(0, 1); !s.ok()) return s;
  const Dims& a = operand(0).shape;
  const Dims& b = operand(1).shape;
  auto in_range = [](const Dims& d) { return d.size() >= 2 && d.size() <= kMaxMatmulRank; };
  if (!in_range(a) || !in_range(b)) {
    return Error(absl::StrCat("operands ", DimsString(a), " and ", DimsString(b), " must have rank 2 to ",
                              kMaxMatmulRank, " ([..., M, K] x [..., K, N])"));
  }
  if (a.back() != b[b.size() - 2]) {
    return Error(absl::StrCat("inner dims differ: ", DimsString(a), " x ", DimsString(b)));
  }
  absl::StatusOr<Dims> batch = BroadcastDims(absl::MakeConstSpan(a).first(a.size() - 2),
                                             absl::MakeConstSpan(b).first(b.size() - 2));
  if (!batch.ok()) {
    return Error(absl::StrCat("batch dims of ", DimsString(a), " and ", DimsString(b), " cannot broadcast"));
  }
  node.dtype = operand(0).dtype;
  node.shape = *std::move(batch);
  node.shape.push_back(a[a.size() - 2]);
  node.shape.push_back(b.back());
  return CheckShape(node.shape);
}

absl::Status Inference::InferReshape(Node& node) const {
  if (absl::Status s = CheckShape(spec_.shape); !s.ok()) return s;
  if (NumElements(spec_.shape) != NumElements(operand(0).shape)) {
    return Error(absl::StrCat("cannot reshape ", DimsString(operand(0).shape), " (",
                              NumElements(operand(0).shape), " elements) to ",
                              DimsString(spec_.shape), " (", NumElements(spec_.shape),
                              " elements)"));
  }
  node.dtype = operand(0).dtype;
  node.shape = spec_.shape;
  return absl::OkStatus();
}

absl::Status Inference::InferTranspose(Node& node) const {
  const Dims& in = operand(0).shape;
  if (spec_.perm.size() != in.size()) {
    return Error(absl::StrCat("permutation has ", spec_.perm.size(), " entries for a rank ",
                              in.size(), " operand"));
  }
  std::vector<bool> seen(in.size(), false);
  for (int64_t p : spec_.perm) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || seen[p]) {
      return Error(absl::StrCat("permutation is not a permutation of 0..", in.size() - 1));
    }
    seen[p] = true;
    node.shape.push_back(in[p]);
  }
  node.dtype = operand(0).dtype;
  node.perm = spec_.perm;
  return absl::OkStatus();
}

absl::Status Inference::InferSlice(Node& node) const {
  const Dims& in = operand(0).shape;
  const size_t rank = in.size();
  if (spec_.starts.size() != rank || spec_.steps.size() != rank || spec_.shape.size() != rank) {
    return Error(absl::StrCat("starts, steps and shape need one entry per dim of the rank ", rank, " operand ",
                              DimsString(in)));
  }
  if (absl::Status s = CheckShape(spec_.shape); !s.ok()) return s;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t start = spec_.starts[d], step = spec_.steps[d];
    if (start < 0 || start >= in[d]) {
      return Error(absl::StrCat("start ", start, " of dim ", d, " is outside the operand's [0, ", in[d], ")"));
    }
    if (step < 0) return Error(absl::StrCat("step ", step, " of dim ", d, " is negative"));
    // The last index read, start + (n - 1) * step, must stay inside the dim.
    int64_t span = 0, last = 0;
    if (__builtin_mul_overflow(spec_.shape[d] - 1, step, &span) || __builtin_add_overflow(start, span, &last) ||
        last >= in[d]) {
      return Error(absl::StrCat(spec_.shape[d], " elements from ", start, " in steps of ", step, " run past dim ",
                                d, " of ", DimsString(in)));
    }
  }
  node.dtype = operand(0).dtype;
  node.shape = spec_.shape;
  node.starts = spec_.starts;
  node.steps = spec_.steps;
  return absl::OkStatus();
}

// iota: shape and dtype given, the value of each element its index along the
// one axis named.
absl::Status Inference::InferIota(Node& node) const {
  if (spec_.shape.empty()) return Error("needs a shape (an iota has no operand to take one from)");
  if (absl::Status s = CheckShape(spec_.shape); !s.ok()) return s;
  if (spec_.dtype == DType::kBool) return Error("has dtype bool; an index is i32 or a float");
  const int64_t rank = static_cast<int64_t>(spec_.shape.size());
  if (spec_.axes.size() != 1 || spec_.axes[0] < -rank || spec_.axes[0] >= rank) {
    return Error(absl::StrCat("needs one axis in [", -rank, ", ", rank, ") of ", DimsString(spec_.shape)));
  }
  node.dtype = spec_.dtype;
  node.shape = spec_.shape;
  node.axes = {spec_.axes[0] < 0 ? spec_.axes[0] + rank : spec_.axes[0]};
  return absl::OkStatus();
}

absl::StatusOr<Node> Inference::Run() {
  const int arity = OpArity(spec_.op);
  if (static_cast<int>(operands_.size()) != arity) {
    return Error(absl::StrCat("takes ", arity, " operand", arity == 1 ? "" : "s", ", got ",
                              operands_.size()));
  }
  const OpFamily family = OpFamilyOf(spec_.op);
  if (!spec_.axes.empty() && family != OpFamily::kReduce && family != OpFamily::kIota) {
    return Error("axes are only for reductions and iota");
  }
  if (!spec_.perm.empty() && family != OpFamily::kTranspose) return Error("perm is only for transpose");
  if ((!spec_.starts.empty() || !spec_.steps.empty()) && family != OpFamily::kSlice) {
    return Error("starts and steps are only for slices");
  }
  if (spec_.data != nullptr && family != OpFamily::kConstant) return Error("data is only for constants");
  if (!spec_.shape.empty() && family != OpFamily::kInput && family != OpFamily::kReshape &&
      family != OpFamily::kConstant && family != OpFamily::kSlice && family != OpFamily::kIota) {
    return Error("a shape is only given for inputs, constants, reshapes, slices and iota");
  }
  Node node{.name = spec_.name, .op = spec_.op, .operands = spec_.operands,
            .dtype = DType::kF32, .shape = {}};
  absl::Status status;
  switch (family) {
    case OpFamily::kInput: status = InferInput(node); break;
    case OpFamily::kConstant: status = InferConstant(node); break;
    case OpFamily::kUnary: status = InferUnary(node); break;
    case OpFamily::kBinary: status = InferBinary(node); break;
    case OpFamily::kCompare: status = InferCompare(node); break;
    case OpFamily::kSelect: status = InferSelect(node); break;
    case OpFamily::kCast: status = InferCast(node); break;
    case OpFamily::kReduce: status = InferReduce(node); break;
    case OpFamily::kMatmul: status = InferMatmul(node); break;
    case OpFamily::kReshape: status = InferReshape(node); break;
    case OpFamily::kTranspose: status = InferTranspose(node); break;
    case OpFamily::kSlice: status = InferSlice(node); break;
    case OpFamily::kIota: status = InferIota(node); break;
  }
  if (!status.ok()) return status;
  // An inferred shape (a broadcast, a matmul product) obeys the limits an
  // input's shape does, so every later byte count fits in int64.
  if (family != OpFamily::kInput && family != OpFamily::kReshape) {
    if (absl::Status s = CheckShape(node.shape); !s.ok()) return s;
  }
  return node;
}

}  // namespace

absl::StatusOr<Node> InferNode(NodeSpec spec, absl::Span<const Node* const> operands) {
  return Inference(std::move(spec), operands).Run();
}

}  // namespace kiln
