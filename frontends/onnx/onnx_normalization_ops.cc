// Softmax, LogSoftmax, LayerNormalization and the reductions, expanded into
// kiln reductions and elementwise ops so that fusion sees their parts.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "frontends/onnx/onnx_ops.h"

namespace kiln {
namespace {

absl::StatusOr<int64_t> NormalizedAxis(OnnxContext& c, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) return c.Invalid(absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  return axis < 0 ? axis + r : axis;
}

OpKind ReduceKind(absl::string_view op) {
  if (op == "ReduceSum") return OpKind::kReduceSum;
  if (op == "ReduceMean") return OpKind::kReduceMean;
  if (op == "ReduceMax") return OpKind::kReduceMax;
  return OpKind::kReduceMin;
}

}  // namespace

absl::Status ImportSoftmax(OnnxContext& c) {
  absl::StatusOr<int64_t> axis_attr = c.Int("axis", -1);
  if (!axis_attr.ok()) return axis_attr.status();
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  absl::StatusOr<int64_t> axis = NormalizedAxis(c, *axis_attr, x->shape().size());
  if (!axis.ok()) return axis.status();
  // Shifted by the row max so that exp never overflows, as every softmax kernel does.
  Value m = c.Emit({.op = OpKind::kReduceMax, .axes = {*axis}, .keepdims = true}, {*x});
  Value d = c.Emit({.op = OpKind::kSub}, {*x, m});
  Value e = c.Emit({.op = OpKind::kExp}, {d});
  Value s = c.Emit({.op = OpKind::kReduceSum, .axes = {*axis}, .keepdims = true}, {e});
  if (c.node().op_type() == "LogSoftmax") {
    return c.SetOutput(0, c.Emit({.op = OpKind::kSub}, {d, c.Emit({.op = OpKind::kLog}, {s})}));
  }
  return c.SetOutput(0, c.Emit({.op = OpKind::kDiv}, {e, s}));
}

absl::Status ImportLayerNormalization(OnnxContext& c) {
  absl::StatusOr<int64_t> axis_attr = c.Int("axis", -1);
  absl::StatusOr<float> epsilon = c.Float("epsilon", 1e-5f);
  absl::StatusOr<int64_t> stash = c.Int("stash_type", 1);
  for (const absl::Status& s : {axis_attr.status(), epsilon.status(), stash.status()}) {
    if (!s.ok()) return s;
  }
  if (*stash != 1) return c.Unimplemented(absl::StrCat("stash_type ", *stash, " is not supported (only 1, float32)"));
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  absl::StatusOr<int64_t> axis = NormalizedAxis(c, *axis_attr, x->shape().size());
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> axes;
  for (int64_t a = *axis; a < static_cast<int64_t>(x->shape().size()); ++a) axes.push_back(a);
  // The statistics are computed in float32 (stash_type 1) and the normalized
  // value cast back before the scale and bias, as the ONNX function defines it.
  const DType dtype = x->dtype();
  Value xf = dtype == DType::kF32 ? *x : c.Emit({.op = OpKind::kCast, .dtype = DType::kF32}, {*x});
  Value mean = c.Emit({.op = OpKind::kReduceMean, .axes = axes, .keepdims = true}, {xf});
  Value d = c.Emit({.op = OpKind::kSub}, {xf, mean});
  Value var = c.Emit({.op = OpKind::kReduceMean, .axes = axes, .keepdims = true}, {c.Emit({.op = OpKind::kMul}, {d, d})});
  Value inv = c.Emit({.op = OpKind::kRsqrt}, {c.Emit({.op = OpKind::kAdd}, {var, c.Scalar(*epsilon, DType::kF32)})});
  Value y = c.Emit({.op = OpKind::kMul}, {d, inv});
  if (dtype != DType::kF32) y = c.Emit({.op = OpKind::kCast, .dtype = dtype}, {y});
  absl::StatusOr<Value> scale = c.Runtime(1);
  if (!scale.ok()) return scale.status();
  y = c.Emit({.op = OpKind::kMul}, {y, *scale});
  if (c.has_input(2)) {
    absl::StatusOr<Value> bias = c.Runtime(2);
    if (!bias.ok()) return bias.status();
    y = c.Emit({.op = OpKind::kAdd}, {y, *bias});
  }
  if (absl::Status s = c.SetOutput(0, y); !s.ok()) return s;
  if (c.wants_output(1)) {
    if (absl::Status s = c.SetOutput(1, mean); !s.ok()) return s;
  }
  if (c.wants_output(2)) return c.SetOutput(2, inv);
  return absl::OkStatus();
}

absl::Status ImportReduce(OnnxContext& c) {
  const OpKind op = ReduceKind(c.node().op_type());
  absl::StatusOr<int64_t> keepdims = c.Int("keepdims", 1);
  absl::StatusOr<int64_t> noop = c.Int("noop_with_empty_axes", 0);
  if (!keepdims.ok()) return keepdims.status();
  if (!noop.ok()) return noop.status();
  // ReduceSum takes its axes as an input from opset 13, the others from 18.
  const bool axes_input = op == OpKind::kReduceSum || c.opset() >= 18;
  std::vector<int64_t> axes;
  if (axes_input) {
    if (c.HasAttribute("axes")) return c.Unimplemented("attribute 'axes' is not supported; axes are an input");
    if (c.has_input(1)) {
      absl::StatusOr<std::vector<int64_t>> known = c.KnownInts(1, "axes");
      if (!known.ok()) return known.status();
      axes = *known;
    }
  } else {
    absl::StatusOr<std::vector<int64_t>> attr = c.Ints("axes");
    if (!attr.ok()) return attr.status();
    axes = *attr;
    if (c.num_inputs() > 1) return c.Invalid("takes its axes as an attribute at this opset");
  }
  absl::StatusOr<Value> x = c.Runtime(0);
  if (!x.ok()) return x.status();
  if (axes.empty()) {
    if (*noop != 0) return c.SetOutput(0, *x);
    for (size_t a = 0; a < x->shape().size(); ++a) axes.push_back(static_cast<int64_t>(a));
  }
  if (x->shape().empty()) return c.SetOutput(0, *x);
  return c.SetOutput(0, c.Emit({.op = op, .axes = axes, .keepdims = *keepdims != 0}, {*x}));
}

}  // namespace kiln
