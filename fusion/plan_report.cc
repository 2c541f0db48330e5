#include "fusion/plan_report.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "fusion/traffic.h"

namespace kiln {
namespace {

constexpr absl::string_view kRowFormat = "%-18s %-14s %-44s %16s %16s %12s\n";

std::string NodeNames(const Graph& graph, const std::vector<NodeId>& ids) {
  return absl::StrJoin(ids, " ", [&](std::string* out, NodeId id) {
    absl::StrAppend(out, absl::CEscape(graph.node(id).name));
  });
}

std::string Micros(double seconds) { return absl::StrFormat("%.1f us", seconds * 1e6); }

std::string KernelRows(const Graph& graph, const Plan& plan, const DeviceLimits& limits) {
  std::string out = absl::StrFormat(kRowFormat, "kernel", "kind", "strategy", "bytes read", "bytes written",
                                    "roofline");
  for (const Kernel& k : plan.kernels) {
    absl::StrAppendFormat(&out, kRowFormat, k.name, KernelKindName(k.kind), k.Strategy(),
                          GroupedNumber(k.traffic.bytes_read), GroupedNumber(k.traffic.bytes_written),
                          Micros(RooflineSeconds(k.traffic, limits)));
    absl::StrAppend(&out, "    ops: ", NodeNames(graph, k.nodes), "\n");
  }
  return out;
}

std::string Rate(double per_second, double unit) { return absl::StrFormat("%.0f", per_second / unit); }

}  // namespace

std::string GroupedNumber(int64_t value) {
  std::string digits = absl::StrCat(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string KernelCount(size_t kernels) { return absl::StrCat(kernels, kernels == 1 ? " kernel" : " kernels"); }

std::string TargetLine(const PlanTarget& target) {
  const DeviceLimits& l = target.limits;
  return absl::StrCat("target: ", target.gpu, ": ", l.sm_count, " SMs, ", Rate(l.hbm_bytes_per_second, 1e9),
                      " GB/s HBM, ", Rate(l.f32_flops_per_second, 1e12), " TFLOP/s f32, ",
                      Rate(l.tensor_flops_per_second, 1e12), " TFLOP/s tensor cores, ",
                      l.supports_clusters ? absl::StrCat("clusters of up to ", l.max_cluster_blocks, " blocks")
                                          : std::string("no clusters"));
}

std::vector<KernelEdge> KernelEdges(const Graph& graph, const Plan& plan) {
  std::vector<KernelEdge> edges;
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const Kernel& kernel = plan.kernels[k];
    for (NodeId input : kernel.inputs) {
      KernelEdge edge{.tensor = input, .kernel = static_cast<int>(k), .bytes = InputBytes(graph, kernel, input)};
      for (NodeId n : kernel.nodes) {
        const std::vector<NodeId>& operands = graph.node(n).operands;
        if (std::find(operands.begin(), operands.end(), input) != operands.end()) edge.consumers.push_back(n);
      }
      // A matmul reads a folded transpose's source directly: the transpose
      // is the node that reads the tensor for the kernel.
      for (const LayoutFold& fold : plan.layout_folds) {
        const bool here = plan.kernel_of[fold.matmul] == static_cast<int>(k);
        if (here && graph.node(fold.transpose).operands[0] == input &&
            std::find(edge.consumers.begin(), edge.consumers.end(), fold.transpose) == edge.consumers.end()) {
          edge.consumers.push_back(fold.transpose);
        }
      }
      edges.push_back(std::move(edge));
    }
  }
  return edges;
}

std::string PlanTable(const Graph& graph, const Plan& fused, const Plan& unfused, const PlanTarget& target) {
  std::string out = absl::StrCat(TargetLine(target), "\n\nfused plan: ", KernelCount(fused.kernels.size()), "\n",
                                 KernelRows(graph, fused, target.limits), "\nunfused plan: ",
                                 KernelCount(unfused.kernels.size()), "\n",
                                 KernelRows(graph, unfused, target.limits), "\n");
  absl::StrAppendFormat(&out, "unfused: %s, %s bytes, roofline %s\n", KernelCount(unfused.kernels.size()),
                        GroupedNumber(unfused.total.bytes()), Micros(PlanRoofline(unfused, target.limits)));
  absl::StrAppendFormat(&out, "fused:   %s, %s bytes, roofline %s\n", KernelCount(fused.kernels.size()),
                        GroupedNumber(fused.total.bytes()), Micros(PlanRoofline(fused, target.limits)));
  if (fused.total.bytes() > 0) {
    absl::StrAppendFormat(&out, "fused moves %.2fx fewer bytes than unfused\n",
                          static_cast<double>(unfused.total.bytes()) / static_cast<double>(fused.total.bytes()));
  }
  return out;
}

std::string PlanExplain(const Graph& graph, const Plan& plan) {
  std::string out;
  for (const Kernel& k : plan.kernels) {
    absl::StrAppend(&out, k.name, ": ", k.Strategy(), " over ", k.nodes.size(), k.nodes.size() == 1 ? " op" : " ops",
                    "\n");
    if (const std::string why = k.Reason(); !why.empty()) absl::StrAppend(&out, "  why: ", why, "\n");
  }
  for (const UnitReduction& u : plan.unit_reductions) absl::StrAppend(&out, "elementwise: ", u.reason, "\n");
  if (plan.boundaries.empty()) {
    absl::StrAppend(&out, "no fusion boundaries: every producer shares its consumer's kernel\n");
  }
  for (const Boundary& b : plan.boundaries) {
    absl::StrAppend(&out, "boundary ", NodeLabel(graph.node(b.producer)), " -> ", NodeLabel(graph.node(b.consumer)),
                    ": ", b.reason, "\n");
  }
  // A softmax chain that stays apart from its matmuls, and the condition it failed.
  for (const AttentionRefusal& r : plan.attention_refusals) absl::StrAppend(&out, "not attention: ", r.reason, "\n");
  return out;
}

}  // namespace kiln
