// Emits the straight-line code that computes a set of a kernel's nodes for one
// element, from values already known (loaded inputs, finished reductions).
//
//   ElementProgram program(graph, kernel_nodes, external_loader);
//   absl::flat_hash_map<NodeId, std::string> known = {{x, "x_value"}};
//   program.Emit({y}, consumer_index, known, code, "      ");
//   // code: "const float v3 = (x_value * x_value);\n ..." and known[y] == "v9"
#ifndef KILN_CODEGEN_ELEMENT_PROGRAM_H_
#define KILN_CODEGEN_ELEMENT_PROGRAM_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "graph/graph.h"

namespace kiln {

class ElementProgram {
 public:
  // `external(operand, consumer)` returns the expression that reads an operand
  // that is not computed by this kernel (an input or another kernel's output),
  // as read by `consumer`.
  using ExternalLoader = std::function<std::string(NodeId operand, NodeId consumer)>;

  ElementProgram(const Graph& graph, const std::vector<NodeId>& members, ExternalLoader external);

  // Appends statements computing `targets` and whatever they need that is not
  // in `known`; every node computed is added to `known`. Reductions must
  // already be known.
  absl::Status Emit(const std::vector<NodeId>& targets, absl::flat_hash_map<NodeId, std::string>& known,
                    std::string& code, absl::string_view indent) const;

  // From now on emits the float division `div` (computed in f32) as its numerator times
  // `reciprocal`, an expression of the divisor's reciprocal computed once
  // (per row, where the divisor is a row's reduction).
  void MultiplyByReciprocal(NodeId div, std::string reciprocal);

  // Whether `n` needs only a 16-bit float's precision (graph/precision.h).
  bool SixteenBitBound(NodeId n) const { return sixteen_bit_bound_[n]; }

 private:
  const Graph& graph_;
  absl::flat_hash_set<NodeId> members_;
  std::vector<bool> sixteen_bit_bound_;
  ExternalLoader external_;
  absl::flat_hash_map<NodeId, std::string> reciprocals_;
};

}  // namespace kiln

#endif  // KILN_CODEGEN_ELEMENT_PROGRAM_H_
