#include "graph/verifier.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/infer.h"

namespace kiln {

absl::Status VerifyGraph(const Graph& graph) {
  absl::flat_hash_set<absl::string_view> names;
  for (NodeId id = 0; id < graph.size(); ++id) {
    const Node& node = graph.node(id);
    if (absl::Status s = ValidateNodeName(node.name); !s.ok()) return s;
    if (!names.insert(node.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(NodeLabel(node), ": name is already used by another node"));
    }
    std::vector<const Node*> operands;
    for (NodeId operand : node.operands) {
      if (operand < 0 || operand >= id) {
        return absl::InvalidArgumentError(absl::StrCat(
            NodeLabel(node), ": operand id ", operand, " does not precede it (cycle or dangling)"));
      }
      operands.push_back(&graph.node(operand));
    }
    // Re-running inference on the stored attributes must reproduce the node.
    absl::StatusOr<Node> inferred = InferNode(SpecOf(node), operands);
    if (!inferred.ok()) return inferred.status();
    if (inferred->dtype != node.dtype || inferred->shape != node.shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node), ": recorded type ", DTypeName(node.dtype), DimsString(node.shape),
          " differs from the inferred ", DTypeName(inferred->dtype), DimsString(inferred->shape)));
    }
  }
  if (graph.outputs().empty()) return absl::InvalidArgumentError("graph has no outputs");
  for (NodeId output : graph.outputs()) {
    if (output < 0 || output >= graph.size()) {
      return absl::InvalidArgumentError(absl::StrCat("output id ", output, " does not name a node"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kiln
