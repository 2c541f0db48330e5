// Row-kernel test graphs shared by the fusion, codegen and GPU suites.
//
//   Graph g = LayerNormWithWeights(DType::kBF16, 8192, 8192);
//   // x, w, b in bf16; cast to f32, normalized over rows, cast back: the
//   // graph bench/sweep writes as layernorm_8192x8192_bf16
#ifndef KILN_TESTS_ROW_TEST_GRAPHS_H_
#define KILN_TESTS_ROW_TEST_GRAPHS_H_

#include <cstdint>

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

}  // namespace kiln

#endif  // KILN_TESTS_ROW_TEST_GRAPHS_H_
