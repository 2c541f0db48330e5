// The fusion planner: groups a verified graph's ops into kernels so that
// intermediates stay on chip, and records why every other edge is a boundary.
//
//   absl::StatusOr<Plan> fused = PlanFusion(graph, DeviceLimits{});
//   absl::StatusOr<Plan> baseline = PlanUnfused(graph, DeviceLimits{});
//
// Nodes that no output depends on are dropped first (fusion/dead_nodes.h).
// Greedy, in topological order: each compute node joins the kernel of one of
// its producers (or of a sibling that reads the same tensor) when the kinds
// are compatible and joining cannot create a cycle between kernels; otherwise
// it starts a new kernel. The result is deterministic and linear in the graph
// size for graphs of bounded fan-in.
#ifndef KILN_FUSION_PLANNER_H_
#define KILN_FUSION_PLANNER_H_

#include "absl/status/statusor.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "fusion/plan_options.h"
#include "graph/graph.h"

namespace kiln {

absl::StatusOr<Plan> PlanFusion(const Graph& graph, const DeviceLimits& limits, const PlanOptions& options = {});

// The baseline: every op that is not an input, constant or view is its own kernel.
absl::StatusOr<Plan> PlanUnfused(const Graph& graph, const DeviceLimits& limits, const PlanOptions& options = {});

}  // namespace kiln

#endif  // KILN_FUSION_PLANNER_H_
