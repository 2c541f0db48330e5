#include "fusion/op_class.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln {
namespace {

// True when `axes` (sorted, unique) are exactly the last axes.size() of `rank`.
bool AreTrailing(const std::vector<int64_t>& axes, int64_t rank) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

OpClass ClassifyNode(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  switch (OpFamilyOf(node.op)) {
    case OpFamily::kInput:
    case OpFamily::kConstant:
    case OpFamily::kIota: return OpClass::kSource;
    case OpFamily::kReshape: return OpClass::kView;
    case OpFamily::kMatmul: return OpClass::kMatmul;
    case OpFamily::kTranspose: return OpClass::kTranspose;
    case OpFamily::kSlice: return OpClass::kSlice;
    case OpFamily::kReduce: {
      if (IsUnitReduction(graph, id)) return OpClass::kElementwise;
      const int64_t rank = static_cast<int64_t>(graph.node(node.operands[0]).shape.size());
      return AreTrailing(node.axes, rank) ? OpClass::kRowReduction : OpClass::kReduction;
    }
    default: return OpClass::kElementwise;
  }
}

bool IsUnitReduction(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  if (OpFamilyOf(node.op) != OpFamily::kReduce) return false;
  const Dims& operand = graph.node(node.operands[0]).shape;
  for (int64_t axis : node.axes) {
    if (operand[axis] != 1) return false;
  }
  return true;
}

std::string UnitReductionReason(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  return absl::StrCat(NodeLabel(node), " reduces axes [", absl::StrJoin(node.axes, ","), "] of ",
                      DimsString(graph.node(node.operands[0]).shape),
                      ", all of size 1: each result is the one element it reduces, so it is computed elementwise "
                      "(read once, written once) rather than as rows of 1 element");
}

NodeId ViewRoot(const Graph& graph, NodeId id) {
  while (ClassifyNode(graph, id) == OpClass::kView) id = graph.node(id).operands[0];
  return id;
}

std::optional<RowGeometry> RowGeometryOf(const Graph& graph, NodeId id) {
  if (ClassifyNode(graph, id) != OpClass::kRowReduction) return std::nullopt;
  const Node& node = graph.node(id);
  RowGeometry geometry;
  geometry.full_shape = graph.node(node.operands[0]).shape;
  geometry.row_shape = geometry.full_shape;
  geometry.rows = 1;
  geometry.row_length = 1;
  const size_t first_reduced = geometry.full_shape.size() - node.axes.size();
  for (size_t i = 0; i < geometry.full_shape.size(); ++i) {
    if (i >= first_reduced) {
      geometry.row_length *= geometry.full_shape[i];
      geometry.row_shape[i] = 1;
    } else {
      geometry.rows *= geometry.full_shape[i];
      geometry.reduced_shape.push_back(geometry.full_shape[i]);
    }
  }
  return geometry;
}

}  // namespace kiln
