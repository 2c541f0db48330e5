// What every matmul main loop shares: which matrix of A and of B each output
// batch reads (NumPy broadcasting of the batch dims), and the fused epilogue
// that turns one fp32 accumulator into the kernel's stored outputs.
//
//   MatmulEpilogue epilogue(graph, kernel, signature);
//   code += epilogue.BatchPolicy("f0_batches");   // struct f0_batches { a(batch), b(batch) }
//   absl::StatusOr<StoredValues> v =
//       epilogue.Emit({out}, "acc", {.flat = "i", .batch = "tile.batch", .row = "row", .col = "col"}, "    ", code);
//   (*v)[out]   // "kiln_f32_to_bf16(v7)", the value to store at out[i]
#ifndef KILN_CODEGEN_MATMUL_EPILOGUE_H_
#define KILN_CODEGEN_MATMUL_EPILOGUE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/kernel_signature.h"
#include "fusion/plan.h"

namespace kiln {

using StoredValues = absl::flat_hash_map<NodeId, std::string>;

// Expressions for where one accumulator lies: its flat index in the output,
// and the kernel's batch, row and column of it (rows include a batch folded
// into M). Epilogue operands are read by the cheapest of them: a bias [N] by
// the column alone, a full-shape residual by the flat index.
struct ElementCoordinates {
  std::string flat, batch, row, col;
};

// The element of an operand of shape `operand`, broadcast to `out` (a
// product's [batch..., rows, cols]), that the element at `at` reads.
// `kernel_rows` is how many rows the kernel iterates: out's rows, or out's
// rows times its batch where the batch is folded into the rows.
std::string CoordinateIndex(const Dims& operand, const Dims& out, int64_t kernel_rows, const ElementCoordinates& at);

// The value of `operand` (a kernel input named `input`, or an iota) at the
// element `at` of `out`: a load at CoordinateIndex, or for an iota along
// the rows or columns the coordinate itself, with no index arithmetic.
std::string OperandAtCoordinates(const Node& operand, absl::string_view input, const Dims& out, int64_t kernel_rows,
                                 const ElementCoordinates& at);

class MatmulEpilogue {
 public:
  MatmulEpilogue(const Graph& graph, const Kernel& kernel, const KernelSignature& signature);

  // A struct `name` with static int a(int batch) and b(int batch): the
  // matrix of each operand that output batch `batch` multiplies; swapped,
  // a() is B's and b() A's, for a kernel that computes Cᵀ = Bᵀ·Aᵀ.
  std::string BatchPolicy(absl::string_view name, bool swapped = false) const;

  // Appends statements computing `targets` (outputs of the kernel) for the
  // accumulator named `acc` at `at`, and returns each target's value
  // converted to its storage type.
  absl::StatusOr<StoredValues> Emit(const std::vector<NodeId>& targets, absl::string_view acc,
                                    const ElementCoordinates& at, absl::string_view indent, std::string& code) const;
  // As Emit, from the product already rounded to its dtype and stored
  // (`stored`, in the product's storage type) rather than an accumulator.
  absl::StatusOr<StoredValues> EmitFromStored(const std::vector<NodeId>& targets, absl::string_view stored,
                                              const ElementCoordinates& at, absl::string_view indent,
                                              std::string& code) const;

 private:
  // Emit's work, given the product's value as an f32 expression.
  absl::StatusOr<StoredValues> EmitFromProduct(const std::vector<NodeId>& targets, std::string product,
                                               const ElementCoordinates& at, absl::string_view indent,
                                               std::string& code) const;

  const Graph& graph_;
  const Kernel& kernel_;
  const KernelSignature& signature_;
};

}  // namespace kiln

#endif  // KILN_CODEGEN_MATMUL_EPILOGUE_H_
