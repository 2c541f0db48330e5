#include "frontends/workloads.h"

#include <cmath>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "frontends/builder.h"

namespace kiln {

absl::StatusOr<Graph> GeluNaive(DType dtype, const Dims& shape) {
  GraphBuilder b;
  Value x = b.Input("x", dtype, shape);
  Value t1 = (x * x).Named("t1");
  Value t2 = (t1 * x).Named("t2");
  Value t3 = (0.044715 * t2).Named("t3");
  Value t4 = (x + t3).Named("t4");
  Value t5 = (0.79788456 * t4).Named("t5");
  Value t6 = Tanh(t5).Named("t6");
  Value t7 = (1.0 + t6).Named("t7");
  Value t8 = (0.5 * x).Named("t8");
  Value y = (t8 * t7).Named("y");
  return b.Build({y});
}

absl::StatusOr<Graph> SoftmaxNaive(DType dtype, int64_t rows, int64_t cols) {
  GraphBuilder b;
  Value x = b.Input("x", dtype, {rows, cols});
  Value m = ReduceMax(x, {1}, /*keepdims=*/true).Named("m");
  Value d = (x - m).Named("d");
  Value e = Exp(d).Named("e");
  Value s = ReduceSum(e, {1}, /*keepdims=*/true).Named("s");
  Value y = (e / s).Named("y");
  return b.Build({y});
}

absl::StatusOr<Graph> RowSum(DType dtype, int64_t rows, int64_t cols) {
  GraphBuilder b;
  Value x = b.Input("x", dtype, {rows, cols});
  Value y = ReduceSum(x, {1}).Named("y");
  return b.Build({y});
}

absl::StatusOr<Graph> MatmulRelu(DType dtype, int64_t m, int64_t n, int64_t k) {
  GraphBuilder b;
  Value a = b.Input("a", dtype, {m, k});
  Value bm = b.Input("b", dtype, {k, n});
  Value c = Matmul(a, bm).Named("c");
  Value y = Relu(c).Named("y");
  return b.Build({y});
}

absl::StatusOr<Graph> MatmulBiasGelu(DType dtype, int64_t m, int64_t n, int64_t k) {
  GraphBuilder b;
  Value a = b.Input("a", dtype, {m, k});
  Value bm = b.Input("b", dtype, {k, n});
  Value bias = b.Input("bias", dtype, {n});
  Value x = (Matmul(a, bm) + bias).Named("x");
  // The tanh approximation, as the naive GeLU writes it.
  Value inner = (0.79788456 * (x + 0.044715 * (x * x * x))).Named("inner");
  Value y = (0.5 * x * (1.0 + Tanh(inner))).Named("y");
  return b.Build({y});
}

absl::StatusOr<Graph> AttentionNaive(DType dtype, int64_t batch, int64_t heads, int64_t seq, int64_t head_dim,
                                     bool causal) {
  GraphBuilder b;
  const Dims shape = {batch, heads, seq, head_dim};
  Value q = b.Input("q", dtype, shape);
  Value k = b.Input("k", dtype, shape);
  Value v = b.Input("v", dtype, shape);
  Value s = (Matmul(q, Transpose(k, {0, 1, 3, 2}).Named("kt")) * (1.0 / std::sqrt(static_cast<double>(head_dim))))
                .Named("s");
  if (causal) {
    Value row = b.Iota(DType::kI32, {seq, seq}, 0).Named("row");
    Value col = b.Iota(DType::kI32, {seq, seq}, 1).Named("col");
    s = Select(Ge(row, col).Named("visible"), s, b.Constant(-INFINITY, dtype)).Named("masked");
  }
  Value m = ReduceMax(s, {3}, /*keepdims=*/true).Named("m");
  Value e = Exp((s - m).Named("d")).Named("e");
  Value sum = ReduceSum(e, {3}, /*keepdims=*/true).Named("sum");
  Value p = (e / sum).Named("p");
  Value o = Matmul(p, v).Named("o");
  return b.Build({o});
}

absl::StatusOr<Graph> BuildWorkload(absl::string_view name, DType dtype, const Dims& dims) {
  if (name != "gelu_naive" && name != "softmax_naive" && name != "row_sum" && name != "matmul_relu" &&
      name != "matmul_bias_gelu" && name != "attention_naive" && name != "attention_causal") {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown workload \"", absl::CEscape(name),
        "\" (expected gelu_naive, softmax_naive, row_sum, matmul_relu, matmul_bias_gelu, attention_naive or "
        "attention_causal)"));
  }
  if (name == "attention_naive" || name == "attention_causal") {
    if (dims.size() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("workload ", name, " takes 4 dims (batch, heads, sequence, head dim), got ", DimsString(dims)));
    }
    return AttentionNaive(dtype, dims[0], dims[1], dims[2], dims[3], name == "attention_causal");
  }
  if (name == "gelu_naive") {
    if (dims.empty()) {
      return absl::InvalidArgumentError("workload gelu_naive takes 1 or more dims, got []");
    }
    return GeluNaive(dtype, dims);
  }
  const bool matmul = name == "matmul_relu" || name == "matmul_bias_gelu";
  const size_t want = matmul ? 3 : 2;
  if (dims.size() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload ", name, " takes ", want, " dims, got ", DimsString(dims)));
  }
  if (name == "softmax_naive") return SoftmaxNaive(dtype, dims[0], dims[1]);
  if (name == "row_sum") return RowSum(dtype, dims[0], dims[1]);
  if (name == "matmul_bias_gelu") return MatmulBiasGelu(dtype, dims[0], dims[1], dims[2]);
  return MatmulRelu(dtype, dims[0], dims[1], dims[2]);
}

}  // namespace kiln
