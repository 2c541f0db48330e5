#include "graph/graph.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "graph/infer.h"

namespace kiln {

std::string NodeLabel(absl::string_view name, OpKind op) {
  return absl::StrCat("node \"", absl::CEscape(name), "\" (", OpName(op), ")");
}

std::string NodeLabel(const Node& node) { return NodeLabel(node.name, node.op); }

absl::Status ValidateNodeName(absl::string_view name) {
  if (name.empty()) return absl::InvalidArgumentError("a node has an empty name");
  if (name.size() > 128) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node name \"", absl::CEscape(name.substr(0, 32)), "...\" is longer than 128 characters"));
  }
  for (char c : name) {
    const bool allowed = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                         c == '.' || c == '-' || c == '/' || c == ':';
    if (!allowed) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node name \"", absl::CEscape(name), "\" contains '", absl::CEscape(std::string(1, c)),
          "'; names use only letters, digits and _ . - / :"));
    }
  }
  return absl::OkStatus();
}

NodeSpec SpecOf(const Node& node) {
  NodeSpec spec{.name = node.name, .op = node.op, .operands = node.operands, .dtype = node.dtype,
                .value = node.value, .data = node.data, .axes = node.axes, .keepdims = node.keepdims,
                .perm = node.perm, .starts = node.starts, .steps = node.steps};
  const OpFamily family = OpFamilyOf(node.op);
  if (family == OpFamily::kInput || family == OpFamily::kReshape || family == OpFamily::kSlice ||
      family == OpFamily::kIota || IsTensorConstant(node)) {
    spec.shape = node.shape;
  }
  return spec;
}

absl::StatusOr<NodeId> Graph::AddNode(NodeSpec spec) {
  if (static_cast<int64_t>(nodes_.size()) >= kMaxNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph exceeds the limit of ", kMaxNodes, " nodes"));
  }
  if (absl::Status s = ValidateNodeName(spec.name); !s.ok()) return s;
  if (by_name_.contains(spec.name)) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(spec.name, spec.op), ": name is already used by another node"));
  }
  std::vector<const Node*> operands;
  for (NodeId id : spec.operands) {
    if (id < 0 || id >= size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(spec.name, spec.op), ": operand id ", id, " does not name an earlier node"));
    }
    operands.push_back(&nodes_[id]);
  }
  absl::StatusOr<Node> node = InferNode(std::move(spec), operands);
  if (!node.ok()) return node.status();
  const NodeId id = size();
  by_name_.emplace(node->name, id);
  nodes_.push_back(*std::move(node));
  return id;
}

absl::Status Graph::SetOutputs(std::vector<NodeId> outputs) {
  if (outputs.empty()) return absl::InvalidArgumentError("graph has no outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NodeId id = outputs[i];
    if (id < 0 || id >= size()) {
      return absl::InvalidArgumentError(absl::StrCat("output id ", id, " does not name a node"));
    }
    for (size_t j = 0; j < i; ++j) {
      if (outputs[j] == id) {
        return absl::InvalidArgumentError(
            absl::StrCat(NodeLabel(nodes_[id]), " is listed as an output twice"));
      }
    }
  }
  outputs_ = std::move(outputs);
  return absl::OkStatus();
}

absl::Status Graph::RenameNode(NodeId id, std::string name) {
  if (id < 0 || id >= size()) {
    return absl::InvalidArgumentError(absl::StrCat("node id ", id, " does not name a node"));
  }
  Node& node = nodes_[id];
  if (name == node.name) return absl::OkStatus();
  if (absl::Status s = ValidateNodeName(name); !s.ok()) return s;
  if (by_name_.contains(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot rename ", NodeLabel(node), " to \"", name, "\": the name is already used"));
  }
  by_name_.erase(node.name);
  by_name_.emplace(name, id);
  node.name = std::move(name);
  return absl::OkStatus();
}

std::vector<NodeId> Graph::inputs() const {
  std::vector<NodeId> result;
  for (NodeId id = 0; id < size(); ++id) {
    if (nodes_[id].op == OpKind::kInput) result.push_back(id);
  }
  return result;
}

absl::StatusOr<NodeId> Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    return absl::NotFoundError(absl::StrCat("no node named \"", absl::CEscape(name), "\""));
  }
  return it->second;
}

std::vector<std::vector<NodeId>> Graph::Users() const {
  std::vector<std::vector<NodeId>> users(nodes_.size());
  for (NodeId id = 0; id < size(); ++id) {
    for (NodeId operand : nodes_[id].operands) users[operand].push_back(id);
  }
  return users;
}

}  // namespace kiln
