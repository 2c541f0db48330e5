#include "fusion/dead_nodes.h"

#include <utility>

#include "graph/check.h"

namespace kiln {

std::vector<NodeId> DeadNodes(const Graph& graph) {
  // Operands precede their users, so one backward sweep marks everything an
  // output depends on.
  std::vector<bool> live(graph.size(), false);
  for (NodeId output : graph.outputs()) live[output] = true;
  for (NodeId id = graph.size(); id-- > 0;) {
    if (!live[id]) continue;
    for (NodeId operand : graph.node(id).operands) live[operand] = true;
  }
  std::vector<NodeId> dead;
  for (NodeId id = 0; id < graph.size(); ++id) {
    if (!live[id] && graph.node(id).op != OpKind::kInput) dead.push_back(id);
  }
  return dead;
}

std::optional<Graph> WithoutDeadNodes(const Graph& graph) {
  const std::vector<NodeId> dead = DeadNodes(graph);
  if (dead.empty()) return std::nullopt;
  Graph copy;
  size_t next_dead = 0;
  for (NodeId id = 0; id < graph.size(); ++id) {
    const Node& node = graph.node(id);
    NodeSpec spec;
    if (next_dead < dead.size() && dead[next_dead] == id) {
      ++next_dead;
      spec = {.name = node.name, .op = OpKind::kInput, .dtype = node.dtype, .shape = node.shape};
    } else {
      spec = SpecOf(node);
    }
    // Every node was valid in `graph`, and a placeholder has a valid node's type.
    const absl::StatusOr<NodeId> added = copy.AddNode(std::move(spec));
    KILN_CHECK(added.ok() && *added == id);
  }
  KILN_CHECK(copy.SetOutputs(graph.outputs()).ok());
  return copy;
}

}  // namespace kiln
