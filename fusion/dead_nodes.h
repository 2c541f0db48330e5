// Dead-node elimination: a node that no graph output depends on gets no
// kernel, costs no traffic and is never generated (`kiln check` lists them).
//
//   std::vector<NodeId> dead = DeadNodes(graph);          // ascending ids
//   std::optional<Graph> planned = WithoutDeadNodes(graph);
//   // nullopt: every node is live, plan `graph` itself. Otherwise a copy with
//   // the same ids, outputs and live nodes, each dead node a placeholder input.
//
// Placeholders keep node ids, so a plan of the copy describes the user's
// graph as it is: no renumbering, and a dead node's kernel_of is -1, as for
// inputs. Inputs are never dead: they are the graph's interface.
#ifndef KILN_FUSION_DEAD_NODES_H_
#define KILN_FUSION_DEAD_NODES_H_

#include <optional>
#include <vector>

#include "graph/graph.h"

namespace kiln {

std::vector<NodeId> DeadNodes(const Graph& graph);

std::optional<Graph> WithoutDeadNodes(const Graph& graph);

}  // namespace kiln

#endif  // KILN_FUSION_DEAD_NODES_H_
