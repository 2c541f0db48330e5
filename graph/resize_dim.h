// One dim of one graph input set to a new size, with every dim tied to it
// following: what `kiln sweep` re-plans at each step.
//
//   // softmax with x:[64,1024] and a weight w:[1024] added to every row
//   Graph wider = *ResizeDim(graph, x, /*axis=*/1, 4096);  // x:[64,4096], w:[4096]
//
// Two dims are tied when the graph's ops make them the same extent: an
// elementwise op ties each operand dim to the result dim it lines up with
// (unless the operand broadcasts it from 1), a reduction ties the dims it
// keeps, a transpose ties through its permutation, a matmul ties M, N, K and
// the batch dims. Inputs and iotas in the tied set take the new size; the
// graph is then rebuilt node by node, so a node whose shape is written in the
// graph (a reshape, a slice, a tensor constant) and no longer fits is refused
// with the error naming it.
#ifndef KILN_GRAPH_RESIZE_DIM_H_
#define KILN_GRAPH_RESIZE_DIM_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace kiln {

// `input` must be an input node of `graph` and `axis` one of its axes; `size`
// at least 1.
absl::StatusOr<Graph> ResizeDim(const Graph& graph, NodeId input, int axis, int64_t size);

}  // namespace kiln

#endif  // KILN_GRAPH_RESIZE_DIM_H_
