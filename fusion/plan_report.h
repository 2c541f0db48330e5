// Human- and machine-readable views of a plan: a table of both plans, JSON,
// Graphviz DOT with the bytes on every edge between kernels, and the reasons
// behind every strategy and fusion boundary.
//
//   const PlanTarget h200{.gpu = "H200", .limits = DeviceLimits{}};
//   std::cout << PlanTable(graph, fused, unfused, h200);
//   std::cout << PlanJson(graph, "gelu_naive", fused, unfused, h200, /*explain=*/true);
//   std::cout << PlanDot(graph, fused);
#ifndef KILN_FUSION_PLAN_REPORT_H_
#define KILN_FUSION_PLAN_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "fusion/plan_options.h"
#include "graph/graph.h"
#include "graph/json.h"

namespace kiln {

// The GPU a plan is made for, as the reports name it: a device's name, or
// what the limits stand for ("H200 (the default)").
struct PlanTarget {
  std::string gpu;
  DeviceLimits limits;
  PlanOptions options;
};

// A tensor that a kernel reads from memory, produced outside it: the edges
// between kernels, and from graph inputs into kernels. `bytes` counts every
// pass the kernel makes over it, as the traffic model does.
struct KernelEdge {
  NodeId tensor = -1;
  int kernel = -1;
  // The nodes that read `tensor` for the kernel: its own, and transposes
  // folded into its matmuls (which read their source's memory).
  std::vector<NodeId> consumers;
  int64_t bytes = 0;
};

// 22548578304 -> "22,548,578,304"
std::string GroupedNumber(int64_t value);

// "1 kernel", "9 kernels"
std::string KernelCount(size_t kernels);

// "target: H200 (the default): 132 SMs, 4220 GB/s HBM, 67 TFLOP/s f32, 790 TFLOP/s tensor cores,
// clusters of up to 8 blocks"
std::string TargetLine(const PlanTarget& target);

// Per kernel, in launch order, its edges in node order.
std::vector<KernelEdge> KernelEdges(const Graph& graph, const Plan& plan);

// The target, the fused plan's kernels, the unfused plan's, and both totals.
std::string PlanTable(const Graph& graph, const Plan& fused, const Plan& unfused, const PlanTarget& target);
// With `explain`, each kernel carries "why" and the plan its "boundaries";
// `extra` members (already rendered) follow the plan's own.
std::string PlanJson(const Graph& graph, absl::string_view graph_name, const Plan& fused, const Plan& unfused,
                     const PlanTarget& target, bool explain, const JsonMembers& extra = {});
std::string PlanDot(const Graph& graph, const Plan& plan);
std::string PlanExplain(const Graph& graph, const Plan& plan);

}  // namespace kiln

#endif  // KILN_FUSION_PLAN_REPORT_H_
