// Step one of planning: assigning compute nodes to kernel groups.
//
//   Grouping g = GroupNodes(graph, /*fuse=*/true, folded);
//   g.group_of[id]   // group index, or -1 for inputs, constants, views and folded transposes
//   g.groups[i].kind
#ifndef KILN_FUSION_GROUPING_H_
#define KILN_FUSION_GROUPING_H_

#include <vector>

#include "fusion/attention_match.h"
#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

struct Group {
  KernelKind kind = KernelKind::kPointwise;
  Dims shape;        // the iteration shape: the output shape, or a row group's full shape
  Dims row_shape;    // row groups: the full shape with reduced axes set to 1
  Dims reduced_shape;  // row groups: the full shape without the reduced axes
  std::vector<NodeId> nodes;  // ascending
  // Row and pointwise groups: nodes of a smaller shape, computed from graph
  // inputs alone, that the kernel computes per element at their broadcast
  // index instead of reading them from another kernel (the cast of a
  // layernorm's weight [N]).
  std::vector<NodeId> broadcast_nodes;
};

struct Grouping {
  std::vector<Group> groups;           // in a valid launch order
  std::vector<int> group_of;           // per node
  std::vector<Boundary> boundaries;
};

// `folded` (per node) marks transposes that matmuls read as their operand
// layout (FoldOperandTransposes): like reshapes, they get no kernel. Each of
// `attention`'s chains is one group of kind kAttention, formed first.
Grouping GroupNodes(const Graph& graph, bool fuse, const std::vector<bool>& folded,
                    const std::vector<AttentionChain>& attention = {});

}  // namespace kiln

#endif  // KILN_FUSION_GROUPING_H_
