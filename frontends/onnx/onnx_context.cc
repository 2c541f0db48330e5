#include "frontends/onnx/onnx_context.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "frontends/onnx/onnx_masks.h"
#include "graph/reference.h"
#include "graph/tensor_bytes.h"

namespace kiln {
namespace {

// Node names allow letters, digits and `_ . - / :`; ONNX names may hold anything.
std::string SanitizedName(absl::string_view name) {
  std::string out;
  for (char c : name.substr(0, 100)) {
    const bool allowed = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
                         c == '/' || c == ':';
    out += allowed ? c : '_';
  }
  return out.empty() ? std::string("v") : out;
}

}  // namespace

std::string OnnxGraphState::UniqueName(absl::string_view base) {
  const std::string stem = SanitizedName(base);
  std::string name = stem;
  for (int k = 1; names_.contains(name) || builder_.graph().FindNode(name).ok(); ++k) name = absl::StrCat(stem, ".", k);
  names_.insert(name);
  return name;
}

OnnxContext::OnnxContext(const onnx::NodeProto& node, int64_t opset, std::vector<const OnnxValue*> inputs,
                         OnnxGraphState& state)
    : node_(node), opset_(opset), inputs_(std::move(inputs)), state_(state) {
  outputs_.resize(node.output_size());
  set_.assign(node.output_size(), false);
  stem_ = !node.name().empty() ? node.name() : node.output_size() > 0 ? node.output(0) : node.op_type();
}

std::string OnnxContext::Label() const {
  return absl::StrCat("ONNX node \"", absl::CEscape(node_.name().empty() ? stem_ : node_.name()), "\" (",
                      absl::CEscape(node_.op_type()), ", opset ", opset_, ")");
}

absl::Status OnnxContext::Unimplemented(absl::string_view problem) const {
  return absl::UnimplementedError(absl::StrCat(Label(), ": ", problem));
}

absl::Status OnnxContext::Invalid(absl::string_view problem) const {
  return absl::InvalidArgumentError(absl::StrCat(Label(), ": ", problem));
}

absl::Status OnnxContext::CheckFoldable(const Dims& shape) const {
  absl::StatusOr<int64_t> count = CheckedNumElements(shape);
  if (!count.ok()) return Invalid(count.status().message());
  if (*count > kMaxFoldedElements) {
    return Unimplemented(absl::StrCat("computing ", DimsString(shape), " at import time exceeds the limit of ",
                                      kMaxFoldedElements, " elements"));
  }
  return absl::OkStatus();
}

absl::Status OnnxContext::Wrap(const absl::Status& status) const {
  return absl::Status(status.code(), absl::StrCat(Label(), ": ", status.message()));
}

bool OnnxContext::AllKnown() const {
  for (const OnnxValue* v : inputs_) {
    if (v != nullptr && !v->known.has_value()) return false;
  }
  return true;
}

absl::StatusOr<const OnnxTensor*> OnnxContext::Known(int i, absl::string_view what) const {
  if (!has_input(i)) return Invalid(absl::StrCat("input ", i, " (", what, ") is missing"));
  if (!input(i).known.has_value()) {
    return Unimplemented(absl::StrCat(what, " (input ", i, ") must be known when the model is imported"));
  }
  return &*input(i).known;
}

absl::StatusOr<std::vector<int64_t>> OnnxContext::KnownInts(int i, absl::string_view what) const {
  absl::StatusOr<const OnnxTensor*> t = Known(i, what);
  if (!t.ok()) return t.status();
  // Known values are held as doubles whatever their type, so a float tensor
  // (or a corrupt model) can offer NaN, infinities or fractions where a
  // shape, axis or index belongs; converting those to int64 is undefined.
  constexpr double kInt64Bound = 9223372036854775808.0;  // 2^63
  std::vector<int64_t> values;
  for (double v : (*t)->data) {
    if (!(std::trunc(v) == v && v >= -kInt64Bound && v < kInt64Bound)) {
      return Invalid(absl::StrCat(what, " (input ", i, ") holds ", v, ", which is not a 64-bit integer"));
    }
    values.push_back(static_cast<int64_t>(v));
  }
  return values;
}

absl::StatusOr<Value> OnnxContext::Runtime(int i) {
  if (!has_input(i)) return Invalid(absl::StrCat("input ", i, " is missing"));
  const OnnxValue& v = input(i);
  if (!v.known.has_value()) return v.value;
  auto cached = state_.constants().find(node_.input(i));
  if (cached != state_.constants().end()) return cached->second;
  absl::StatusOr<DType> dtype = KilnDTypeOf(v.type);
  if (!dtype.ok()) return Unimplemented(dtype.status().message());
  HostTensor tensor{.dtype = *dtype, .shape = v.shape, .data = v.known->data};
  for (double& x : tensor.data) {
    if (RoundToDType(x, *dtype) != x && !std::isnan(x)) {
      return Unimplemented(absl::StrCat("input ", i, " holds ", x, ", which kiln's ", DTypeName(*dtype),
                                        " cannot hold"));
    }
  }
  if (std::optional<Value> mask = CausalMaskAsIota(builder(), tensor); mask.has_value()) {
    Value c = mask->Named(state_.UniqueName(node_.input(i)));
    if (!builder().status().ok()) return Wrap(builder().status());
    state_.constants().emplace(node_.input(i), c);
    return c;
  }
  NodeSpec spec{.name = state_.UniqueName(node_.input(i)), .op = OpKind::kConstant, .dtype = *dtype};
  if (tensor.shape.empty()) {
    spec.value = tensor.data[0];
  } else {
    spec.shape = tensor.shape;
    spec.data = std::make_shared<const std::string>(EncodeTensor(tensor));
  }
  Value c = builder().Add(std::move(spec), {});
  if (!builder().status().ok()) return Wrap(builder().status());
  state_.constants().emplace(node_.input(i), c);
  return c;
}

absl::StatusOr<Value> OnnxContext::Operand(int i, size_t result_rank) {
  if (has_input(i) && input(i).known.has_value() && input(i).known->data.size() == 1 &&
      input(i).shape.size() <= result_rank) {
    absl::StatusOr<DType> dtype = KilnDTypeOf(input(i).type);
    if (!dtype.ok()) return Unimplemented(dtype.status().message());
    return Scalar(input(i).known->data[0], *dtype);
  }
  return Runtime(i);
}

const onnx::AttributeProto* OnnxContext::FindAttribute(absl::string_view name) {
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (a.name() == name) {
      read_attributes_.insert(std::string(name));
      return &a;
    }
  }
  return nullptr;
}

