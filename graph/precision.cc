#include "graph/precision.h"

#include <algorithm>

namespace kiln {

std::vector<bool> SixteenBitBound(const Graph& graph) {
  const std::vector<std::vector<NodeId>> users = graph.Users();
  std::vector<bool> bound(graph.size(), false);
  std::vector<bool> output(graph.size(), false);
  for (NodeId out : graph.outputs()) output[out] = true;
  // Node ids are topological, so every user is decided before its operands.
  for (NodeId n = graph.size() - 1; n >= 0; --n) {
    const DType dtype = graph.node(n).dtype;
    if (dtype == DType::kF16 || dtype == DType::kBF16) {
      bound[n] = true;
    } else if (dtype == DType::kF32 && !output[n] && !users[n].empty()) {
      bound[n] = std::all_of(users[n].begin(), users[n].end(), [&](NodeId u) { return bound[u]; });
    }
  }
  return bound;
}

}  // namespace kiln
