#include "codegen/wgmma_instruction.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln {
namespace {

// The accumulators of an m64nNk16 product: PTX operands %0..%(n/2 - 1) and
// their read-write constraints on d[0..n/2 - 1].
struct Accumulators {
  std::string operands, constraints;
};

Accumulators AccumulatorOperands(int registers) {
  std::vector<std::string> operands, constraints;
  for (int i = 0; i < registers; ++i) {
    operands.push_back(absl::StrCat("%", i));
    constraints.push_back(absl::StrCat("\"+f\"(d[", i, "])"));
  }
  return {absl::StrJoin(operands, ", "), absl::StrJoin(constraints, ", ")};
}

}  // namespace

std::string WgmmaInstruction(absl::string_view name, int n, DType dtype) {
  const int registers = n / 2;
  const char* type = dtype == DType::kBF16 ? "bf16" : "f16";
  const Accumulators d = AccumulatorOperands(registers);
  // Operands after the accumulators: the two descriptors, the scale-d flag
  // (1: add to the accumulators) and the two transpose immediates.
  return absl::StrCat(
      "// wgmma m64n", n, "k16, ", type, " operands from shared memory, fp32 accumulators.\n", "struct ", name,
      " {\n  template <int kTransA, int kTransB>\n"
      "  static __device__ __forceinline__ void run(float (&d)[",
      registers, "], unsigned long long a, unsigned long long b) {\n    asm volatile(\n",
      "        \"{ .reg .pred p; setp.ne.b32 p, %", registers + 2, ", 0; \"\n",
      "        \"wgmma.mma_async.sync.aligned.m64n", n, "k16.f32.", type, ".", type, " {",
      d.operands, "}, %", registers, ", %", registers + 1, ", p, 1, 1, %", registers + 3, ", %", registers + 4,
      "; }\"\n        : ", d.constraints,
      "\n        : \"l\"(a), \"l\"(b), \"r\"(1), \"n\"(kTransA), \"n\"(kTransB));\n  }\n};\n");
}

std::string WgmmaInstructionRegisterA(absl::string_view name, int n, DType dtype, bool trans_b) {
  const int registers = n / 2;
  // f32 operands are read as tf32, eight K a step; tf32 has no transposed B.
  const bool tf32 = dtype == DType::kF32;
  const char* type = tf32 ? "tf32" : dtype == DType::kBF16 ? "bf16" : "f16";
  const int k = tf32 ? 8 : 16;
  const std::string trans = tf32 ? "" : absl::StrCat(", ", trans_b ? 1 : 0);
  const Accumulators d = AccumulatorOperands(registers);
  // After the accumulators: the four A registers, B's descriptor, scale-d.
  return absl::StrCat(
      "// wgmma m64n", n, "k", k, ", ", type, " A from registers, B from shared memory, fp32 accumulators.\n",
      "struct ", name, " {\n  static __device__ __forceinline__ void run(float (&d)[", registers,
      "], const unsigned (&a)[4], unsigned long long b) {\n    asm volatile(\n",
      "        \"{ .reg .pred p; setp.ne.b32 p, %", registers + 5, ", 0; \"\n",
      "        \"wgmma.mma_async.sync.aligned.m64n", n, "k", k, ".f32.", type, ".", type, " {", d.operands, "}, {%",
      registers, ", %", registers + 1, ", %", registers + 2, ", %", registers + 3, "}, %", registers + 4, ", p, 1, 1",
      trans, "; }\"\n        : ", d.constraints,
      "\n        : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(b), \"r\"(1));\n  }\n};\n");
}

}  // namespace kiln
