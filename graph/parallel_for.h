// A minimal parallel loop for the reference interpreter's large tensors.
//
//   ParallelFor(count, /*grain=*/1 << 14, [&](int64_t begin, int64_t end) {
//     for (int64_t i = begin; i < end; ++i) out[i] = f(in[i]);
//   });
//
// The range [0, n) is split into contiguous chunks of at least `grain` indices,
// at most one per hardware thread; every index is visited exactly once. A body
// that computes each index on its own (as the interpreter's loops do) therefore
// gives the same result however the range happens to be split.
#ifndef KILN_GRAPH_PARALLEL_FOR_H_
#define KILN_GRAPH_PARALLEL_FOR_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace kiln {

void ParallelFor(int64_t n, int64_t grain, absl::FunctionRef<void(int64_t, int64_t)> body);

}  // namespace kiln

#endif  // KILN_GRAPH_PARALLEL_FOR_H_
