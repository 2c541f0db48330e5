// Row-kernel test graphs shared by the fusion, codegen and GPU suites.
//
//   Graph g = LayerNormWithWeights(DType::kBF16, 8192, 8192);
//   // x, w, b in bf16; cast to f32, normalized over rows, cast back: the
//   // graph bench/sweep writes as layernorm_8192x8192_bf16
#ifndef KILN_TESTS_ROW_TEST_GRAPHS_H_
#define KILN_TESTS_ROW_TEST_GRAPHS_H_

#include <cstdint>
#include <vector>

#include "frontends/builder.h"

namespace kiln {

// Weight and bias [cols] in `dtype`, cast to f32 beside the row: the casts are
// the small broadcast producers that fold into the row kernel.
inline Graph LayerNormWithWeights(DType dtype, int64_t rows, int64_t cols) {
  GraphBuilder b;
  Value x = Cast(b.Input("x", dtype, {rows, cols}), DType::kF32).Named("x32");
  Value w = Cast(b.Input("w", dtype, {cols}), DType::kF32).Named("w32");
  Value bias = Cast(b.Input("b", dtype, {cols}), DType::kF32).Named("b32");
  Value d = x - ReduceMean(x, {1}, true);
  Value n = d * Rsqrt(ReduceMean(d * d, {1}, true) + b.Constant(1e-5, DType::kF32));
  return *b.Build({Cast(n * w + bias, dtype).Named("y")});
}

// The row ops of bench/sweep/cases.py, each as the sweep writes it.
enum class RowOp { kSum, kMax, kSoftmax, kLayerNorm, kRmsNorm, kLogSumExp };
inline constexpr RowOp kRowOps[] = {RowOp::kSum,     RowOp::kMax,     RowOp::kSoftmax,
                                    RowOp::kLayerNorm, RowOp::kRmsNorm, RowOp::kLogSumExp};

inline const char* RowOpName(RowOp op) {
  switch (op) {
    case RowOp::kSum: return "sum";
    case RowOp::kMax: return "max";
    case RowOp::kSoftmax: return "softmax";
    case RowOp::kLayerNorm: return "layernorm";
    case RowOp::kRmsNorm: return "rmsnorm";
    case RowOp::kLogSumExp: return "logsumexp";
  }
  return "?";
}

// The graph bench/sweep writes as <op>_<rows>x<cols>_<dtype>, over the last
// axis of any shape: sum and max reduce the input as it is; the others cast
// 16-bit inputs (and weights [last dim]) to f32 and the result back.
// logsumexp's result has a last dim of 1, sum's and max's none, the others'
// the input's shape.
inline Graph RowOpGraph(RowOp op, DType dtype, const Dims& shape) {
  GraphBuilder b;
  const bool wide = dtype != DType::kF32;
  const std::vector<int64_t> last = {static_cast<int64_t>(shape.size()) - 1};
  const int64_t cols = shape.back();
  Value input = b.Input("x", dtype, shape);
  if (op == RowOp::kSum) return *b.Build({ReduceSum(input, last).Named("y")});
  if (op == RowOp::kMax) return *b.Build({ReduceMax(input, last).Named("y")});
  auto f32 = [&](Value v) { return wide ? Cast(v, DType::kF32) : v; };
  const Value x = f32(input);
  Value y = x;
  switch (op) {
    case RowOp::kSoftmax: {
      const Value e = Exp(x - ReduceMax(x, last, true));
      y = e / ReduceSum(e, last, true);
      break;
    }
    case RowOp::kLogSumExp: {
      const Value m = ReduceMax(x, last, true);
      y = Log(ReduceSum(Exp(x - m), last, true)) + m;
      break;
    }
    case RowOp::kLayerNorm: {
      const Value w = f32(b.Input("w", dtype, {cols}));
      const Value bias = f32(b.Input("b", dtype, {cols}));
      const Value d = x - ReduceMean(x, last, true);
      const Value n = d * Rsqrt(ReduceMean(d * d, last, true) + b.Constant(1e-5, DType::kF32));
      y = n * w + bias;
      break;
    }
    case RowOp::kRmsNorm: {
      const Value w = f32(b.Input("w", dtype, {cols}));
      const Value r = Rsqrt(ReduceMean(x * x, last, true) + b.Constant(1e-5, DType::kF32));
      y = x * r * w;
      break;
    }
    default: break;
  }
  return *b.Build({(wide ? Cast(y, dtype) : y).Named("y")});
}

inline Graph SweepRowGraph(RowOp op, DType dtype, int64_t rows, int64_t cols) {
  return RowOpGraph(op, dtype, {rows, cols});
}

// The sweep's layernorm with its result scaled by a third column operand, a
// gate [cols]: on unaligned rows each vector's output reads three column
// operands shifted into place, more than ptxas fits in 32 registers a thread
// (208 bytes spilled on rows of 50257 f16 with nvcc 13.0).
inline Graph GatedLayerNorm(DType dtype, int64_t rows, int64_t cols) {
  GraphBuilder b;
  auto f32 = [&](Value v) { return dtype != DType::kF32 ? Cast(v, DType::kF32) : v; };
  const Value x = f32(b.Input("x", dtype, {rows, cols}));
  const Value d = x - ReduceMean(x, {1}, true);
  const Value n = d * Rsqrt(ReduceMean(d * d, {1}, true) + b.Constant(1e-5, DType::kF32));
  const Value y = (n * f32(b.Input("w", dtype, {cols})) + f32(b.Input("b", dtype, {cols}))) *
                  f32(b.Input("g", dtype, {cols}));
  return *b.Build({(dtype != DType::kF32 ? Cast(y, dtype) : y).Named("y")});
}

// Row kernels with fused epilogues and more operands than the sweep's: a
// residual added before a layernorm whose result goes through silu, with the
// sum also an output (a pre-norm transformer's residual stream), and a
// softmax of scaled scores plus an f32 column bias [cols] beside 16-bit rows,
// with its logsumexp [rows, 1] as a second output.
inline Graph ResidualNormSilu(DType dtype, int64_t rows, int64_t cols) {
  GraphBuilder b;
  auto f32 = [&](Value v) { return dtype != DType::kF32 ? Cast(v, DType::kF32) : v; };
  auto stored = [&](Value v) { return dtype != DType::kF32 ? Cast(v, dtype) : v; };
  const Value h = f32(b.Input("x", dtype, {rows, cols})) + f32(b.Input("r", dtype, {rows, cols}));
  const Value d = h - ReduceMean(h, {1}, true);
  const Value n = d * Rsqrt(ReduceMean(d * d, {1}, true) + b.Constant(1e-5, DType::kF32));
  const Value y = n * f32(b.Input("w", dtype, {cols})) + f32(b.Input("b", dtype, {cols}));
  return *b.Build({stored(y * Sigmoid(y)).Named("y"), stored(h).Named("h")});
}
inline Graph BiasedSoftmaxWithLogSumExp(DType dtype, int64_t rows, int64_t cols) {
  GraphBuilder b;
  Value x = b.Input("x", dtype, {rows, cols});
  if (dtype != DType::kF32) x = Cast(x, DType::kF32);
  const Value t = x * 0.125 + b.Input("bias", DType::kF32, {cols});
  const Value m = ReduceMax(t, {1}, true);
  const Value e = Exp(t - m);
  const Value s = ReduceSum(e, {1}, true);
  const Value p = e / s;
  return *b.Build({(dtype != DType::kF32 ? Cast(p, dtype) : p).Named("p"), (Log(s) + m).Named("lse")});
}

}  // namespace kiln

#endif  // KILN_TESTS_ROW_TEST_GRAPHS_H_
