// Chooses how a transpose kernel moves its tensor. The permutation is first
// collapsed to the fewest dims that move the same data: dims of size 1 drop,
// and input dims that stay adjacent and in order in the output merge. What is
// left picks the strategy:
//   - nothing moves (one dim or none): a vectorized copy;
//   - the last dim stays last: a row-run copy, each contiguous run moved as
//     vectors;
//   - the last dim moves: a tiled transpose through shared memory over (the
//     dim that becomes the output's last, the input's last), every other dim
//     a batch index.
// An operand computed where it is read (an iota, a scalar constant) is
// computed for each output element instead.
//
//   // t = transpose(x f32[8,1024,16,128], perm [0,2,3,1])
//   TransposeSchedule s = ScheduleTranspose(graph, t);
//   s.dims      // {8, 1024, 2048}: dims 2 and 3 stay adjacent and in order
//   s.perm      // {0, 2, 1}
//   s.strategy  // TransposeStrategy::kTiled, 64x64 tiles
//   TransposeStrategyText(s)  // "tiled 64x64 (16-byte vectors)"
#ifndef KILN_FUSION_TRANSPOSE_SCHEDULE_H_
#define KILN_FUSION_TRANSPOSE_SCHEDULE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fusion/plan.h"
#include "graph/graph.h"
#include "graph/shape.h"

namespace kiln {

// A permutation over collapsed dims: output dim i is dims[perm[i]].
struct CollapsedPermutation {
  Dims dims;
  std::vector<int64_t> perm;
};

// `perm` of a tensor of `dims` (output dim i is input dim perm[i]) over the
// fewest dims (none when every dim is 1).
CollapsedPermutation CollapsePermutation(const Dims& dims, const std::vector<int64_t>& perm);

// The schedule of transpose node `transpose` of `graph`.
TransposeSchedule ScheduleTranspose(const Graph& graph, NodeId transpose);

// The strategy as reports print it: "vectorized copy", "row-run copy
// (16-byte vectors)", "tiled 64x64 (16-byte, unaligned reads)".
std::string TransposeStrategyText(const TransposeSchedule& s);

}  // namespace kiln

#endif  // KILN_FUSION_TRANSPOSE_SCHEDULE_H_
