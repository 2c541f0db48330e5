// CUDA source for a matmul kernel on the wgmma tier (sm_90a): the persistent
// warp-specialised GEMM of codegen/device/kiln_sm90_gemm.cuh instantiated for
// the schedule, its operands read through TMA descriptors, and the fused
// epilogue run on the fp32 accumulators before each output is staged in
// shared memory and stored with TMA (or, for rows that are no multiple of 16
// bytes, stored straight from registers). With split K the units' fp32
// partial products and the tiles' arrival counters are module globals, and
// only the last slice of a tile to finish runs the epilogue.
//
//   absl::StatusOr<GeneratedKernel> k = EmitWgmmaMatmulKernel(graph, kernel);
//   k->params   // pointers for epilogue operands, then TMA descriptors of A, B and the outputs
#ifndef KILN_CODEGEN_MATMUL_SM90_EMITTER_H_
#define KILN_CODEGEN_MATMUL_SM90_EMITTER_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitWgmmaMatmulKernel(const Graph& graph, const Kernel& kernel);

}  // namespace kiln

#endif  // KILN_CODEGEN_MATMUL_SM90_EMITTER_H_
