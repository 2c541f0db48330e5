// Emits the CUDA expression for one elementwise node, given the expressions of
// its operands (already register values), and the index arithmetic that
// reads a broadcast operand.
//
//   ElementwiseExpr(tanh_node, {"v3"})            -> "tanhf(v3)"
//   BroadcastIndex({1024}, {512, 1024}, "i")       -> "(i % 1024)"
#ifndef KILN_CODEGEN_EXPR_EMITTER_H_
#define KILN_CODEGEN_EXPR_EMITTER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace kiln {

// `operand_nodes` are the operands themselves (their dtypes; scalar constants
// may pick a cheaper exact form, as pow(x, 3) = x * x * x). A node that is
// `sixteen_bit_bound` (graph/precision.h) takes the hardware's approximate
// exp and tanh.
absl::StatusOr<std::string> ElementwiseExpr(const Node& node, const std::vector<std::string>& operands,
                                            const std::vector<const Node*>& operand_nodes,
                                            bool sixteen_bit_bound);

// The element offset into an operand of shape `operand` read at linear index
// `index` of a tensor of shape `result` (NumPy broadcasting). Its literals
// carry no suffix, so the arithmetic takes the index's own type: a 32-bit
// index keeps it in 32 bits (a `% 8191LL` widened every remainder of a
// 32-bit index to a 64-bit multiply-high sequence), and a literal beyond 32
// bits is 64-bit by itself.
std::string BroadcastIndex(const Dims& operand, const Dims& result, absl::string_view index);

// The value of an operand a kernel reads at flat index `index` of its own
// shape: a load from `input` converted to f32 (or int/bool), or, for an
// iota, its position computed from the index.
//   OperandAt(x_bf16, "in0", "i")      -> "kiln_bf16_to_f32(in0[i])"
//   OperandAt(iota [4,8] axis 1, "", "i") -> "static_cast<float>(((i) % 8))"
std::string OperandAt(const Node& operand, absl::string_view input, absl::string_view index);

}  // namespace kiln

#endif  // KILN_CODEGEN_EXPR_EMITTER_H_
