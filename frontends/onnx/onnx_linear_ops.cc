// MatMul and Gemm as kiln matmuls. kiln's matmul broadcasts batch dims as
// NumPy does, up to kMaxMatmulRank, so an ONNX MatMul is one kiln matmul
// (the planner folds a batch that only A has into M); deeper batches are
// broadcast and flattened first. Gemm's transposes stay transpose nodes (the
// planner reads them as operand layouts).
#include <numeric>

#include "absl/strings/str_cat.h"
#include "frontends/onnx/onnx_ops.h"

namespace kiln {
namespace {

int64_t Product(const Dims& dims) { return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>()); }

Dims Concat(Dims a, const Dims& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// NumPy matmul over kiln values of rank >= 1.
absl::StatusOr<Value> NumpyMatmul(OnnxContext& c, Value a, Value b) {
  const bool vector_a = a.shape().size() == 1, vector_b = b.shape().size() == 1;
  if (vector_a) a = c.Emit({.op = OpKind::kReshape, .shape = {1, a.shape()[0]}}, {a});
  if (vector_b) b = c.Emit({.op = OpKind::kReshape, .shape = {b.shape()[0], 1}}, {b});
  if (!c.builder().status().ok()) return c.Wrap(c.builder().status());
  const Dims sa = a.shape(), sb = b.shape();
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  if (sb[sb.size() - 2] != k) {
    return c.Invalid(absl::StrCat("inner dims differ: ", DimsString(sa), " x ", DimsString(sb)));
  }
  const Dims batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  absl::StatusOr<Dims> batch = BroadcastDims(batch_a, batch_b);
  if (!batch.ok()) return c.Invalid(absl::StrCat("batch dims cannot broadcast: ", batch.status().message()));
  Value product;
  if (batch->size() + 2 <= static_cast<size_t>(kMaxMatmulRank)) {
    product = c.Emit({.op = OpKind::kMatmul}, {a, b});
  } else {
    Value a3 = c.BroadcastTo(a, Concat(*batch, {m, k}));
    Value b3 = c.BroadcastTo(b, Concat(*batch, {k, n}));
    const int64_t count = Product(*batch);
    a3 = c.Emit({.op = OpKind::kReshape, .shape = {count, m, k}}, {a3});
    b3 = c.Emit({.op = OpKind::kReshape, .shape = {count, k, n}}, {b3});
    product = c.Emit({.op = OpKind::kMatmul}, {a3, b3});
  }
  Dims shape = *batch;
  if (!vector_a) shape.push_back(m);
  if (!vector_b) shape.push_back(n);
  if (product.valid() && product.shape() != shape) product = c.Emit({.op = OpKind::kReshape, .shape = shape}, {product});
  return product;
}

}  // namespace

absl::Status ImportMatMul(OnnxContext& c) {
  absl::StatusOr<Value> a = c.Runtime(0);
  if (!a.ok()) return a.status();
  absl::StatusOr<Value> b = c.Runtime(1);
  if (!b.ok()) return b.status();
  if (a->shape().empty() || b->shape().empty()) return c.Invalid("operands must have rank 1 or more");
  return c.SetOutput(0, NumpyMatmul(c, *a, *b));
}

absl::Status ImportGemm(OnnxContext& c) {
  absl::StatusOr<float> alpha = c.Float("alpha", 1.0f);
  absl::StatusOr<float> beta = c.Float("beta", 1.0f);
  absl::StatusOr<int64_t> trans_a = c.Int("transA", 0);
  absl::StatusOr<int64_t> trans_b = c.Int("transB", 0);
  for (const absl::Status& s : {alpha.status(), beta.status(), trans_a.status(), trans_b.status()}) {
    if (!s.ok()) return s;
  }
  absl::StatusOr<Value> a = c.Runtime(0);
  if (!a.ok()) return a.status();
  absl::StatusOr<Value> b = c.Runtime(1);
  if (!b.ok()) return b.status();
  if (a->shape().size() != 2 || b->shape().size() != 2) return c.Invalid("A and B must be matrices");
  Value lhs = *trans_a ? c.Emit({.op = OpKind::kTranspose, .perm = {1, 0}}, {*a}) : *a;
  Value rhs = *trans_b ? c.Emit({.op = OpKind::kTranspose, .perm = {1, 0}}, {*b}) : *b;
  Value y = c.Emit({.op = OpKind::kMatmul}, {lhs, rhs});
  if (*alpha != 1.0f) y = c.Emit({.op = OpKind::kMul}, {y, c.Scalar(*alpha, a->dtype())});
  if (c.has_input(2) && *beta != 0.0f) {
    absl::StatusOr<Value> bias = c.Operand(2, 2);
    if (!bias.ok()) return bias.status();
    Value scaled = *bias;
    if (*beta != 1.0f) scaled = c.Emit({.op = OpKind::kMul}, {scaled, c.Scalar(*beta, a->dtype())});
    y = c.Emit({.op = OpKind::kAdd}, {y, scaled});
  }
  return c.SetOutput(0, y);
}

}  // namespace kiln
