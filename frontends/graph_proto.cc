#include "frontends/graph_proto.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln {
namespace {

proto::DType ToProtoDType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return proto::F32;
    case DType::kF16: return proto::F16;
    case DType::kBF16: return proto::BF16;
    case DType::kBool: return proto::BOOL;
    case DType::kI32: return proto::I32;
  }
  return proto::DTYPE_UNSPECIFIED;
}

bool UsesDType(OpFamily family) {
  return family == OpFamily::kInput || family == OpFamily::kConstant || family == OpFamily::kCast ||
         family == OpFamily::kIota;
}

bool UsesShape(const Node& node) {
  const OpFamily family = OpFamilyOf(node.op);
  return family == OpFamily::kInput || family == OpFamily::kReshape || family == OpFamily::kSlice ||
         family == OpFamily::kIota || IsTensorConstant(node);
}

// Tensor constants and slices came with format_version 2.
bool NeedsVersion2(const Node& node) { return IsTensorConstant(node) || node.op == OpKind::kSlice; }

// A user-supplied name inside a message: escaped, and cut short so that a
// hostile file cannot blow up the message. Node names that passed
// ValidateNodeName go through NodeLabel instead.
std::string QuotedName(absl::string_view name) {
  constexpr size_t kMaxShown = 64;
  if (name.size() <= kMaxShown) return absl::StrCat("\"", absl::CEscape(name), "\"");
  return absl::StrCat("\"", absl::CEscape(name.substr(0, kMaxShown)), "...\"");
}

absl::Status NodeError(const proto::NodeProto& node, OpKind op, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(NodeLabel(node.name(), op), ": ", problem));
}

// The NodeSpec of a file node, without its operands. Rejects fields the op
// does not use, so that nothing in a file is silently dropped.
absl::StatusOr<NodeSpec> SpecFromProto(const proto::NodeProto& node, OpKind op, uint32_t version) {
  const OpFamily family = OpFamilyOf(op);
  NodeSpec spec{.name = node.name(), .op = op};
  if (version < 2 && ((family == OpFamily::kConstant && !node.data().empty()) || op == OpKind::kSlice)) {
    return NodeError(node, op, absl::StrCat(op == OpKind::kSlice ? "slices" : "tensor constants",
                                            " need format_version 2; the file says ", version));
  }
  if (UsesDType(family)) {
    switch (node.dtype()) {
      case proto::F32: spec.dtype = DType::kF32; break;
      case proto::F16: spec.dtype = DType::kF16; break;
      case proto::BF16: spec.dtype = DType::kBF16; break;
      case proto::BOOL: spec.dtype = DType::kBool; break;
      case proto::I32: spec.dtype = DType::kI32; break;
      case proto::DTYPE_UNSPECIFIED:
        return NodeError(node, op, "dtype is required for inputs, constants and casts");
      default:
        return NodeError(node, op, absl::StrCat("unknown dtype ", static_cast<int>(node.dtype())));
    }
  } else if (node.dtype() != proto::DTYPE_UNSPECIFIED) {
    return NodeError(node, op, "dtype is only given for inputs, constants and casts");
  }
  if (family != OpFamily::kConstant && (node.value() != 0.0 || std::signbit(node.value()))) {
    return NodeError(node, op, "value is only for constants");
  }
  if (family != OpFamily::kReduce && node.keepdims()) {
    return NodeError(node, op, "keepdims is only for reductions");
  }
  spec.shape.assign(node.shape().begin(), node.shape().end());
  spec.value = node.value();
  spec.axes.assign(node.axes().begin(), node.axes().end());
  spec.keepdims = node.keepdims();
  spec.perm.assign(node.perm().begin(), node.perm().end());
  spec.starts.assign(node.starts().begin(), node.starts().end());
  spec.steps.assign(node.steps().begin(), node.steps().end());
  if (!node.data().empty()) spec.data = std::make_shared<const std::string>(node.data());
  return spec;
}

// `cycle through nodes "a" -> "b" -> "a"`, in data-flow order, starting at the
// cycle's first node in file order. `placed` marks the nodes that the
// topological sort could order; every other node has an unplaced operand, so
// following unplaced operands from any of them must come back to a node seen
// before.
absl::Status CycleError(const proto::GraphProto& graph, const std::vector<std::vector<int>>& operands,
                        const std::vector<bool>& placed) {
  const int start = static_cast<int>(std::find(placed.begin(), placed.end(), false) - placed.begin());
  std::vector<int> position(placed.size(), -1);
  std::vector<int> path;
  int current = start;
  while (position[current] < 0) {
    position[current] = static_cast<int>(path.size());
    path.push_back(current);
    for (int operand : operands[current]) {
      if (!placed[operand]) {
        current = operand;
        break;
      }
    }
  }
  // path[i] uses path[i + 1]: reversed, the values flow from one to the next.
  std::vector<int> cycle(path.begin() + position[current], path.end());
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  cycle.push_back(cycle.front());

  constexpr size_t kMaxListed = 16;
  std::vector<std::string> names;
  for (size_t i = 0; i < cycle.size(); ++i) {
    if (cycle.size() > kMaxListed && i == kMaxListed / 2) {
      names.push_back("...");
      i = cycle.size() - 1;
    }
    names.push_back(QuotedName(graph.node(cycle[i]).name()));
  }
  std::string message = absl::StrCat("cycle through nodes ", absl::StrJoin(names, " -> "));
  if (cycle.size() > kMaxListed) absl::StrAppend(&message, " (", cycle.size() - 1, " nodes)");
  return absl::InvalidArgumentError(message);
}

