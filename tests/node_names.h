// The names of a list of graph nodes, so expectations on a kernel's nodes,
// inputs or outputs read as the names the graph gave them.
//
//   EXPECT_THAT(NodeNames(graph, kernel.inputs), ElementsAre("x", "w"));
#ifndef KILN_TESTS_NODE_NAMES_H_
#define KILN_TESTS_NODE_NAMES_H_

#include <string>
#include <vector>

#include "graph/graph.h"

namespace kiln {

inline std::vector<std::string> NodeNames(const Graph& graph, const std::vector<NodeId>& ids) {
  std::vector<std::string> names;
  for (NodeId id : ids) names.push_back(graph.node(id).name);
  return names;
}

}  // namespace kiln

#endif  // KILN_TESTS_NODE_NAMES_H_
