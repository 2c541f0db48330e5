#include "graph/op.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace kiln {
namespace {

struct OpEntry {
  OpKind op;
  absl::string_view name;
  OpFamily family;
};

constexpr OpEntry kOps[] = {
    {OpKind::kInput, "input", OpFamily::kInput},
    {OpKind::kConstant, "constant", OpFamily::kConstant},
    {OpKind::kNeg, "neg", OpFamily::kUnary},
    {OpKind::kAbs, "abs", OpFamily::kUnary},
    {OpKind::kExp, "exp", OpFamily::kUnary},
    {OpKind::kLog, "log", OpFamily::kUnary},
    {OpKind::kTanh, "tanh", OpFamily::kUnary},
    {OpKind::kErf, "erf", OpFamily::kUnary},
    {OpKind::kSqrt, "sqrt", OpFamily::kUnary},
    {OpKind::kRsqrt, "rsqrt", OpFamily::kUnary},
    {OpKind::kSigmoid, "sigmoid", OpFamily::kUnary},
    {OpKind::kRelu, "relu", OpFamily::kUnary},
    {OpKind::kReciprocal, "reciprocal", OpFamily::kUnary},
    {OpKind::kAdd, "add", OpFamily::kBinary},
    {OpKind::kSub, "sub", OpFamily::kBinary},
    {OpKind::kMul, "mul", OpFamily::kBinary},
    {OpKind::kDiv, "div", OpFamily::kBinary},
    {OpKind::kMax, "max", OpFamily::kBinary},
    {OpKind::kMin, "min", OpFamily::kBinary},
    {OpKind::kPow, "pow", OpFamily::kBinary},
    {OpKind::kEq, "eq", OpFamily::kCompare},
    {OpKind::kNe, "ne", OpFamily::kCompare},
    {OpKind::kLt, "lt", OpFamily::kCompare},
    {OpKind::kLe, "le", OpFamily::kCompare},
    {OpKind::kGt, "gt", OpFamily::kCompare},
    {OpKind::kGe, "ge", OpFamily::kCompare},
    {OpKind::kSelect, "select", OpFamily::kSelect},
    {OpKind::kCast, "cast", OpFamily::kCast},
    {OpKind::kReduceSum, "reduce_sum", OpFamily::kReduce},
    {OpKind::kReduceMax, "reduce_max", OpFamily::kReduce},
    {OpKind::kReduceMin, "reduce_min", OpFamily::kReduce},
    {OpKind::kReduceMean, "reduce_mean", OpFamily::kReduce},
    {OpKind::kMatmul, "matmul", OpFamily::kMatmul},
    {OpKind::kReshape, "reshape", OpFamily::kReshape},
    {OpKind::kTranspose, "transpose", OpFamily::kTranspose},
    {OpKind::kSlice, "slice", OpFamily::kSlice},
    {OpKind::kIota, "iota", OpFamily::kIota},
};
static_assert(std::size(kOps) == kNumOpKinds);

const OpEntry& Entry(OpKind op) { return kOps[static_cast<int>(op)]; }

}  // namespace

absl::string_view OpName(OpKind op) { return Entry(op).name; }

absl::StatusOr<OpKind> ParseOpKind(absl::string_view name) {
  for (const OpEntry& entry : kOps) {
    if (entry.name == name) return entry.op;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown op \"", absl::CEscape(name), "\""));
}

OpFamily OpFamilyOf(OpKind op) { return Entry(op).family; }

int OpArity(OpKind op) {
  switch (OpFamilyOf(op)) {
    case OpFamily::kInput:
    case OpFamily::kConstant:
    case OpFamily::kIota: return 0;
    case OpFamily::kUnary:
    case OpFamily::kCast:
    case OpFamily::kReduce:
    case OpFamily::kReshape:
    case OpFamily::kTranspose:
    case OpFamily::kSlice: return 1;
    case OpFamily::kBinary:
    case OpFamily::kCompare:
    case OpFamily::kMatmul: return 2;
    case OpFamily::kSelect: return 3;
  }
  return 0;
}

bool IsElementwise(OpKind op) {
  switch (OpFamilyOf(op)) {
    case OpFamily::kUnary:
    case OpFamily::kBinary:
    case OpFamily::kCompare:
    case OpFamily::kSelect:
    case OpFamily::kCast: return true;
    default: return false;
  }
}

}  // namespace kiln
