// Shrinks a graph's tensors so that the CPU reference interpreter can run it
// in moments: every dim d becomes min(d, max_dim).
//
//   absl::StatusOr<Graph> small = ScaleDownGraph(gelu_16384x16384, 256);  // x: [256,256]
//
// 1 stays 1 and equal dims stay equal, so broadcasts, matmul inner dims and
// reductions stay valid; a tensor constant keeps its leading block. A reshape
// or a slice can break (element counts no longer match, a window runs past
// its operand), which is an error naming that node.
#ifndef KILN_FRONTENDS_SCALE_DOWN_H_
#define KILN_FRONTENDS_SCALE_DOWN_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace kiln {

absl::StatusOr<Graph> ScaleDownGraph(const Graph& graph, int64_t max_dim);

}  // namespace kiln

#endif  // KILN_FRONTENDS_SCALE_DOWN_H_
