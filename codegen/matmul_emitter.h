// CUDA for a matmul kernel, by the schedule's tier: the Hopper wgmma kernel
// (matmul_sm90_emitter.h), or one of the device library's tiled main loops
// (mma.sync tensor cores for f16/bf16, CUDA cores for f32) with one block per
// tile, followed by the kernel's fused elementwise epilogue, applied to each
// fp32 accumulator before the only store.
//
//   absl::StatusOr<GeneratedKernel> k = EmitMatmulKernel(graph, kernel, limits);
//   k->launch   // grid = kernel.matmul().grid, dynamic shared memory for the stages
#ifndef KILN_CODEGEN_MATMUL_EMITTER_H_
#define KILN_CODEGEN_MATMUL_EMITTER_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitMatmulKernel(const Graph& graph, const Kernel& kernel,
                                                 const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_MATMUL_EMITTER_H_
