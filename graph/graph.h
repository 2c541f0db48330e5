// The kiln IR: a graph of nodes in topological order, each producing one
// tensor value with a dtype and a static shape.
//
//   Graph g;
//   NodeId x = *g.AddNode({.name = "x", .op = OpKind::kInput,
//                          .dtype = DType::kF32, .shape = {1024, 1024}});
//   NodeId y = *g.AddNode({.name = "y", .op = OpKind::kTanh, .operands = {x}});
//   ABSL_CHECK_OK(g.SetOutputs({y}));
//
// AddNode infers the node's dtype and shape from its operands and rejects
// anything invalid with an error naming the node, so a Graph built through it
// is valid at every step. Operands must already exist, which makes cycles
// impossible by construction.
#ifndef KILN_GRAPH_GRAPH_H_
#define KILN_GRAPH_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/op.h"
#include "graph/shape.h"

namespace kiln {

using NodeId = int32_t;

// The most nodes one graph may hold; a file claiming more is refused early.
inline constexpr int64_t kMaxNodes = 1 << 22;

// A tensor constant's elements as EncodeTensor writes them
// (graph/tensor_bytes.h), shared by every copy of a graph so that weights are
// stored once.
using ConstantData = std::shared_ptr<const std::string>;

// What a caller supplies for a new node. Fields an op does not use must stay
// at their defaults.
struct NodeSpec {
  std::string name;
  OpKind op = OpKind::kInput;
  std::vector<NodeId> operands;
  DType dtype = DType::kF32;   // input, constant, cast: the result dtype
  Dims shape;                  // input, tensor constant: its shape; reshape, slice: the result shape
  double value = 0.0;          // scalar constant: its value
  ConstantData data;           // tensor constant: its elements
  std::vector<int64_t> axes;   // reduce: axes, negative counts from the end
  bool keepdims = false;       // reduce: keep reduced axes as size 1
  std::vector<int64_t> perm;   // transpose: output dim i is operand dim perm[i]
  // slice: result index i of dim d reads operand index starts[d] + i * steps[d];
  // a step of 0 repeats one index (a broadcast).
  std::vector<int64_t> starts;
  std::vector<int64_t> steps;
};

struct Node {
  std::string name;
  OpKind op;
  std::vector<NodeId> operands;
  DType dtype;
  Dims shape;
  double value = 0.0;          // scalar constant, rounded to its dtype (f32 for floats)
  ConstantData data;           // tensor constant only
  std::vector<int64_t> axes;   // reduce: sorted, unique, non-negative
  bool keepdims = false;
  std::vector<int64_t> perm;
  std::vector<int64_t> starts;
  std::vector<int64_t> steps;
};

// A scalar constant is an immediate in generated code and costs no memory; a
// tensor constant (a weight, a bias, a mask) is read from memory like an input.
inline bool IsTensorConstant(const Node& node) { return node.op == OpKind::kConstant && node.data != nullptr; }
inline bool IsScalarConstant(const Node& node) { return node.op == OpKind::kConstant && node.data == nullptr; }
// Values kernels compute in registers from nothing but indices: scalar
// constants (immediates) and iota (each element's position). They take no
// memory and cost no traffic.
inline bool IsComputedSource(const Node& node) { return IsScalarConstant(node) || node.op == OpKind::kIota; }

class Graph {
 public:
  absl::StatusOr<NodeId> AddNode(NodeSpec spec);
  absl::Status SetOutputs(std::vector<NodeId> outputs);
  // Gives an existing node a new, valid and unused name.
  absl::Status RenameNode(NodeId id, std::string name);

  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  int size() const { return static_cast<int>(nodes_.size()); }
  const std::vector<NodeId>& outputs() const { return outputs_; }
  std::vector<NodeId> inputs() const;

  absl::StatusOr<NodeId> FindNode(absl::string_view name) const;

  // For each node, the nodes that use it as an operand (in node order, one
  // entry per use).
  std::vector<std::vector<NodeId>> Users() const;

 private:
  std::vector<Node> nodes_;
  std::vector<NodeId> outputs_;
  absl::flat_hash_map<std::string, NodeId> by_name_;
};

// The spec that reproduces `node` when added to a graph holding its operands:
// what the verifier re-infers, and what copies of a graph are built from.
NodeSpec SpecOf(const Node& node);

// `node "t4" (add)`: how every user-facing message names a node. The name is
// escaped so that quotes or control characters cannot garble the message.
std::string NodeLabel(const Node& node);
std::string NodeLabel(absl::string_view name, OpKind op);

// Names are 1 to 128 characters from letters, digits and `_ . - / :`, so they
// are safe in every report format and never reach generated code.
absl::Status ValidateNodeName(absl::string_view name);

}  // namespace kiln

#endif  // KILN_GRAPH_GRAPH_H_
