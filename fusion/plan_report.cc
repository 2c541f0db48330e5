#include "fusion/plan_report.h"

#include <cstdio>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "fusion/traffic.h"

namespace kiln {
namespace {

std::string NodeNames(const Graph& graph, const std::vector<NodeId>& ids) {
  return absl::StrJoin(ids, " ", [&](std::string* out, NodeId id) {
    absl::StrAppend(out, absl::CEscape(graph.node(id).name));
  });
}

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string Micros(double seconds) { return absl::StrFormat("%.1f us", seconds * 1e6); }

std::string KernelJson(const Graph& graph, const Kernel& k, const DeviceLimits& limits) {
  std::vector<std::string> nodes;
  for (NodeId id : k.nodes) nodes.push_back(JsonString(graph.node(id).name));
  return absl::StrFormat(
      R"({"name": %s, "kind": %s, "strategy": %s, "nodes": [%s], "bytes_read": %d, )"
      R"("bytes_written": %d, "flops": %.0f, "arithmetic_intensity": %.4f, "roofline_us": %.3f})",
      JsonString(k.name), JsonString(KernelKindName(k.kind)), JsonString(k.Strategy()),
      absl::StrJoin(nodes, ", "), k.traffic.bytes_read, k.traffic.bytes_written, k.traffic.flops,
      k.traffic.bytes() > 0 ? k.traffic.flops / static_cast<double>(k.traffic.bytes()) : 0.0,
      RooflineSeconds(k.traffic, limits) * 1e6);
}

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

std::string PlanTable(const Graph& graph, const Plan& fused, const Plan& unfused,
                      const DeviceLimits& limits) {
  std::string out = absl::StrFormat("%-18s %-14s %-44s %16s %16s %12s\n", "kernel", "kind", "strategy",
                                    "bytes read", "bytes written", "roofline");
  for (const Kernel& k : fused.kernels) {
    absl::StrAppendFormat(&out, "%-18s %-14s %-44s %16s %16s %12s\n", k.name, KernelKindName(k.kind),
                          k.Strategy(), GroupedNumber(k.traffic.bytes_read),
                          GroupedNumber(k.traffic.bytes_written),
                          Micros(RooflineSeconds(k.traffic, limits)));
    absl::StrAppend(&out, "    ops: ", NodeNames(graph, k.nodes), "\n");
  }
  const double unfused_s = PlanRoofline(unfused, limits);
  const double fused_s = PlanRoofline(fused, limits);
  absl::StrAppendFormat(&out, "unfused: %d kernels, %s bytes, roofline %s\n", unfused.kernels.size(),
                        GroupedNumber(unfused.total.bytes()), Micros(unfused_s));
  absl::StrAppendFormat(&out, "fused:   %d kernels, %s bytes, roofline %s\n", fused.kernels.size(),
                        GroupedNumber(fused.total.bytes()), Micros(fused_s));
  if (fused.total.bytes() > 0) {
    absl::StrAppendFormat(&out, "fused moves %.2fx fewer bytes than unfused\n",
                          static_cast<double>(unfused.total.bytes()) /
                              static_cast<double>(fused.total.bytes()));
  }
  return out;
}

std::string PlanJson(const Graph& graph, absl::string_view graph_name, const Plan& fused,
                     const Plan& unfused, const DeviceLimits& limits) {
  auto kernels = [&](const Plan& plan) {
    std::vector<std::string> parts;
    for (const Kernel& k : plan.kernels) parts.push_back(KernelJson(graph, k, limits));
    return absl::StrJoin(parts, ",\n    ");
  };
  auto summary = [&](const Plan& plan) {
    return absl::StrFormat(R"({"kernels": %d, "bytes": %d, "bytes_read": %d, "bytes_written": %d, )"
                           R"("flops": %.0f, "roofline_us": %.3f})",
                           plan.kernels.size(), plan.total.bytes(), plan.total.bytes_read,
                           plan.total.bytes_written, plan.total.flops, PlanRoofline(plan, limits) * 1e6);
  };
  return absl::StrFormat(
      "{\n  \"graph\": %s,\n  \"unfused\": %s,\n  \"fused\": %s,\n  \"kernels\": [\n    %s\n  ],\n"
      "  \"unfused_kernels\": [\n    %s\n  ]\n}\n",
      JsonString(graph_name), summary(unfused), summary(fused), kernels(fused), kernels(unfused));
}

std::string PlanDot(const Graph& graph, const Plan& plan) {
  std::string out = "digraph kiln {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  auto id = [](NodeId n) { return absl::StrCat("n", n); };
  auto label = [&](NodeId n) {
    const Node& node = graph.node(n);
    return JsonString(absl::StrCat(node.name, "\\n", OpName(node.op), " ", DTypeName(node.dtype),
                                   DimsString(node.shape)));
  };
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const Kernel& kernel = plan.kernels[k];
    absl::StrAppendFormat(&out, "  subgraph cluster_%d {\n    label=%s;\n    style=rounded;\n", k,
                          JsonString(absl::StrCat(kernel.name, ": ", kernel.Strategy())));
    for (NodeId n : kernel.nodes) absl::StrAppend(&out, "    ", id(n), " [label=", label(n), "];\n");
    absl::StrAppend(&out, "  }\n");
  }
  for (NodeId n = 0; n < graph.size(); ++n) {
    if (plan.kernel_of[n] >= 0) continue;
    const bool constant = graph.node(n).op == OpKind::kConstant;
    absl::StrAppend(&out, "  ", id(n), " [label=", label(n), ", style=",
                    constant ? "dotted" : "filled, fillcolor=\"#eeeeee\"", "];\n");
  }
  for (NodeId n = 0; n < graph.size(); ++n) {
    for (NodeId p : graph.node(n).operands) absl::StrAppend(&out, "  ", id(p), " -> ", id(n), ";\n");
  }
  return out + "}\n";
}

std::string PlanExplain(const Graph& graph, const Plan& plan) {
  std::string out;
  for (const Kernel& k : plan.kernels) {
    absl::StrAppend(&out, k.name, ": ", k.Strategy(), " over ", k.nodes.size(), " ops\n");
    if (k.kind == KernelKind::kRowReduction) absl::StrAppend(&out, "  why: ", k.row.reason, "\n");
    if (k.kind == KernelKind::kMatmul) absl::StrAppend(&out, "  why: ", k.matmul.reason, "\n");
  }
  if (plan.boundaries.empty()) {
    absl::StrAppend(&out, "no fusion boundaries: every producer shares its consumer's kernel\n");
  }
  for (const Boundary& b : plan.boundaries) {
    absl::StrAppend(&out, "boundary ", NodeLabel(graph.node(b.producer)), " -> ",
                    NodeLabel(graph.node(b.consumer)), ": ", b.reason, "\n");
  }
  return out;
}

}  // namespace kiln
