#include "graph/resize_dim.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "graph/check.h"

namespace kiln {
namespace {

// Union-find over every (node, axis) of a graph: slot offset[node] + axis.
class TiedDims {
 public:
  explicit TiedDims(const Graph& graph) : graph_(graph) {
    for (const Node& node : graph.nodes()) {
      offset_.push_back(static_cast<int64_t>(parent_.size()));
      parent_.resize(parent_.size() + node.shape.size());
    }
    std::iota(parent_.begin(), parent_.end(), 0);
    for (NodeId n = 0; n < graph.size(); ++n) TieOperands(n);
  }

  bool Tied(NodeId a, size_t axis_a, NodeId b, size_t axis_b) {
    return Root(Slot(a, axis_a)) == Root(Slot(b, axis_b));
  }

 private:
  int64_t Slot(NodeId node, size_t axis) const { return offset_[node] + static_cast<int64_t>(axis); }
  int64_t Root(int64_t slot) {
    while (parent_[slot] != slot) slot = parent_[slot] = parent_[parent_[slot]];
    return slot;
  }
  void Tie(NodeId a, size_t axis_a, NodeId b, size_t axis_b) {
    parent_[Root(Slot(a, axis_a))] = Root(Slot(b, axis_b));
  }
  void TieOperands(NodeId n) {
    const Node& node = graph_.node(n);
    const size_t rank = node.shape.size();
    switch (OpFamilyOf(node.op)) {
      case OpFamily::kUnary:
      case OpFamily::kBinary:
      case OpFamily::kCompare:
      case OpFamily::kSelect:
      case OpFamily::kCast:
        for (NodeId o : node.operands) {
          const Dims& from = graph_.node(o).shape;
          for (size_t a = 0; a < from.size(); ++a) {
            const size_t r = a + rank - from.size();
            if (from[a] == node.shape[r]) Tie(o, a, n, r);
          }
        }
        break;
      case OpFamily::kReduce: {
        const NodeId o = node.operands[0];
        size_t r = 0;
        for (size_t a = 0; a < graph_.node(o).shape.size(); ++a) {
          const bool reduced = std::find(node.axes.begin(), node.axes.end(), static_cast<int64_t>(a)) != node.axes.end();
          if (!reduced) Tie(o, a, n, node.keepdims ? a : r);
          if (!reduced || node.keepdims) ++r;
        }
        break;
      }
      case OpFamily::kTranspose:
        for (size_t r = 0; r < rank; ++r) Tie(node.operands[0], static_cast<size_t>(node.perm[r]), n, r);
        break;
      case OpFamily::kMatmul: {
        const NodeId a = node.operands[0], b = node.operands[1];
        const size_t ra = graph_.node(a).shape.size(), rb = graph_.node(b).shape.size();
        Tie(a, ra - 2, n, rank - 2);  // M
        Tie(b, rb - 1, n, rank - 1);  // N
        Tie(a, ra - 1, b, rb - 2);    // K
        for (NodeId o : {a, b}) {
          const Dims& from = graph_.node(o).shape;
          for (size_t d = 0; d + 2 < from.size(); ++d) {
            const size_t r = d + (rank - 2) - (from.size() - 2);
            if (from[d] == node.shape[r]) Tie(o, d, n, r);
          }
        }
        break;
      }
      // Inputs and constants have no operands; reshapes, slices and iotas
      // write their shapes in the graph.
      default:
        break;
    }
  }

  const Graph& graph_;
  std::vector<int64_t> offset_;
  std::vector<int64_t> parent_;
};

}  // namespace

absl::StatusOr<Graph> ResizeDim(const Graph& graph, NodeId input, int axis, int64_t size) {
  KILN_CHECK(graph.node(input).op == OpKind::kInput);
  KILN_CHECK(axis >= 0 && static_cast<size_t>(axis) < graph.node(input).shape.size());
  KILN_CHECK(size >= 1);
  TiedDims tied(graph);
  Graph resized;
  for (NodeId n = 0; n < graph.size(); ++n) {
    NodeSpec spec = SpecOf(graph.node(n));
    // Only nodes whose spec states their shape take the size; the others
    // follow by inference.
    if (spec.op == OpKind::kInput || spec.op == OpKind::kIota) {
      for (size_t a = 0; a < spec.shape.size(); ++a) {
        if (tied.Tied(n, a, input, static_cast<size_t>(axis))) spec.shape[a] = size;
      }
    }
    absl::StatusOr<NodeId> id = resized.AddNode(std::move(spec));
    if (!id.ok()) return id.status();
  }
  if (absl::Status s = resized.SetOutputs(graph.outputs()); !s.ok()) return s;
  return resized;
}

}  // namespace kiln
