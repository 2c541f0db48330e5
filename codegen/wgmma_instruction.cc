#include "codegen/wgmma_instruction.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln {

std::string WgmmaInstruction(absl::string_view name, int n, DType dtype) {
  const int registers = n / 2;
  const char* type = dtype == DType::kBF16 ? "bf16" : "f16";
  std::vector<std::string> accumulators, constraints;
  for (int i = 0; i < registers; ++i) {
    accumulators.push_back(absl::StrCat("%", i));
    constraints.push_back(absl::StrCat("\"+f\"(d[", i, "])"));
  }
  // Operands after the accumulators: the two descriptors, the scale-d flag
  // (1: add to the accumulators) and the two transpose immediates.
  return absl::StrCat(
      "// wgmma m64n", n, "k16, ", type, " operands from shared memory, fp32 accumulators.\n", "struct ", name,
      " {\n  template <int kTransA, int kTransB>\n"
      "  static __device__ __forceinline__ void run(float (&d)[",
      registers, "], unsigned long long a, unsigned long long b) {\n    asm volatile(\n",
      "        \"{ .reg .pred p; setp.ne.b32 p, %", registers + 2, ", 0; \"\n",
      "        \"wgmma.mma_async.sync.aligned.m64n", n, "k16.f32.", type, ".", type, " {",
      absl::StrJoin(accumulators, ", "), "}, %", registers, ", %", registers + 1, ", p, 1, 1, %", registers + 3,
      ", %", registers + 4, "; }\"\n        : ", absl::StrJoin(constraints, ", "),
      "\n        : \"l\"(a), \"l\"(b), \"r\"(1), \"n\"(kTransA), \"n\"(kTransB));\n  }\n};\n");
}

}  // namespace kiln
