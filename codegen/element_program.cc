#include "codegen/element_program.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/expr_emitter.h"
#include "fusion/op_class.h"
#include "graph/precision.h"

namespace kiln {

ElementProgram::ElementProgram(const Graph& graph, const std::vector<NodeId>& members,
                               ExternalLoader external)
    : graph_(graph), members_(members.begin(), members.end()), sixteen_bit_bound_(kiln::SixteenBitBound(graph)),
      external_(std::move(external)) {}

absl::Status ElementProgram::Emit(const std::vector<NodeId>& targets,
                                  absl::flat_hash_map<NodeId, std::string>& known, std::string& code,
                                  absl::string_view indent) const {
  // Collect the in-kernel nodes still to compute, then emit them in
  // topological (id) order.
  std::vector<NodeId> needed;
  absl::flat_hash_set<NodeId> seen;
  std::vector<NodeId> stack(targets.begin(), targets.end());
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    if (known.contains(n) || !members_.contains(n) || !seen.insert(n).second) continue;
    needed.push_back(n);
    for (NodeId p : graph_.node(n).operands) stack.push_back(p);
  }
  std::sort(needed.begin(), needed.end());
  for (NodeId n : needed) {
    const Node& node = graph_.node(n);
    if (ClassifyNode(graph_, n) != OpClass::kElementwise) {
      return absl::InternalError(absl::StrCat(NodeLabel(node), " must be known before element code uses it"));
    }
    std::vector<std::string> operands;
    std::vector<const Node*> operand_nodes;
    for (NodeId p : node.operands) {
      const Node& operand = graph_.node(p);
      operand_nodes.push_back(&operand);
      if (IsScalarConstant(operand)) {
        operands.push_back(Literal(operand.dtype, operand.value));
      } else if (auto it = known.find(p); it != known.end()) {
        operands.push_back(it->second);
      } else {
        // Read once per element even when several nodes use it.
        const std::string var = absl::StrCat("e", p);
        absl::StrAppend(&code, indent, "const ", ValueType(operand.dtype), " ", var, " = ",
                        external_(p, n), ";\n");
        known[p] = var;
        operands.push_back(var);
      }
    }
    absl::StatusOr<std::string> expr = ElementwiseExpr(node, operands, operand_nodes, sixteen_bit_bound_[n]);
    if (auto it = reciprocals_.find(n); it != reciprocals_.end()) expr = absl::StrCat("(", operands[0], " * ", it->second, ")");
    if (!expr.ok()) return expr.status();
    const std::string var = absl::StrCat("v", n);
    absl::StrAppend(&code, indent, "const ", ValueType(node.dtype), " ", var, " = ", *expr, ";\n");
    known[n] = var;
  }
  for (NodeId t : targets) {
    if (!known.contains(t)) {
      if (!members_.contains(t)) {
        known[t] = external_(t, t);
      } else {
        return absl::InternalError(absl::StrCat(NodeLabel(graph_.node(t)), " was not computed"));
      }
    }
  }
  return absl::OkStatus();
}

void ElementProgram::MultiplyByReciprocal(NodeId div, std::string reciprocal) {
  reciprocals_[div] = std::move(reciprocal);
}

}  // namespace kiln
