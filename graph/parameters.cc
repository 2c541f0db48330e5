#include "graph/parameters.h"

namespace kiln {

Parameters CountParameters(const Graph& graph) {
  Parameters p;
  for (const Node& node : graph.nodes()) {
    if (!IsTensorConstant(node)) continue;
    ++p.tensors;
    p.elements += NumElements(node.shape);
    p.bytes += static_cast<int64_t>(node.data->size());
  }
  return p;
}

}  // namespace kiln
