#include "codegen/expr_emitter.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cuda_types.h"

namespace kiln {

namespace {

// pow(x, n) for a constant n of 2, 3 or 4 as products of x, as compilers
// expand it: powf costs dozens of instructions (a GeLU epilogue's x^3 was
// most of its cost), and the products differ from the rounded power by at
// most an ulp per multiplication, with the same infinities and NaNs.
std::optional<std::string> SmallIntegerPower(const std::vector<std::string>& a, const Node& exponent) {
  if (!IsScalarConstant(exponent)) return std::nullopt;
  if (exponent.value == 2) return absl::StrCat("(", a[0], " * ", a[0], ")");
  if (exponent.value == 3) return absl::StrCat("(", a[0], " * ", a[0], " * ", a[0], ")");
  if (exponent.value == 4) return absl::StrCat("((", a[0], " * ", a[0], ") * (", a[0], " * ", a[0], "))");
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::string> ElementwiseExpr(const Node& node, const std::vector<std::string>& a,
                                            const std::vector<const Node*>& operand_nodes,
                                            bool sixteen_bit_bound) {
  const bool is_int = node.dtype == DType::kI32;
  // What reaches the outputs only as 16-bit floats keeps 8 to 11 significant
  // bits, so the hardware's approximate exp and tanh (relative error about
  // 2^-11 and below) lose nothing it keeps, at a fraction of the cost: the
  // exact expf is nine instructions, and bf16 softmax [523, 128256] issued 34
  // instructions an element, 18 of them its two exps (ncu).
  if (is_int) {
    // Saturating, as the reference defines i32 arithmetic.
    switch (node.op) {
      case OpKind::kNeg: return absl::StrCat("kiln_neg_i32(", a[0], ")");
      case OpKind::kAbs: return absl::StrCat("kiln_abs_i32(", a[0], ")");
      case OpKind::kAdd: return absl::StrCat("kiln_add_i32(", a[0], ", ", a[1], ")");
      case OpKind::kSub: return absl::StrCat("kiln_sub_i32(", a[0], ", ", a[1], ")");
      case OpKind::kMul: return absl::StrCat("kiln_mul_i32(", a[0], ", ", a[1], ")");
      default: break;
    }
  }
  switch (node.op) {
    case OpKind::kNeg: return absl::StrCat("(-", a[0], ")");
    case OpKind::kAbs: return absl::StrCat("fabsf(", a[0], ")");
    case OpKind::kExp: return absl::StrCat(sixteen_bit_bound ? "__expf(" : "expf(", a[0], ")");
    case OpKind::kLog: return absl::StrCat("logf(", a[0], ")");
    case OpKind::kTanh: return absl::StrCat(sixteen_bit_bound ? "kiln_tanh_approx(" : "tanhf(", a[0], ")");
    case OpKind::kErf: return absl::StrCat("erff(", a[0], ")");
    case OpKind::kSqrt: return absl::StrCat("sqrtf(", a[0], ")");
    // 1/sqrt rather than rsqrtf: rsqrtf's 2-ulp error is not the op's meaning.
    case OpKind::kRsqrt: return absl::StrCat("(1.0f / sqrtf(", a[0], "))");
    case OpKind::kSigmoid: return absl::StrCat("kiln_sigmoid(", a[0], ")");
    case OpKind::kRelu: return absl::StrCat("kiln_relu(", a[0], ")");
    case OpKind::kReciprocal: return absl::StrCat("(1.0f / ", a[0], ")");
    case OpKind::kAdd: return absl::StrCat("(", a[0], " + ", a[1], ")");
    case OpKind::kSub: return absl::StrCat("(", a[0], " - ", a[1], ")");
    case OpKind::kMul: return absl::StrCat("(", a[0], " * ", a[1], ")");
    case OpKind::kDiv: return absl::StrCat("(", a[0], " / ", a[1], ")");
    case OpKind::kMax: return absl::StrCat("kiln_max(", a[0], ", ", a[1], ")");
    case OpKind::kMin: return absl::StrCat("kiln_min(", a[0], ", ", a[1], ")");
    case OpKind::kPow:
      return SmallIntegerPower(a, *operand_nodes[1]).value_or(absl::StrCat("powf(", a[0], ", ", a[1], ")"));
    case OpKind::kEq: return absl::StrCat("(", a[0], " == ", a[1], ")");
    case OpKind::kNe: return absl::StrCat("(", a[0], " != ", a[1], ")");
    case OpKind::kLt: return absl::StrCat("(", a[0], " < ", a[1], ")");
    case OpKind::kLe: return absl::StrCat("(", a[0], " <= ", a[1], ")");
    case OpKind::kGt: return absl::StrCat("(", a[0], " > ", a[1], ")");
    case OpKind::kGe: return absl::StrCat("(", a[0], " >= ", a[1], ")");
    case OpKind::kSelect: return absl::StrCat("(", a[0], " ? ", a[1], " : ", a[2], ")");
    case OpKind::kCast: {
      const DType from = operand_nodes[0]->dtype;
      switch (node.dtype) {
        case DType::kBool: return absl::StrCat("(", a[0], " != 0)");
        case DType::kI32:
          return IsFloat(from) ? absl::StrCat("__float2int_rz(", a[0], ")")
                               : absl::StrCat("static_cast<int>(", a[0], ")");
        case DType::kF32: return absl::StrCat("static_cast<float>(", a[0], ")");
        case DType::kF16: return absl::StrCat("kiln_round_f16(static_cast<float>(", a[0], "))");
        case DType::kBF16: return absl::StrCat("kiln_round_bf16(static_cast<float>(", a[0], "))");
      }
      break;
    }
    // A reduction reaches element code only over axes of size 1 (fusion's
    // IsUnitReduction): its value is its operand's. A sum or mean adds it to
    // 0, as the reference does, so that -0 gives +0 there too.
    case OpKind::kReduceSum:
    case OpKind::kReduceMean: return absl::StrCat("(", a[0], " + 0.0f)");
    case OpKind::kReduceMax:
    case OpKind::kReduceMin: return a[0];
    default: break;
  }
  return absl::InternalError(absl::StrCat(NodeLabel(node), " is not elementwise"));
}

std::string OperandAt(const Node& operand, absl::string_view input, absl::string_view index) {
  if (operand.op == OpKind::kIota) {
    const int64_t axis = operand.axes[0];
    const int64_t stride = RowMajorStrides(operand.shape)[axis];
    std::string position = absl::StrCat("(", index, ")");
    if (stride != 1) position = absl::StrCat("(", position, " / ", stride, ")");
    if (axis > 0) position = absl::StrCat("(", position, " % ", operand.shape[axis], ")");
    return absl::StrCat("static_cast<", ValueType(operand.dtype), ">(", position, ")");
  }
  return LoadConversion(operand.dtype, absl::StrCat(input, "[", index, "]"));
}

std::string BroadcastIndex(const Dims& operand, const Dims& result, absl::string_view index) {
  const std::vector<int64_t> strides = BroadcastStrides(operand, result);
  const std::vector<int64_t> result_strides = RowMajorStrides(result);
  if (operand == result) return std::string(index);
  std::vector<std::string> terms;
  for (size_t d = 0; d < result.size(); ++d) {
    if (strides[d] == 0 || result[d] == 1) continue;
    std::string coordinate = std::string(index);
    if (result_strides[d] != 1) coordinate = absl::StrCat("(", coordinate, " / ", result_strides[d], ")");
    if (d > 0) coordinate = absl::StrCat("(", coordinate, " % ", result[d], ")");
    terms.push_back(strides[d] == 1 ? coordinate : absl::StrCat(coordinate, " * ", strides[d]));
  }
  if (terms.empty()) return "0";
  return absl::StrCat("(", absl::StrJoin(terms, " + "), ")");
}

}  // namespace kiln
