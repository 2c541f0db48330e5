// PlanDot (plan_report.h): one cluster per kernel; each tensor a kernel reads
// from memory labels its edge into the kernel with the bytes read.
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "fusion/plan_report.h"

namespace kiln {
namespace {

// A DOT string literal holding `lines`, joined by DOT's own line break (the
// two characters \n, which Graphviz reads as a newline inside a label).
std::string DotLabel(const std::vector<std::string>& lines) {
  std::vector<std::string> escaped;
  for (const std::string& line : lines) {
    std::string out;
    for (char c : line) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    escaped.push_back(std::move(out));
  }
  return absl::StrCat("\"", absl::StrJoin(escaped, "\\n"), "\"");
}

std::string DotNodeLabel(const Graph& graph, NodeId n) {
  const Node& node = graph.node(n);
  return DotLabel({node.name, absl::StrCat(OpName(node.op), " ", DTypeName(node.dtype), DimsString(node.shape))});
}

}  // namespace

std::string PlanDot(const Graph& graph, const Plan& plan) {
  std::string out = "digraph kiln {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  auto id = [](NodeId n) { return absl::StrCat("n", n); };
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const Kernel& kernel = plan.kernels[k];
    absl::StrAppendFormat(&out, "  subgraph cluster_%d {\n    label=%s;\n    style=rounded;\n", k,
                          DotLabel({absl::StrCat(kernel.name, ": ", kernel.Strategy())}));
    for (NodeId n : kernel.nodes) absl::StrAppend(&out, "    ", id(n), " [label=", DotNodeLabel(graph, n), "];\n");
    absl::StrAppend(&out, "  }\n");
  }
  for (NodeId n = 0; n < graph.size(); ++n) {
    if (plan.kernel_of[n] >= 0) continue;
    const bool constant = graph.node(n).op == OpKind::kConstant;
    absl::StrAppend(&out, "  ", id(n), " [label=", DotNodeLabel(graph, n),
                    ", style=", constant ? "dotted" : "\"filled\", fillcolor=\"#eeeeee\"", "];\n");
  }
  // A kernel reads a tensor once however many of its nodes use it, so only
  // the edge to the first of them carries the bytes.
  absl::flat_hash_map<std::pair<NodeId, NodeId>, int64_t> labelled;  // (tensor, first consumer) -> bytes
  for (const KernelEdge& edge : KernelEdges(graph, plan)) labelled[{edge.tensor, edge.consumers.front()}] = edge.bytes;
  for (NodeId n = 0; n < graph.size(); ++n) {
    for (NodeId p : graph.node(n).operands) {
      absl::StrAppend(&out, "  ", id(p), " -> ", id(n));
      if (auto it = labelled.find({p, n}); it != labelled.end()) {
        absl::StrAppend(&out, " [label=", DotLabel({absl::StrCat(GroupedNumber(it->second), " B")}), "]");
        labelled.erase(it);  // x * x: one labelled edge of the two
      }
      absl::StrAppend(&out, ";\n");
    }
  }
  return out + "}\n";
}

}  // namespace kiln