bool OnnxContext::HasAttribute(absl::string_view name) const {
  return std::any_of(node_.attribute().begin(), node_.attribute().end(),
                     [&](const onnx::AttributeProto& a) { return a.name() == name; });
}

absl::StatusOr<int64_t> OnnxContext::Int(absl::string_view name, int64_t default_value) {
  const onnx::AttributeProto* a = FindAttribute(name);
  if (a == nullptr) return default_value;
  if (a->type() != onnx::AttributeProto::INT) return Invalid(absl::StrCat("attribute '", name, "' is not an int"));
  return a->i();
}

absl::StatusOr<float> OnnxContext::Float(absl::string_view name, float default_value) {
  const onnx::AttributeProto* a = FindAttribute(name);
  if (a == nullptr) return default_value;
  if (a->type() != onnx::AttributeProto::FLOAT) return Invalid(absl::StrCat("attribute '", name, "' is not a float"));
  return a->f();
}

absl::StatusOr<std::vector<int64_t>> OnnxContext::Ints(absl::string_view name) {
  const onnx::AttributeProto* a = FindAttribute(name);
  if (a == nullptr) return std::vector<int64_t>{};
  if (a->type() != onnx::AttributeProto::INTS) return Invalid(absl::StrCat("attribute '", name, "' is not a list of ints"));
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

absl::StatusOr<std::vector<float>> OnnxContext::Floats(absl::string_view name) {
  const onnx::AttributeProto* a = FindAttribute(name);
  if (a == nullptr) return std::vector<float>{};
  if (a->type() != onnx::AttributeProto::FLOATS) return Invalid(absl::StrCat("attribute '", name, "' is not a list of floats"));
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

absl::StatusOr<std::optional<OnnxTensor>> OnnxContext::Tensor(absl::string_view name) {
  const onnx::AttributeProto* a = FindAttribute(name);
  if (a == nullptr) return std::optional<OnnxTensor>();
  if (a->type() != onnx::AttributeProto::TENSOR) return Invalid(absl::StrCat("attribute '", name, "' is not a tensor"));
  absl::StatusOr<OnnxTensor> t = DecodeOnnxTensor(a->t());
  if (!t.ok()) return Wrap(t.status());
  return std::optional<OnnxTensor>(*std::move(t));
}

absl::Status OnnxContext::ExpectInt(absl::string_view name, int64_t only, absl::string_view why) {
  absl::StatusOr<int64_t> v = Int(name, only);
  if (!v.ok()) return v.status();
  if (*v != only) return Unimplemented(absl::StrCat("attribute ", name, "=", *v, " is not supported: ", why));
  return absl::OkStatus();
}

Value OnnxContext::Emit(NodeSpec spec, std::initializer_list<Value> operands) {
  spec.name = state_.UniqueName(absl::StrCat(stem_, "/", OpName(spec.op)));
  return builder().Add(std::move(spec), operands);
}

Value OnnxContext::Scalar(double value, DType dtype) {
  return Emit({.op = OpKind::kConstant, .dtype = dtype, .value = value}, {});
}

Value OnnxContext::BroadcastTo(Value x, const Dims& shape) {
  if (!x.valid() || x.shape() == shape) return x;
  Dims padded(shape.size() - std::min(shape.size(), x.shape().size()), 1);
  padded.insert(padded.end(), x.shape().begin(), x.shape().end());
  if (padded != x.shape()) x = Emit({.op = OpKind::kReshape, .shape = padded}, {x});
  if (padded == shape) return x;
  std::vector<int64_t> starts(shape.size(), 0), steps;
  for (size_t d = 0; d < shape.size(); ++d) steps.push_back(padded[d] == shape[d] ? 1 : 0);
  return Emit({.op = OpKind::kSlice, .shape = shape, .starts = starts, .steps = steps}, {x});
}

absl::Status OnnxContext::SetOutput(int i, absl::StatusOr<Value> value) {
  if (!value.ok()) return value.status();
  if (!builder().status().ok()) return Wrap(builder().status());
  if (i >= num_outputs()) return absl::OkStatus();
  const Node& node = builder().graph().node(value->id());
  outputs_[i] = {.value = *value, .shape = node.shape};
  // kiln's i32 stands for both INT32 and INT64: an integer result is INT32
  // when an input is, else INT64.
  const bool int32_input = std::any_of(inputs_.begin(), inputs_.end(), [](const OnnxValue* in) {
    return in != nullptr && in->type == onnx::TensorProto::INT32;
  });
  outputs_[i].type = node.dtype == DType::kF32    ? onnx::TensorProto::FLOAT
                     : node.dtype == DType::kF16  ? onnx::TensorProto::FLOAT16
                     : node.dtype == DType::kBF16 ? onnx::TensorProto::BFLOAT16
                     : node.dtype == DType::kBool ? onnx::TensorProto::BOOL
                     : int32_input                ? onnx::TensorProto::INT32
                                                  : onnx::TensorProto::INT64;
  set_[i] = true;
  return absl::OkStatus();
}

absl::Status OnnxContext::SetKnown(int i, OnnxTensor tensor) {
  if (i >= num_outputs()) return absl::OkStatus();
  outputs_[i] = {.type = tensor.type, .shape = tensor.shape};
  outputs_[i].known = std::move(tensor);
  set_[i] = true;
  return absl::OkStatus();
}

absl::Status OnnxContext::Finish() {
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (!read_attributes_.contains(a.name())) {
      return Unimplemented(absl::StrCat("attribute '", absl::CEscape(a.name()), "' is not supported"));
    }
  }
  for (int i = 0; i < num_outputs(); ++i) {
    if (wants_output(i) && !set_[i]) return Unimplemented(absl::StrCat("output ", i, " is not supported"));
  }
  if (!builder().status().ok()) return Wrap(builder().status());
  return absl::OkStatus();
}

absl::Status OnnxContext::FoldElementwise(OpKind op, int32_t result_type, int type_from) {
  std::vector<const OnnxTensor*> operands;
  Dims shape;
  for (int i = 0; i < num_inputs(); ++i) {
    if (!has_input(i)) continue;
    operands.push_back(&*input(i).known);
    absl::StatusOr<Dims> next = BroadcastDims(shape, input(i).shape);
    if (!next.ok()) return Invalid(next.status().message());
    shape = *std::move(next);
  }
  if (absl::Status s = CheckFoldable(shape); !s.ok()) return s;
  // Max and Min fold any number of inputs, left to right; every other op its arity.
  const bool variadic = op == OpKind::kMax || op == OpKind::kMin;
  if (operands.empty() || (static_cast<int>(operands.size()) != OpArity(op) && !variadic)) {
    return Invalid(absl::StrCat("takes ", OpArity(op), " inputs, got ", operands.size()));
  }
  const int32_t type = result_type >= 0 ? result_type : input(type_from).type;
  absl::StatusOr<DType> dtype = KilnDTypeOf(type);
  if (!dtype.ok()) return Unimplemented(dtype.status().message());
  // Integers fold as i32, which holds every value a shape computation makes;
  // anything larger is refused rather than saturated.
  const Node node{.op = op, .dtype = *dtype};
  std::vector<std::vector<int64_t>> strides;
  for (const OnnxTensor* t : operands) strides.push_back(BroadcastStrides(t->shape, shape));
  OnnxTensor result{.type = type, .shape = shape};
  const int64_t count = NumElements(shape);
  const std::vector<int64_t> own = RowMajorStrides(shape);
  std::vector<double> values(operands.size());
  for (int64_t e = 0; e < count; ++e) {
    for (size_t k = 0; k < operands.size(); ++k) {
      int64_t offset = 0;
      for (size_t d = 0; d < shape.size(); ++d) offset += (e / own[d] % shape[d]) * strides[k][d];
      values[k] = operands[k]->data[offset];
      if (*dtype == DType::kI32 && RoundToDType(values[k], DType::kI32) != values[k]) {
        return Unimplemented(absl::StrCat("folding ", values[k], " needs more than 32-bit integers"));
      }
    }
    double value = values[0];
    if (!variadic) {
      value = ApplyElementwise(node, values);
    } else {
      for (size_t k = 1; k < values.size(); ++k) value = ApplyElementwise(node, {value, values[k]});
    }
    result.data.push_back(value);
  }
  return SetKnown(0, std::move(result));
}

}  // namespace kiln
