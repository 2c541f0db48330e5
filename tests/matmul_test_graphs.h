// Matmul graphs shared by the code generation tests (which compile them) and
// the GPU tests (which run them against the reference).
//
//   Graph g = BatchedMatmulWithEpilogue(DType::kBF16, 3, 200, 72, 64);
#ifndef KILN_TESTS_MATMUL_TEST_GRAPHS_H_
#define KILN_TESTS_MATMUL_TEST_GRAPHS_H_

#include <cstdint>
#include <vector>

#include "frontends/builder.h"
#include "fusion/matmul_candidates.h"
#include "fusion/matmul_schedule.h"

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

// relu(x·w) for x [m,k] and w [k,n], each stored as given or transposed.
inline Graph LayoutGraph(DType dtype, int64_t m, int64_t n, int64_t k, bool a_transposed, bool b_transposed) {
  GraphBuilder b;
  Value a = a_transposed ? Transpose(b.Input("a_t", dtype, {k, m}), {1, 0}) : b.Input("a", dtype, {m, k});
  Value w = b_transposed ? Transpose(b.Input("w_t", dtype, {n, k}), {1, 0}) : b.Input("w", dtype, {k, n});
  return *b.Build({Relu(Matmul(a, w)).Named("y")});
}

// Every wgmma candidate of `s` in one L2 grouping (clusters do not change
// how grouping works), unsplit, in each 2-block cluster `limits` lets it
// run: the clusters' cases however few tiles the product has.
inline std::vector<MatmulConfig> ClusteredCandidates(const MatmulSchedule& s, const DeviceLimits& limits) {
  std::vector<MatmulConfig> out;
  for (MatmulConfig c : MatmulCandidates(s, limits)) {
    if (c.split_k != 1 || c.ClusterBlocks() != 1 || c.group_m != 8) continue;
    for (const auto& [cluster_m, cluster_n] : {std::pair{2, 1}, std::pair{1, 2}}) {
      c.cluster_m = cluster_m;
      c.cluster_n = cluster_n;
      MatmulSchedule trial = s;
      if (ApplyMatmulConfig(c, "candidate", limits, trial).ok()) out.push_back(c);
    }
  }
  return out;
}

}  // namespace kiln

#endif  // KILN_TESTS_MATMUL_TEST_GRAPHS_H_
