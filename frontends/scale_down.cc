#include "frontends/scale_down.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/tensor_bytes.h"

namespace kiln {
namespace {

Dims Capped(const Dims& dims, int64_t max_dim) {
  Dims capped;
  for (int64_t d : dims) capped.push_back(std::min(d, max_dim));
  return capped;
}

// The leading block of a tensor constant: element i of each capped dim is
// element i of the original dim.
ConstantData LeadingBlock(const Node& node, const Dims& shape) {
  const HostTensor full = DecodeTensor(*node.data, node.dtype, node.shape);
  const std::vector<int64_t> strides = RowMajorStrides(node.shape);
  HostTensor block{.dtype = node.dtype, .shape = shape};
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < NumElements(shape); ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d) offset += index[d] * strides[d];
    block.data.push_back(full.data[offset]);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return std::make_shared<const std::string>(EncodeTensor(block));
}

}  // namespace

absl::StatusOr<Graph> ScaleDownGraph(const Graph& graph, int64_t max_dim) {
  if (max_dim < 1) {
    return absl::InvalidArgumentError(absl::StrCat("max_dim must be at least 1, got ", max_dim));
  }
  Graph scaled;
  // Node ids stay the same: nodes are added in the same order.
  for (const Node& node : graph.nodes()) {
    NodeSpec spec = SpecOf(node);
    spec.shape = Capped(spec.shape, max_dim);
    if (IsTensorConstant(node) && spec.shape != node.shape) spec.data = LeadingBlock(node, spec.shape);
    absl::StatusOr<NodeId> id = scaled.AddNode(std::move(spec));
    if (!id.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot scale dims down to at most ", max_dim,
                                                     ": ", id.status().message()));
    }
  }
  if (absl::Status s = scaled.SetOutputs(graph.outputs()); !s.ok()) return s;
  return scaled;
}

}  // namespace kiln
