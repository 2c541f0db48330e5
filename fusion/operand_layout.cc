#include "fusion/operand_layout.h"

#include <algorithm>

#include "fusion/matmul_schedule.h"

namespace kiln {

bool SwapsLastTwoDims(const Node& node) {
  const size_t rank = node.perm.size();
  if (node.op != OpKind::kTranspose || rank < 2) return false;
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (node.perm[i] != static_cast<int64_t>(i)) return false;
  }
  return node.perm[rank - 2] == static_cast<int64_t>(rank - 1) && node.perm[rank - 1] == static_cast<int64_t>(rank - 2);
}

std::vector<bool> FoldOperandTransposes(const Graph& graph, const DeviceLimits& limits, const PlanOptions& options) {
  std::vector<bool> folded(graph.size(), false);
  std::vector<bool> is_output(graph.size(), false);
  for (NodeId id : graph.outputs()) is_output[id] = true;
  const std::vector<std::vector<NodeId>> users = graph.Users();
  for (NodeId t = 0; t < graph.size(); ++t) {
    folded[t] = SwapsLastTwoDims(graph.node(t)) && !is_output[t] && !users[t].empty() &&
                std::all_of(users[t].begin(), users[t].end(),
                            [&](NodeId u) { return graph.node(u).op == OpKind::kMatmul; });
  }
  // Unfolding one transpose changes how its matmuls read that operand, which
  // may change whether they can run on wgmma at all: repeat until no fold
  // leaves a matmul that cannot.
  for (bool changed = true; changed;) {
    changed = false;
    for (NodeId t = 0; t < graph.size(); ++t) {
      if (!folded[t]) continue;
      for (NodeId u : users[t]) {
        const MatmulOperand a = DescribeMatmulOperand(graph, u, 0, folded);
        const MatmulOperand b = DescribeMatmulOperand(graph, u, 1, folded);
        if (!WgmmaCanRun(graph, u, a, b, limits, options).ok()) {
          folded[t] = false;
          changed = true;
          break;
        }
      }
    }
  }
  return folded;
}

}  // namespace kiln
