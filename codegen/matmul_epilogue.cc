#include "codegen/matmul_epilogue.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cuda_types.h"
#include "codegen/element_program.h"
#include "codegen/expr_emitter.h"

namespace kiln {
namespace {

// The matrix index an operand with batch dims `own` (right-aligned, 1 where
// it broadcasts) reads for the output batch `batch` over `dims`.
std::string OperandBatch(const Dims& dims, const Dims& own, absl::string_view batch) {
  if (own == dims) return std::string(batch);
  std::vector<std::string> terms;
  int64_t out_stride = 1, own_stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    if (own[d] != 1) {
      terms.push_back(absl::StrCat("(", batch, " / ", out_stride, " % ", dims[d], ") * ", own_stride));
    }
    out_stride *= dims[d];
    own_stride *= own[d];
  }
  return terms.empty() ? "0" : absl::StrJoin(terms, " + ");
}

// The matmul's own value as the reference defines it: rounded to its dtype.
std::string RoundedAccumulator(DType dtype, absl::string_view acc) {
  switch (dtype) {
    case DType::kBF16: return absl::StrCat("kiln_round_bf16(", acc, ")");
    case DType::kF16: return absl::StrCat("kiln_round_f16(", acc, ")");
    default: return std::string(acc);
  }
}

}  // namespace

MatmulEpilogue::MatmulEpilogue(const Graph& graph, const Kernel& kernel, const KernelSignature& signature)
    : graph_(graph), kernel_(kernel), signature_(signature) {}

std::string MatmulEpilogue::BatchPolicy(absl::string_view name, bool swapped) const {
  const MatmulSchedule& s = kernel_.matmul();
  const MatmulOperand& a = swapped ? s.b : s.a;
  const MatmulOperand& b = swapped ? s.a : s.b;
  return absl::StrCat("struct ", name, " {\n  static __device__ __forceinline__ int a(int batch) { return ",
                      OperandBatch(s.batch_dims, a.batch_dims, "batch"),
                      "; }\n  static __device__ __forceinline__ int b(int batch) { return ",
                      OperandBatch(s.batch_dims, b.batch_dims, "batch"), "; }\n};\n");
}

std::string CoordinateIndex(const Dims& operand, const Dims& out, int64_t kernel_rows, const ElementCoordinates& at) {
  if (operand == out && !at.flat.empty()) return at.flat;
  Dims padded(out.size() - operand.size(), 1);
  padded.insert(padded.end(), operand.begin(), operand.end());
  const int64_t rows = padded[padded.size() - 2], cols = padded.back();
  const int64_t out_rows = out[out.size() - 2];
  // Rows of a kernel whose batch is folded into M run over batch and row.
  const bool folded = kernel_rows != out_rows;
  const std::string row = folded ? absl::StrCat("(", at.row, " % ", out_rows, ")") : at.row;
  const std::string batch = folded ? absl::StrCat("(", at.row, " / ", out_rows, ")") : at.batch;
  std::vector<std::string> terms;
  const Dims out_batch(out.begin(), out.end() - 2), own_batch(padded.begin(), padded.end() - 2);
  if (NumElements(own_batch) > 1) {
    terms.push_back(absl::StrCat("static_cast<long long>(", OperandBatch(out_batch, own_batch, batch), ") * ",
                                 rows * cols, "LL"));
  }
  if (rows != 1) terms.push_back(absl::StrCat("static_cast<long long>(", row, ") * ", cols, "LL"));
  if (cols != 1) terms.push_back(at.col);
  return terms.empty() ? "0" : absl::StrJoin(terms, " + ");
}

std::string OperandAtCoordinates(const Node& operand, absl::string_view input, const Dims& out, int64_t kernel_rows,
                                 const ElementCoordinates& at) {
  if (operand.op == OpKind::kIota) {
    const int64_t axis = operand.axes[0] + static_cast<int64_t>(out.size() - operand.shape.size());
    const int64_t last = static_cast<int64_t>(out.size()) - 1;
    const bool folded = kernel_rows != out[out.size() - 2];
    const std::string type = ValueType(operand.dtype);
    // Broadcasting stretches only dims of 1, whose position is always 0.
    if (operand.shape[operand.axes[0]] == 1) return absl::StrCat("static_cast<", type, ">(0)");
    if (axis == last) return absl::StrCat("static_cast<", type, ">(", at.col, ")");
    if (axis == last - 1 && !folded) return absl::StrCat("static_cast<", type, ">(", at.row, ")");
  }
  return OperandAt(operand, input, CoordinateIndex(operand.shape, out, kernel_rows, at));
}

absl::StatusOr<StoredValues> MatmulEpilogue::Emit(const std::vector<NodeId>& targets, absl::string_view acc,
                                                  const ElementCoordinates& at, absl::string_view indent,
                                                  std::string& code) const {
  return EmitFromProduct(targets, RoundedAccumulator(graph_.node(kernel_.nodes.front()).dtype, acc), at, indent,
                         code);
}

absl::StatusOr<StoredValues> MatmulEpilogue::EmitFromStored(const std::vector<NodeId>& targets,
                                                            absl::string_view stored, const ElementCoordinates& at,
                                                            absl::string_view indent, std::string& code) const {
  return EmitFromProduct(targets, LoadConversion(graph_.node(kernel_.nodes.front()).dtype, stored), at, indent,
                         code);
}

absl::StatusOr<StoredValues> MatmulEpilogue::EmitFromProduct(const std::vector<NodeId>& targets,
                                                             std::string product, const ElementCoordinates& at,
                                                             absl::string_view indent, std::string& code) const {
  const NodeId matmul = kernel_.nodes.front();
  absl::flat_hash_map<NodeId, std::string> known = {{matmul, std::move(product)}};
  ElementProgram program(graph_, kernel_.nodes, [&](NodeId operand, NodeId) {
    const Node& input = graph_.node(operand);
    return OperandAtCoordinates(input, signature_.InputName(operand), graph_.node(matmul).shape, kernel_.matmul().m, at);
  });
  if (absl::Status st = program.Emit(targets, known, code, indent); !st.ok()) return st;
  StoredValues stored;
  for (NodeId target : targets) stored[target] = StoreConversion(graph_.node(target).dtype, known[target]);
  return stored;
}

}  // namespace kiln
