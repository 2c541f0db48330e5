// Shapes, layouts and constants. Known inputs (initializers, Constant
// nodes, the results of Shape) are folded here, which is how shape
// subgraphs disappear at import; values computed at run time become kiln
// reshapes (views), transposes and slices.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/onnx/onnx_ops.h"
#include "graph/checked_math.h"
#include "graph/tensor_bytes.h"

namespace kiln {
namespace {

using onnx::TensorProto;

absl::StatusOr<int64_t> Axis(OnnxContext& c, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return c.Invalid(absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + r : axis;
}

OnnxTensor Int64s(const std::vector<int64_t>& values) {
  OnnxTensor t{.type = TensorProto::INT64, .shape = {static_cast<int64_t>(values.size())}};
  for (int64_t v : values) t.data.push_back(static_cast<double>(v));
  return t;
}

// Element e of the result reads t at base + sum(index_d * strides_d); strides may be negative.
OnnxTensor Strided(const OnnxTensor& t, const Dims& shape, int64_t base, const std::vector<int64_t>& strides) {
  OnnxTensor out{.type = t.type, .shape = shape};
  const std::vector<int64_t> own = RowMajorStrides(shape);
  for (int64_t e = 0; e < NumElements(shape); ++e) {
    int64_t offset = base;
    for (size_t d = 0; d < shape.size(); ++d) offset += (e / own[d] % shape[d]) * strides[d];
    out.data.push_back(t.data[offset]);
  }
  return out;
}

// A window of x: dim d from starts[d], `shape[d]` elements, steps[d] apart.
absl::Status SetSlice(OnnxContext& c, int output, const OnnxValue& x, const std::vector<int64_t>& starts,
                      const std::vector<int64_t>& steps, const Dims& shape, absl::StatusOr<Value> runtime) {
  for (int64_t d : shape) {
    if (d == 0) return c.Unimplemented(absl::StrCat("the result ", DimsString(shape), " is empty"));
  }
  if (x.known.has_value()) {
    const std::vector<int64_t> in = RowMajorStrides(x.shape);
    int64_t base = 0;
    std::vector<int64_t> strides;
    for (size_t d = 0; d < shape.size(); ++d) {
      base += starts[d] * in[d];
      strides.push_back(steps[d] * in[d]);
    }
    return c.SetKnown(output, Strided(*x.known, shape, base, strides));
  }
  for (int64_t step : steps) {
    if (step < 0) return c.Unimplemented("a negative step over a tensor computed at run time is not supported");
  }
  if (!runtime.ok()) return runtime.status();
  if (shape == x.shape) return c.SetOutput(output, *runtime);
  return c.SetOutput(output, c.Emit({.op = OpKind::kSlice, .shape = shape, .starts = starts, .steps = steps}, {*runtime}));
}

// Input 0 under a new shape with the same elements.
absl::Status SetReshaped(OnnxContext& c, const Dims& shape) {
  if (NumElements(shape) != NumElements(c.input(0).shape)) {
    return c.Invalid(absl::StrCat("cannot reshape ", DimsString(c.input(0).shape), " to ", DimsString(shape)));
  }
  if (c.input(0).known.has_value()) {
    OnnxTensor t = *c.input(0).known;
    t.shape = shape;
    return c.SetKnown(0, std::move(t));
  }
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  return c.SetOutput(0, c.Emit({.op = OpKind::kReshape, .shape = shape}, {*x}));
}

absl::StatusOr<Dims> ReshapeTarget(OnnxContext& c, const Dims& in) {
  absl::StatusOr<int64_t> allow_zero = c.Int("allowzero", 0);
  if (!allow_zero.ok()) return allow_zero.status();
  absl::StatusOr<std::vector<int64_t>> target = c.KnownInts(1, "shape");
  if (!target.ok()) return target.status();
  Dims shape;
  int inferred = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < target->size(); ++i) {
    int64_t d = (*target)[i];
    if (d == 0 && *allow_zero == 0) {
      if (i >= in.size()) return c.Invalid(absl::StrCat("shape entry ", i, " copies a dim the input does not have"));
      d = in[i];
    }
    if (d == -1) {
      if (inferred >= 0) return c.Invalid("the shape has two -1 entries");
      inferred = static_cast<int>(i);
    } else if (d < 0) {
      return c.Invalid(absl::StrCat("shape entry ", d, " is negative"));
    } else {
      const std::optional<int64_t> product = CheckedMul(known_product, d);
      if (!product.has_value() || *product > kMaxElements) {
        return c.Invalid(absl::StrCat("shape [", absl::StrJoin(*target, ","), "] has more than 2^48 elements"));
      }
      known_product = *product;
    }
    shape.push_back(d);
  }
  if (inferred >= 0) {
    if (known_product == 0 || NumElements(in) % known_product != 0) {
      return c.Invalid(absl::StrCat("cannot reshape ", DimsString(in), " to [", absl::StrJoin(*target, ","), "]"));
    }
    shape[inferred] = NumElements(in) / known_product;
  }
  return shape;
}

absl::StatusOr<std::vector<int64_t>> SqueezeAxes(OnnxContext& c, size_t rank) {
  std::vector<int64_t> axes;
  if (c.has_input(1)) {
    absl::StatusOr<std::vector<int64_t>> known = c.KnownInts(1, "axes");
    if (!known.ok()) return known.status();
    for (int64_t a : *known) {
      absl::StatusOr<int64_t> axis = Axis(c, a, rank);
      if (!axis.ok()) return axis.status();
      axes.push_back(*axis);
    }
  }
  return axes;
}

}  // namespace

absl::Status ImportIdentity(OnnxContext& c) {
  if (c.node().op_type() == "Dropout") {
    absl::StatusOr<int64_t> seed = c.Int("seed", 0);
    if (!seed.ok()) return seed.status();
    if (c.has_input(2)) {
      absl::StatusOr<std::vector<int64_t>> training = c.KnownInts(2, "training_mode");
      if (!training.ok()) return training.status();
      if (!training->empty() && (*training)[0] != 0) return c.Unimplemented("dropout in training mode is not supported");
    }
    if (c.wants_output(1)) {
      if (absl::Status s = c.CheckFoldable(c.input(0).shape); !s.ok()) return s;
      OnnxTensor mask{.type = TensorProto::BOOL, .shape = c.input(0).shape};
      mask.data.assign(NumElements(mask.shape), 1.0);
      if (absl::Status s = c.SetKnown(1, std::move(mask)); !s.ok()) return s;
    }
  }
  if (c.input(0).known.has_value()) return c.SetKnown(0, *c.input(0).known);
  return c.SetOutput(0, c.Runtime(0));
}

absl::Status ImportConstant(OnnxContext& c) {
  absl::StatusOr<std::optional<OnnxTensor>> value = c.Tensor("value");
  if (!value.ok()) return value.status();
  if (value->has_value()) return c.SetKnown(0, **value);
  if (c.HasAttribute("value_float")) {
    absl::StatusOr<float> f = c.Float("value_float", 0);
    if (!f.ok()) return f.status();
    return c.SetKnown(0, {.type = TensorProto::FLOAT, .shape = {}, .data = {*f}});
  }
  if (c.HasAttribute("value_int")) {
    absl::StatusOr<int64_t> i = c.Int("value_int", 0);
    if (!i.ok()) return i.status();
    return c.SetKnown(0, {.type = TensorProto::INT64, .shape = {}, .data = {static_cast<double>(*i)}});
  }
  if (c.HasAttribute("value_ints")) {
    absl::StatusOr<std::vector<int64_t>> ints = c.Ints("value_ints");
    if (!ints.ok()) return ints.status();
    return c.SetKnown(0, Int64s(*ints));
  }
  if (c.HasAttribute("value_floats")) {
    absl::StatusOr<std::vector<float>> floats = c.Floats("value_floats");
    if (!floats.ok()) return floats.status();
    OnnxTensor t{.type = TensorProto::FLOAT, .shape = {static_cast<int64_t>(floats->size())}};
    t.data.assign(floats->begin(), floats->end());
    return c.SetKnown(0, std::move(t));
  }
  return c.Unimplemented("only value, value_float(s) and value_int(s) constants are supported");
}

absl::Status ImportConstantOfShape(OnnxContext& c) {
  absl::StatusOr<std::vector<int64_t>> shape = c.KnownInts(0, "shape");
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::optional<OnnxTensor>> value = c.Tensor("value");
  if (!value.ok()) return value.status();
  OnnxTensor fill = value->value_or(OnnxTensor{.type = TensorProto::FLOAT, .shape = {1}, .data = {0.0}});
  if (fill.data.size() != 1) return c.Invalid("value must hold one element");
  if (absl::Status s = c.CheckFoldable(*shape); !s.ok()) return s;
  OnnxTensor out{.type = fill.type, .shape = *shape};
  out.data.assign(NumElements(*shape), fill.data[0]);
  return c.SetKnown(0, std::move(out));
}

absl::Status ImportShape(OnnxContext& c) {
  const Dims& shape = c.input(0).shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  absl::StatusOr<int64_t> start = c.Int("start", 0);
  absl::StatusOr<int64_t> end = c.Int("end", rank);
  if (!start.ok()) return start.status();
  if (!end.ok()) return end.status();
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  const int64_t first = clamp(*start), last = std::max(first, clamp(*end));
  return c.SetKnown(0, Int64s(std::vector<int64_t>(shape.begin() + first, shape.begin() + last)));
}

absl::Status ImportReshape(OnnxContext& c) {
  const absl::string_view op = c.node().op_type();
  const Dims& in = c.input(0).shape;
  Dims shape;
  if (op == "Reshape") {
    absl::StatusOr<Dims> target = ReshapeTarget(c, in);
    if (!target.ok()) return target.status();
    shape = *target;
  } else if (op == "Flatten") {
    absl::StatusOr<int64_t> attr = c.Int("axis", 1);
    if (!attr.ok()) return attr.status();
    const int64_t rank = static_cast<int64_t>(in.size());
    const int64_t axis = *attr < 0 ? *attr + rank : *attr;
    if (axis < 0 || axis > rank) return c.Invalid(absl::StrCat("axis ", *attr, " is out of range for rank ", rank));
    shape = {NumElements(Dims(in.begin(), in.begin() + axis)), NumElements(Dims(in.begin() + axis, in.end()))};
  } else if (op == "Squeeze") {
    absl::StatusOr<std::vector<int64_t>> axes = SqueezeAxes(c, in.size());
    if (!axes.ok()) return axes.status();
    for (size_t d = 0; d < in.size(); ++d) {
      const bool listed = std::find(axes->begin(), axes->end(), static_cast<int64_t>(d)) != axes->end();
      if (listed && in[d] != 1) return c.Invalid(absl::StrCat("dim ", d, " of ", DimsString(in), " is not 1"));
      if (!(listed || (axes->empty() && in[d] == 1))) shape.push_back(in[d]);
    }
  } else {  // Unsqueeze
    absl::StatusOr<std::vector<int64_t>> axes_in = c.KnownInts(1, "axes");
    if (!axes_in.ok()) return axes_in.status();
    const size_t rank = in.size() + axes_in->size();
    std::vector<int64_t> axes;
    for (int64_t a : *axes_in) {
      absl::StatusOr<int64_t> axis = Axis(c, a, rank);
      if (!axis.ok()) return axis.status();
      if (std::find(axes.begin(), axes.end(), *axis) != axes.end()) return c.Invalid(absl::StrCat("axis ", a, " is listed twice"));
      axes.push_back(*axis);
    }
    size_t next = 0;
    for (size_t d = 0; d < rank; ++d) {
      const bool inserted = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
      shape.push_back(inserted ? 1 : in.at(next++));
    }
  }
  return SetReshaped(c, shape);
}

absl::Status ImportTranspose(OnnxContext& c) {
  const Dims& in = c.input(0).shape;
  absl::StatusOr<std::vector<int64_t>> perm = c.Ints("perm");
  if (!perm.ok()) return perm.status();
  if (perm->empty()) {
    for (size_t d = in.size(); d-- > 0;) perm->push_back(static_cast<int64_t>(d));
  }
  // A known integer tensor belongs to a shape computation and is folded; a
  // weight stays a transpose, which the planner reads as an operand layout.
  const int32_t type = c.input(0).type;
  const bool weight = type == TensorProto::FLOAT || type == TensorProto::FLOAT16 || type == TensorProto::BFLOAT16;
  if (c.input(0).known.has_value() && !weight && perm->size() == in.size()) {
    const std::vector<int64_t> strides = RowMajorStrides(in);
    Dims shape;
    std::vector<int64_t> permuted;
    for (int64_t p : *perm) {
      if (p < 0 || p >= static_cast<int64_t>(in.size())) return c.Invalid("perm is not a permutation");
      shape.push_back(in[p]);
      permuted.push_back(strides[p]);
    }
    return c.SetKnown(0, Strided(*c.input(0).known, shape, 0, permuted));
  }
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  return c.SetOutput(0, c.Emit({.op = OpKind::kTranspose, .perm = *perm}, {*x}));
}

absl::Status ImportExpand(OnnxContext& c) {
  absl::StatusOr<std::vector<int64_t>> target = c.KnownInts(1, "shape");
  if (!target.ok()) return target.status();
  absl::StatusOr<Dims> shape = BroadcastDims(c.input(0).shape, *target);
  if (!shape.ok()) return c.Invalid(shape.status().message());
  const OnnxValue& x = c.input(0);
  Dims padded(shape->size() - x.shape.size(), 1);
  padded.insert(padded.end(), x.shape.begin(), x.shape.end());
  if (x.known.has_value()) {
    if (absl::Status s = c.CheckFoldable(*shape); !s.ok()) return s;
    const std::vector<int64_t> in = RowMajorStrides(padded);
    std::vector<int64_t> strides;
    for (size_t d = 0; d < shape->size(); ++d) strides.push_back(padded[d] == (*shape)[d] ? in[d] : 0);
    return c.SetKnown(0, Strided(*x.known, *shape, 0, strides));
  }
  absl::StatusOr<Value> v = c.Runtime(0);
  if (!v.ok()) return v.status();
  return c.SetOutput(0, c.BroadcastTo(*v, *shape));
}

absl::Status ImportSlice(OnnxContext& c) {
  const Dims& in = c.input(0).shape;
  absl::StatusOr<std::vector<int64_t>> starts_in = c.KnownInts(1, "starts");
  absl::StatusOr<std::vector<int64_t>> ends_in = c.KnownInts(2, "ends");
  if (!starts_in.ok()) return starts_in.status();
  if (!ends_in.ok()) return ends_in.status();
  std::vector<int64_t> axes_in, steps_in;
  if (c.has_input(3)) {
    absl::StatusOr<std::vector<int64_t>> v = c.KnownInts(3, "axes");
    if (!v.ok()) return v.status();
    axes_in = *v;
  } else {
    for (size_t i = 0; i < starts_in->size(); ++i) axes_in.push_back(static_cast<int64_t>(i));
  }
  if (c.has_input(4)) {
    absl::StatusOr<std::vector<int64_t>> v = c.KnownInts(4, "steps");
    if (!v.ok()) return v.status();
    steps_in = *v;
  } else {
    steps_in.assign(starts_in->size(), 1);
  }
  if (ends_in->size() != starts_in->size() || axes_in.size() != starts_in->size() ||
      steps_in.size() != starts_in->size()) {
    return c.Invalid("starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> starts(in.size(), 0), steps(in.size(), 1);
  Dims shape = in;
  for (size_t j = 0; j < axes_in.size(); ++j) {
    absl::StatusOr<int64_t> axis = Axis(c, axes_in[j], in.size());
    if (!axis.ok()) return axis.status();
    const int64_t dim = in[*axis], step = steps_in[j];
    if (step == 0) return c.Invalid("a step is 0");
    int64_t start = (*starts_in)[j], end = (*ends_in)[j];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    int64_t count = 0;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      count = end > start ? (end - start + step - 1) / step : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      count = start > end ? (start - end - step - 1) / -step : 0;
    }
    starts[*axis] = start;
    steps[*axis] = step;
    shape[*axis] = count;
  }
  return SetSlice(c, 0, c.input(0), starts, steps, shape, c.input(0).known ? absl::StatusOr<Value>(Value()) : c.Runtime(0));
}

absl::Status ImportSplit(OnnxContext& c) {
  const Dims& in = c.input(0).shape;
  absl::StatusOr<int64_t> axis_attr = c.Int("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  absl::StatusOr<int64_t> axis = Axis(c, *axis_attr, in.size());
  if (!axis.ok()) return axis.status();
  const int64_t dim = in[*axis];
  std::vector<int64_t> sizes;
  if (c.has_input(1)) {
    absl::StatusOr<std::vector<int64_t>> split = c.KnownInts(1, "split");
    if (!split.ok()) return split.status();
    sizes = *split;
  } else {
    absl::StatusOr<int64_t> parts = c.Int("num_outputs", c.num_outputs());
    if (!parts.ok()) return parts.status();
    if (*parts < 1) return c.Invalid("splits into no outputs");
    // Equal parts; the last is smaller when the dim does not divide (opset 18).
    const int64_t each = (dim + *parts - 1) / *parts;
    for (int64_t i = 0, left = dim; i < *parts; ++i, left -= each) sizes.push_back(std::min(each, left));
  }
  if (static_cast<int>(sizes.size()) != c.num_outputs() ||
      std::any_of(sizes.begin(), sizes.end(), [](int64_t n) { return n < 1; }) ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != dim) {
    return c.Invalid(absl::StrCat("split sizes [", absl::StrJoin(sizes, ","), "] do not cover dim ", *axis, " (",
                                  dim, ") in ", c.num_outputs(), " outputs"));
  }
  absl::StatusOr<Value> x = c.input(0).known ? absl::StatusOr<Value>(Value()) : c.Runtime(0);
  int64_t offset = 0;
  for (int i = 0; i < c.num_outputs(); ++i) {
    std::vector<int64_t> starts(in.size(), 0), steps(in.size(), 1);
    Dims shape = in;
    starts[*axis] = offset;
    shape[*axis] = sizes[i];
    offset += sizes[i];
    if (!c.wants_output(i)) continue;
    if (absl::Status s = SetSlice(c, i, c.input(0), starts, steps, shape, x); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ImportConcat(OnnxContext& c) {
  absl::StatusOr<int64_t> axis_attr = c.Int("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  if (c.num_inputs() == 0) return c.Invalid("takes at least one input");
  if (!c.AllKnown()) return c.Unimplemented("concatenating tensors computed at run time is not supported");
  const Dims& first = c.input(0).shape;
  absl::StatusOr<int64_t> axis = Axis(c, *axis_attr, first.size());
  if (!axis.ok()) return axis.status();
  Dims shape = first;
  shape[*axis] = 0;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const Dims& s = c.input(i).shape;
    for (size_t d = 0; d < s.size(); ++d) {
      if (s.size() != first.size() || (static_cast<int64_t>(d) != *axis && s[d] != first[d])) {
        return c.Invalid(absl::StrCat("input ", i, " ", DimsString(s), " does not line up with ", DimsString(first)));
      }
    }
    shape[*axis] += s[*axis];
  }
  // Row-major: the result is, for each index before the axis, each input's block in turn.
  const int64_t outer = NumElements(Dims(first.begin(), first.begin() + *axis));
  OnnxTensor out{.type = c.input(0).type, .shape = shape};
  for (int64_t o = 0; o < outer; ++o) {
    for (int i = 0; i < c.num_inputs(); ++i) {
      const OnnxTensor& t = *c.input(i).known;
      const int64_t block = NumElements(t.shape) / std::max<int64_t>(outer, 1);
      out.data.insert(out.data.end(), t.data.begin() + o * block, t.data.begin() + (o + 1) * block);
    }
  }
  return c.SetKnown(0, std::move(out));
}

absl::Status ImportGather(OnnxContext& c) {
  absl::StatusOr<int64_t> axis_attr = c.Int("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  const Dims& in = c.input(0).shape;
  absl::StatusOr<int64_t> axis = Axis(c, *axis_attr, in.size());
  if (!axis.ok()) return axis.status();
  absl::StatusOr<const OnnxTensor*> indices = c.Known(1, "indices");
  if (!indices.ok()) return indices.status();
  absl::StatusOr<std::vector<int64_t>> values = c.KnownInts(1, "indices");
  if (!values.ok()) return values.status();
  const int64_t dim = in[*axis];
  std::vector<int64_t> index;
  for (int64_t v : *values) {
    const int64_t i = v < 0 ? v + dim : v;
    if (i < 0 || i >= dim) return c.Invalid(absl::StrCat("index ", v, " is out of range for dim ", dim));
    index.push_back(i);
  }
  Dims shape(in.begin(), in.begin() + *axis);
  shape.insert(shape.end(), (*indices)->shape.begin(), (*indices)->shape.end());
  shape.insert(shape.end(), in.begin() + *axis + 1, in.end());
  if (c.input(0).known.has_value()) {
    if (absl::Status s = c.CheckFoldable(shape); !s.ok()) return s;
    const OnnxTensor& data = *c.input(0).known;
    const int64_t outer = NumElements(Dims(in.begin(), in.begin() + *axis));
    const int64_t inner = NumElements(Dims(in.begin() + *axis + 1, in.end()));
    OnnxTensor out{.type = data.type, .shape = shape};
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i : index) {
        const auto from = data.data.begin() + (o * dim + i) * inner;
        out.data.insert(out.data.end(), from, from + inner);
      }
    }
    return c.SetKnown(0, std::move(out));
  }
  // At run time: evenly spaced indices are a slice (a scalar index also drops the axis).
  const int64_t step = index.size() > 1 ? index[1] - index[0] : 1;
  for (size_t k = 1; k < index.size(); ++k) {
    if (index[k] - index[k - 1] != step || step <= 0) {
      return c.Unimplemented("gathering unevenly spaced indices from a tensor computed at run time is not supported");
    }
  }
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  std::vector<int64_t> starts(in.size(), 0), steps(in.size(), 1);
  Dims window = in;
  starts[*axis] = index[0];
  steps[*axis] = step;
  window[*axis] = static_cast<int64_t>(index.size());
  Value sliced = window == in ? *x : c.Emit({.op = OpKind::kSlice, .shape = window, .starts = starts, .steps = steps}, {*x});
  if (sliced.valid() && sliced.shape() != shape) sliced = c.Emit({.op = OpKind::kReshape, .shape = shape}, {sliced});
  return c.SetOutput(0, sliced);
}

absl::Status ImportRange(OnnxContext& c) {
  absl::StatusOr<const OnnxTensor*> start = c.Known(0, "start");
  absl::StatusOr<const OnnxTensor*> limit = c.Known(1, "limit");
  absl::StatusOr<const OnnxTensor*> delta = c.Known(2, "delta");
  for (const auto* s : {&start, &limit, &delta}) {
    if (!s->ok()) return s->status();
    if ((**s)->data.size() != 1) return c.Invalid("start, limit and delta must be scalars");
  }
  const double first = (*start)->data[0], last = (*limit)->data[0], step = (*delta)->data[0];
  if (step == 0) return c.Invalid("delta is 0");
  const double count = std::max(std::ceil((last - first) / step), 0.0);
  // NaN or infinite bounds give a count no integer holds.
  if (!std::isfinite(count)) return c.Invalid("start, limit and delta must give a finite count");
  if (count > static_cast<double>(kMaxFoldedElements)) {
    return c.Unimplemented(absl::StrCat("a range of ", count, " elements exceeds the limit of ", kMaxFoldedElements));
  }
  OnnxTensor out{.type = (*start)->type, .shape = {static_cast<int64_t>(count)}};
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) out.data.push_back(RoundToOnnxType(first + i * step, out.type));
  return c.SetKnown(0, std::move(out));
}

absl::Status ImportTrilu(OnnxContext& c) {
  absl::StatusOr<int64_t> upper = c.Int("upper", 1);
  if (!upper.ok()) return upper.status();
  int64_t k = 0;
  if (c.has_input(1)) {
    absl::StatusOr<std::vector<int64_t>> known = c.KnownInts(1, "k");
    if (!known.ok()) return known.status();
    if (known->size() != 1) return c.Invalid("k must be a scalar");
    k = (*known)[0];
  }
  const Dims& in = c.input(0).shape;
  if (in.size() < 2) return c.Invalid("the input must have rank 2 or more");
  const int64_t rows = in[in.size() - 2], cols = in.back();
  OnnxTensor keep{.type = TensorProto::BOOL, .shape = {rows, cols}};
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) keep.data.push_back((*upper ? j - i >= k : j - i <= k) ? 1.0 : 0.0);
  }
  if (c.input(0).known.has_value()) {
    OnnxTensor out = *c.input(0).known;
    for (size_t e = 0; e < out.data.size(); ++e) {
      if (keep.data[e % (rows * cols)] == 0.0) out.data[e] = 0.0;
    }
    return c.SetKnown(0, std::move(out));
  }
  // At run time: select(the triangle as a bool constant, x, 0).
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  const std::string bytes = EncodeTensor({.dtype = DType::kBool, .shape = keep.shape, .data = keep.data});
  Value m = c.Emit({.op = OpKind::kConstant, .dtype = DType::kBool, .shape = keep.shape,
                    .data = std::make_shared<const std::string>(bytes)},
                   {});
  return c.SetOutput(0, c.Emit({.op = OpKind::kSelect}, {m, *x, c.Scalar(0, x->dtype())}));
}

}  // namespace kiln
