// The wgmma instruction a Hopper matmul kernel issues, as a policy type for
// KilnSm90Gemm (codegen/device/kiln_sm90_gemm.cuh): inline PTX must name each
// of its n/2 accumulator registers, so the wrapper is generated for the tile
// width the schedule chose rather than written out for every width.
//
//   WgmmaInstruction("f0_mma", 256, DType::kBF16)
//   // struct f0_mma { template <int kTransA, int kTransB> static void run(float (&d)[128], ...); };
#ifndef KILN_CODEGEN_WGMMA_INSTRUCTION_H_
#define KILN_CODEGEN_WGMMA_INSTRUCTION_H_

#include <string>

#include "absl/strings/string_view.h"
#include "graph/dtype.h"

namespace kiln {

// m64n<n>k16 with f16 or bf16 operands read through shared-memory
// descriptors and fp32 accumulators; kTransA/kTransB select MN-major A/B.
std::string WgmmaInstruction(absl::string_view name, int n, DType dtype);

// The same product with A (64x16, four registers of two 16-bit values) read
// from registers: attention's P, never stored. B is MN-major when trans_b.
// For kF32 it is m64n<n>k8 on tf32 (A's four registers one value each, B
// K-major: tf32 has no transposed operand): the tf32 matmul's main loop.
//   struct name { static void run(float (&d)[n/2], const unsigned (&a)[4], unsigned long long b); };
std::string WgmmaInstructionRegisterA(absl::string_view name, int n, DType dtype, bool trans_b);

}  // namespace kiln

#endif  // KILN_CODEGEN_WGMMA_INSTRUCTION_H_
