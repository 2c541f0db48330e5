// Human- and machine-readable views of a plan: a table, JSON, Graphviz DOT,
// and the reasons behind every fusion boundary.
//
//   std::cout << PlanTable(graph, fused, unfused, limits);
//   std::cout << PlanJson(graph, "gelu_naive", fused, unfused, limits);
#ifndef KILN_FUSION_PLAN_REPORT_H_
#define KILN_FUSION_PLAN_REPORT_H_

#include <string>

#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

// 22548578304 -> "22,548,578,304"
std::string GroupedNumber(int64_t value);

std::string PlanTable(const Graph& graph, const Plan& fused, const Plan& unfused,
                      const DeviceLimits& limits);
std::string PlanJson(const Graph& graph, absl::string_view graph_name, const Plan& fused,
                     const Plan& unfused, const DeviceLimits& limits);
std::string PlanDot(const Graph& graph, const Plan& plan);
std::string PlanExplain(const Graph& graph, const Plan& plan);

}  // namespace kiln

#endif  // KILN_FUSION_PLAN_REPORT_H_
