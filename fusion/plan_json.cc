// PlanJson (plan_report.h): both plans, their kernels and the edges between
// kernels, every string escaped.
#include "absl/strings/str_cat.h"
#include "fusion/plan_report.h"
#include "fusion/traffic.h"
#include "graph/json.h"

namespace kiln {
namespace {

std::string NodeNamesJson(const Graph& graph, const std::vector<NodeId>& ids) {
  std::vector<std::string> names;
  for (NodeId id : ids) names.push_back(JsonString(graph.node(id).name));
  return JsonArray(names);
}

std::string KernelJson(const Graph& graph, const Kernel& k, const DeviceLimits& limits, bool explain) {
  JsonMembers members = {
      {"name", JsonString(k.name)},
      {"kind", JsonString(KernelKindName(k.kind))},
      {"strategy", JsonString(k.Strategy())},
      {"nodes", NodeNamesJson(graph, k.nodes)},
      {"bytes_read", JsonInt(k.traffic.bytes_read)},
      {"bytes_written", JsonInt(k.traffic.bytes_written)},
      {"flops", JsonFixed(k.traffic.flops, 0)},
      {"arithmetic_intensity",
       JsonFixed(k.traffic.bytes() > 0 ? k.traffic.flops / static_cast<double>(k.traffic.bytes()) : 0.0, 4)},
      {"roofline_us", JsonFixed(RooflineSeconds(k.traffic, limits) * 1e6, 3)},
  };
  if (explain) members.push_back({"why", k.Reason().empty() ? "null" : JsonString(k.Reason())});
  return JsonObject(members);
}

std::string SummaryJson(const Plan& plan, const DeviceLimits& limits) {
  return JsonObject({
      {"kernels", JsonInt(static_cast<int64_t>(plan.kernels.size()))},
      {"bytes", JsonInt(plan.total.bytes())},
      {"bytes_read", JsonInt(plan.total.bytes_read)},
      {"bytes_written", JsonInt(plan.total.bytes_written)},
      {"flops", JsonFixed(plan.total.flops, 0)},
      {"roofline_us", JsonFixed(PlanRoofline(plan, limits) * 1e6, 3)},
  });
}

std::string KernelsJson(const Graph& graph, const Plan& plan, const DeviceLimits& limits, bool explain) {
  std::vector<std::string> kernels;
  for (const Kernel& k : plan.kernels) kernels.push_back(KernelJson(graph, k, limits, explain));
  return JsonArrayLines(kernels, 2);
}

std::string EdgesJson(const Graph& graph, const Plan& plan) {
  std::vector<std::string> edges;
  for (const KernelEdge& edge : KernelEdges(graph, plan)) {
    edges.push_back(JsonObject({
        {"tensor", JsonString(graph.node(edge.tensor).name)},
        {"kernel", JsonString(plan.kernels[edge.kernel].name)},
        {"consumers", NodeNamesJson(graph, edge.consumers)},
        {"bytes", JsonInt(edge.bytes)},
    }));
  }
  return JsonArrayLines(edges, 2);
}

std::string TargetJson(const PlanTarget& target) {
  const DeviceLimits& l = target.limits;
  return JsonObject({
      {"gpu", JsonString(target.gpu)},
      {"sm_count", JsonInt(l.sm_count)},
      {"bandwidth_gbps", JsonFixed(l.hbm_bytes_per_second / 1e9, 1)},
      {"f32_tflops", JsonFixed(l.f32_flops_per_second / 1e12, 1)},
      {"tensor_tflops", JsonFixed(l.tensor_flops_per_second / 1e12, 1)},
      {"clusters", JsonBool(l.supports_clusters)},
      {"max_cluster_blocks", JsonInt(l.max_cluster_blocks)},
  });
}

std::string BoundariesJson(const Graph& graph, const Plan& plan) {
  std::vector<std::string> boundaries;
  for (const Boundary& b : plan.boundaries) {
    boundaries.push_back(JsonObject({
        {"producer", JsonString(graph.node(b.producer).name)},
        {"consumer", JsonString(graph.node(b.consumer).name)},
        {"reason", JsonString(b.reason)},
    }));
  }
  return JsonArrayLines(boundaries, 2);
}

std::string AttentionRefusalsJson(const Graph& graph, const Plan& plan) {
  std::vector<std::string> refusals;
  for (const AttentionRefusal& r : plan.attention_refusals) {
    refusals.push_back(JsonObject({
        {"matmul", JsonString(graph.node(r.matmul).name)},
        {"reason", JsonString(r.reason)},
    }));
  }
  return JsonArrayLines(refusals, 2);
}

std::string UnitReductionsJson(const Graph& graph, const Plan& plan) {
  std::vector<std::string> reductions;
  for (const UnitReduction& u : plan.unit_reductions) {
    reductions.push_back(JsonObject({
        {"reduction", JsonString(graph.node(u.reduction).name)},
        {"reason", JsonString(u.reason)},
    }));
  }
  return JsonArrayLines(reductions, 2);
}

}  // namespace

std::string PlanJson(const Graph& graph, absl::string_view graph_name, const Plan& fused, const Plan& unfused,
                     const PlanTarget& target, bool explain, const JsonMembers& extra) {
  JsonMembers members = {
      {"graph", JsonString(graph_name)},
      {"target", TargetJson(target)},
      {"unfused", SummaryJson(unfused, target.limits)},
      {"fused", SummaryJson(fused, target.limits)},
      {"kernels", KernelsJson(graph, fused, target.limits, explain)},
      {"edges", EdgesJson(graph, fused)},
      {"unfused_kernels", KernelsJson(graph, unfused, target.limits, explain)},
      {"unfused_edges", EdgesJson(graph, unfused)},
  };
  if (explain) {
    members.push_back({"boundaries", BoundariesJson(graph, fused)});
    members.push_back({"attention_refusals", AttentionRefusalsJson(graph, fused)});
    members.push_back({"unit_reductions", UnitReductionsJson(graph, fused)});
  }
  members.insert(members.end(), extra.begin(), extra.end());
  return JsonObjectLines(members, 0) + "\n";
}

}  // namespace kiln
