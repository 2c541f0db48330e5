// The seed workloads of docs/design.md, built exactly as the lecture writes them.
//
//   absl::StatusOr<Graph> g = GeluNaive(DType::kF32, {16384, 16384});
//   // nodes x, t1..t8, y and the four constants; output y
#ifndef KILN_FRONTENDS_WORKLOADS_H_
#define KILN_FRONTENDS_WORKLOADS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace kiln {

// t1 = x*x; t2 = t1*x; t3 = 0.044715*t2; t4 = x+t3; t5 = 0.79788456*t4;
// t6 = tanh(t5); t7 = 1+t6; t8 = 0.5*x; y = t8*t7
absl::StatusOr<Graph> GeluNaive(DType dtype, const Dims& shape);

// m = max(x, axis 1, keepdims); d = x - m; e = exp(d); s = sum(e, axis 1, keepdims); y = e / s
absl::StatusOr<Graph> SoftmaxNaive(DType dtype, int64_t rows, int64_t cols);

// y = sum(x, axis 1)
absl::StatusOr<Graph> RowSum(DType dtype, int64_t rows, int64_t cols);

// c = a @ b with a:[M,K], b:[K,N]; y = relu(c)
absl::StatusOr<Graph> MatmulRelu(DType dtype, int64_t m, int64_t n, int64_t k);

// x = a @ b + bias with bias:[N]; y = 0.5 * x * (1 + tanh(0.79788456 * (x + 0.044715 * x^3))),
// the tanh GeLU that cuBLASLt's fused epilogue computes
absl::StatusOr<Graph> MatmulBiasGelu(DType dtype, int64_t m, int64_t n, int64_t k);

// Attention written op by op, as a user would: s = q @ kᵀ / sqrt(D), with
// causal: s = select(row >= col, s, -inf) from iota positions; then the naive
// softmax over keys and o = p @ v. q, k, v: [B, H, S, D].
absl::StatusOr<Graph> AttentionNaive(DType dtype, int64_t batch, int64_t heads, int64_t seq, int64_t head_dim,
                                     bool causal);

// A workload by its docs/design.md name ("gelu_naive", "softmax_naive", "row_sum",
// "matmul_relu", "matmul_bias_gelu", "attention_naive", "attention_causal")
// with dims {M, N} ({M, N, K} for the matmuls, {B, H, S, D} for attention).
absl::StatusOr<Graph> BuildWorkload(absl::string_view name, DType dtype, const Dims& dims);

}  // namespace kiln

#endif  // KILN_FRONTENDS_WORKLOADS_H_