// Kahn's algorithm; among the nodes whose operands are all placed, the one
// earliest in the file goes first, so a file already in order keeps it.
absl::StatusOr<std::vector<int>> TopologicalOrder(const proto::GraphProto& graph,
                                                  const std::vector<std::vector<int>>& operands) {
  const int n = graph.node_size();
  std::vector<int> unplaced_operands(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int i = 0; i < n; ++i) {
    for (int operand : operands[i]) {
      users[operand].push_back(i);
      ++unplaced_operands[i];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i) {
    if (unplaced_operands[i] == 0) ready.push(i);
  }
  std::vector<int> order;
  order.reserve(n);
  std::vector<bool> placed(n, false);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    placed[i] = true;
    for (int user : users[i]) {
      if (--unplaced_operands[user] == 0) ready.push(user);
    }
  }
  if (static_cast<int>(order.size()) < n) return CycleError(graph, operands, placed);
  return order;
}

}  // namespace

proto::GraphProto ToProto(const Graph& graph) {
  proto::GraphProto graph_proto;
  graph_proto.set_format_version(
      std::any_of(graph.nodes().begin(), graph.nodes().end(), NeedsVersion2) ? 2 : 1);
  graph_proto.mutable_node()->Reserve(graph.size());
  for (const Node& node : graph.nodes()) {
    proto::NodeProto* node_proto = graph_proto.add_node();
    node_proto->set_name(node.name);
    node_proto->set_op(std::string(OpName(node.op)));
    for (NodeId operand : node.operands) node_proto->add_operand(graph.node(operand).name);
    const OpFamily family = OpFamilyOf(node.op);
    if (UsesDType(family)) node_proto->set_dtype(ToProtoDType(node.dtype));
    if (UsesShape(node)) node_proto->mutable_shape()->Add(node.shape.begin(), node.shape.end());
    if (IsScalarConstant(node)) node_proto->set_value(node.value);
    if (IsTensorConstant(node)) node_proto->set_data(*node.data);
    if (family == OpFamily::kReduce) {
      node_proto->mutable_axes()->Add(node.axes.begin(), node.axes.end());
      node_proto->set_keepdims(node.keepdims);
    }
    if (family == OpFamily::kIota) node_proto->mutable_axes()->Add(node.axes.begin(), node.axes.end());
    if (family == OpFamily::kTranspose) {
      node_proto->mutable_perm()->Add(node.perm.begin(), node.perm.end());
    }
    if (family == OpFamily::kSlice) {
      node_proto->mutable_starts()->Add(node.starts.begin(), node.starts.end());
      node_proto->mutable_steps()->Add(node.steps.begin(), node.steps.end());
    }
  }
  for (NodeId output : graph.outputs()) graph_proto.add_output(graph.node(output).name);
  return graph_proto;
}

absl::StatusOr<Graph> FromProto(const proto::GraphProto& graph_proto) {
  if (graph_proto.format_version() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "graph has no format_version; this kiln reads version ", kGraphFormatVersion));
  }
  if (graph_proto.format_version() > kGraphFormatVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "graph has format_version ", graph_proto.format_version(),
        ", newer than the version ", kGraphFormatVersion, " this kiln reads; upgrade kiln"));
  }
  // Before any per-node work, so that a huge claim costs nothing more.
  const int n = graph_proto.node_size();
  if (n > kMaxNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph has ", n, " nodes, more than the limit of ", kMaxNodes));
  }
  if (graph_proto.output_size() == 0) return absl::InvalidArgumentError("graph has no outputs");

  std::vector<OpKind> ops(n);
  absl::flat_hash_map<absl::string_view, int> index_of;
  index_of.reserve(n);
  for (int i = 0; i < n; ++i) {
    const proto::NodeProto& node = graph_proto.node(i);
    if (absl::Status s = ValidateNodeName(node.name()); !s.ok()) return s;
    absl::StatusOr<OpKind> op = ParseOpKind(node.op());
    if (!op.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node ", QuotedName(node.name()), ": ", op.status().message()));
    }
    ops[i] = *op;
    if (!index_of.emplace(node.name(), i).second) {
      return NodeError(node, *op, "name is already used by another node");
    }
  }

  std::vector<NodeSpec> specs;
  specs.reserve(n);
  std::vector<std::vector<int>> operands(n);
  for (int i = 0; i < n; ++i) {
    const proto::NodeProto& node = graph_proto.node(i);
    for (const std::string& name : node.operand()) {
      auto it = index_of.find(name);
      if (it == index_of.end()) {
        return NodeError(node, ops[i], absl::StrCat("operand ", QuotedName(name), " is not defined"));
      }
      operands[i].push_back(it->second);
    }
    absl::StatusOr<NodeSpec> spec = SpecFromProto(node, ops[i], graph_proto.format_version());
    if (!spec.ok()) return spec.status();
    specs.push_back(*std::move(spec));
  }

  std::vector<int> output_indices;
  for (const std::string& name : graph_proto.output()) {
    auto it = index_of.find(name);
    if (it == index_of.end()) {
      return absl::InvalidArgumentError(absl::StrCat("output ", QuotedName(name), " names no node"));
    }
    output_indices.push_back(it->second);
  }

  absl::StatusOr<std::vector<int>> order = TopologicalOrder(graph_proto, operands);
  if (!order.ok()) return order.status();
  Graph graph;
  std::vector<NodeId> id_of(n, -1);
  for (int i : *order) {
    for (int operand : operands[i]) specs[i].operands.push_back(id_of[operand]);
    absl::StatusOr<NodeId> id = graph.AddNode(std::move(specs[i]));
    if (!id.ok()) return id.status();
    id_of[i] = *id;
  }
  std::vector<NodeId> outputs;
  for (int i : output_indices) outputs.push_back(id_of[i]);
  if (absl::Status s = graph.SetOutputs(std::move(outputs)); !s.ok()) return s;
  return graph;
}

}  // namespace kiln
