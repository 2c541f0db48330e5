// The operations of the kiln IR, their names and their families.
//
//   OpName(OpKind::kReduceSum)   -> "reduce_sum"
//   ParseOpKind("tanh")          -> OpKind::kTanh
//   OpFamilyOf(OpKind::kAdd)     -> OpFamily::kBinary
#ifndef KILN_GRAPH_OP_H_
#define KILN_GRAPH_OP_H_

#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace kiln {

enum class OpKind : uint8_t {
  kInput,
  kConstant,
  // unary
  kNeg, kAbs, kExp, kLog, kTanh, kErf, kSqrt, kRsqrt, kSigmoid, kRelu, kReciprocal,
  // binary, NumPy broadcasting
  kAdd, kSub, kMul, kDiv, kMax, kMin, kPow,
  // comparisons, result bool
  kEq, kNe, kLt, kLe, kGt, kGe,
  kSelect,  // select(cond, on_true, on_false), broadcasting
  kCast,
  // reductions over a set of axes
  kReduceSum, kReduceMax, kReduceMin, kReduceMean,
  kMatmul,   // [M,K]x[K,N] or batched [B,M,K]x[B,K,N]
  kReshape,  // a view of a contiguous tensor
  kTranspose,
  kSlice,    // a strided window of the operand: slices, splits and broadcasts
  kIota,     // each element's index along one axis: positions for masks, computed, never stored
};

inline constexpr int kNumOpKinds = static_cast<int>(OpKind::kIota) + 1;

enum class OpFamily : uint8_t {
  kInput, kConstant, kUnary, kBinary, kCompare, kSelect, kCast, kReduce, kMatmul, kReshape, kTranspose,
  kSlice, kIota,
};

absl::string_view OpName(OpKind op);
absl::StatusOr<OpKind> ParseOpKind(absl::string_view name);
OpFamily OpFamilyOf(OpKind op);

// Number of operands the op takes.
int OpArity(OpKind op);

// Elementwise ops: unary, binary, compare, select and cast. Each output element
// depends only on the operand elements at the same (broadcast) index.
bool IsElementwise(OpKind op);

}  // namespace kiln

#endif  // KILN_GRAPH_OP_H_
