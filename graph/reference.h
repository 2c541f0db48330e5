// The reference interpreter: a plain, obviously-correct CPU evaluation of any
// valid graph. Every node's result is computed in double from its operands and
// rounded to the node's dtype, exactly as the IR defines the op. It is the
// oracle for every correctness test of generated kernels.
//
//   std::vector<HostTensor> inputs = ...;            // in graph.inputs() order
//   absl::StatusOr<std::vector<HostTensor>> outs = EvaluateReference(graph, inputs);
//   // (*outs)[i] is the value of graph.outputs()[i]
#ifndef KILN_GRAPH_REFERENCE_H_
#define KILN_GRAPH_REFERENCE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"

namespace kiln {

// Fails with InvalidArgument when the inputs do not match the graph's input
// nodes in count, dtype or shape. Intermediates are freed after their last use.
// Inputs must also hold values of their dtype (NaN is allowed for floats only).
// Reductions and matmul accumulate in double and round once; i32 arithmetic is
// double arithmetic rounded like a cast (truncation, saturation at the limits).
absl::StatusOr<std::vector<HostTensor>> EvaluateReference(const Graph& graph,
                                                          absl::Span<const HostTensor> inputs);

// Applies an elementwise op to operand values already read at one index:
// the single definition of each op's math, shared with other CPU code.
// The result is rounded to `node.dtype`, so it is the node's stored value.
double ApplyElementwise(const Node& node, absl::Span<const double> operands);

// The largest relative L2 error ||out - ref|| / ||ref|| a compiled graph may
// show against EvaluateReference: 1e-5 when all values are f32 (or integer),
// 1e-2 when any node is f16 or bf16 (kernels keep f32 between nodes, the
// reference rounds every node).
double CheckTolerance(const Graph& graph);

}  // namespace kiln

#endif  // KILN_GRAPH_REFERENCE_H_
