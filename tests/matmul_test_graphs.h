// Matmul graphs shared by the code generation tests (which compile them) and
// the GPU tests (which run them against the reference).
//
//   Graph g = BatchedMatmulWithEpilogue(DType::kBF16, 3, 200, 72, 64);
#ifndef KILN_TESTS_MATMUL_TEST_GRAPHS_H_
#define KILN_TESTS_MATMUL_TEST_GRAPHS_H_

#include <cstdint>

#include "frontends/builder.h"

namespace kiln {

// c = x·w for x [batch,m,k], w [batch,k,n], and y = tanh(c + bias) * 0.5 +
// residual with a broadcast bias [n] and a full-shape residual; both c and y
// are outputs, so the kernel materializes the product and its epilogue.
inline Graph BatchedMatmulWithEpilogue(DType dtype, int64_t batch, int64_t m, int64_t n, int64_t k) {
  GraphBuilder b;
  Value x = b.Input("x", dtype, {batch, m, k});
  Value w = b.Input("w", dtype, {batch, k, n});
  Value bias = b.Input("bias", dtype, {n});
  Value residual = b.Input("residual", dtype, {batch, m, n});
  Value c = Matmul(x, w).Named("c");
  Value y = (Tanh(c + bias) * 0.5 + residual).Named("y");
  return *b.Build({c, y});
}

}  // namespace kiln

#endif  // KILN_TESTS_MATMUL_TEST_GRAPHS_H_
