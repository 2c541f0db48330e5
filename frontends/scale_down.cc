#include "frontends/scale_down.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace kiln {

absl::StatusOr<Graph> ScaleDownGraph(const Graph& graph, int64_t max_dim) {
  if (max_dim < 1) {
    return absl::InvalidArgumentError(absl::StrCat("max_dim must be at least 1, got ", max_dim));
  }
  Graph scaled;
  // Node ids stay the same: nodes are added in the same order.
  for (const Node& node : graph.nodes()) {
    NodeSpec spec{.name = node.name, .op = node.op, .operands = node.operands,
                  .dtype = node.dtype, .value = node.value, .axes = node.axes,
                  .keepdims = node.keepdims, .perm = node.perm};
    if (node.op == OpKind::kInput || node.op == OpKind::kReshape) {
      for (int64_t d : node.shape) spec.shape.push_back(std::min(d, max_dim));
    }
    absl::StatusOr<NodeId> id = scaled.AddNode(std::move(spec));
    if (!id.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot scale dims down to at most ", max_dim,
                                                     ": ", id.status().message()));
    }
  }
  if (absl::Status s = scaled.SetOutputs(graph.outputs()); !s.ok()) return s;
  return scaled;
}

}  // namespace kiln
