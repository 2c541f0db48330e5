// Shape and dtype inference: turns a NodeSpec and its operands into a typed
// Node, or an error that names the node and the problem.
//
//   InferNode({.name = "t4", .op = OpKind::kAdd, .operands = {a, b}}, {&a_node, &b_node})
//     -> error `node "t4" (add): shapes [16384,16384] and [3] cannot broadcast`
#ifndef KILN_GRAPH_INFER_H_
#define KILN_GRAPH_INFER_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/graph.h"

namespace kiln {

absl::StatusOr<Node> InferNode(NodeSpec spec, absl::Span<const Node* const> operands);

}  // namespace kiln

#endif  // KILN_GRAPH_INFER_H_
