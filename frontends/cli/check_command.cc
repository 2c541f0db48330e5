// kiln check FILE: loads and verifies a graph file, then summarizes it.
//
//   $ kiln check bench/graphs/row_sum_16384x16384_f32.textproto
//   bench/graphs/row_sum_16384x16384_f32.textproto: valid, 2 nodes
//   inputs:
//     x: f32[16384,16384]
//   outputs:
//     y: f32[16384]
//   ops:
//     input: 1
//     reduce_sum: 1
//   parameters: 0 in 0 tensor constants (0 bytes)
//
// Nodes that no output depends on are listed last, as dropped from the plan.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/errors.h"
#include "frontends/graph_file.h"
#include "fusion/dead_nodes.h"
#include "fusion/plan_report.h"
#include "graph/parameters.h"
#include "graph/verifier.h"

namespace kiln {
namespace {

void PrintValues(const Graph& graph, absl::string_view title, const std::vector<NodeId>& ids) {
  absl::PrintF("%s:\n", title);
  for (NodeId id : ids) {
    const Node& node = graph.node(id);
    absl::PrintF("  %s: %s%s\n", node.name, DTypeName(node.dtype), DimsString(node.shape));
  }
}

}  // namespace

int RunCheckCommand(const CommandLine& line) {
  const std::string& path = line.args[0];
  absl::StatusOr<Graph> graph = LoadGraphFile(path);
  if (!graph.ok()) return ReportError(graph.status());
  if (absl::Status s = VerifyGraph(*graph); !s.ok()) {
    return ReportError(absl::Status(s.code(), absl::StrCat(path, ": ", s.message())));
  }
  absl::PrintF("%s: valid, %d nodes\n", path, graph->size());
  PrintValues(*graph, "inputs", graph->inputs());
  PrintValues(*graph, "outputs", graph->outputs());

  std::array<int, kNumOpKinds> counts{};
  for (const Node& node : graph->nodes()) ++counts[static_cast<int>(node.op)];
  absl::PrintF("ops:\n");
  for (int op = 0; op < kNumOpKinds; ++op) {
    if (counts[op] > 0) absl::PrintF("  %s: %d\n", OpName(static_cast<OpKind>(op)), counts[op]);
  }
  const Parameters parameters = CountParameters(*graph);
  absl::PrintF("parameters: %s in %d tensor constants (%s bytes)\n", GroupedNumber(parameters.elements),
               parameters.tensors, GroupedNumber(parameters.bytes));
  const std::vector<NodeId> dead = DeadNodes(*graph);
  if (!dead.empty()) {
    absl::PrintF("unused, dropped from the plan (no output depends on them):\n");
    constexpr size_t kListed = 20;
    for (size_t i = 0; i < std::min(dead.size(), kListed); ++i) {
      const Node& node = graph->node(dead[i]);
      absl::PrintF("  %s: %s%s (%s)\n", node.name, DTypeName(node.dtype), DimsString(node.shape), OpName(node.op));
    }
    if (dead.size() > kListed) absl::PrintF("  ... and %d more\n", dead.size() - kListed);
  }
  return kExitOk;
}

}  // namespace kiln
