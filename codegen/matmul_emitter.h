// CUDA for a matmul kernel: one of the device library's tiled main loops
// (tensor cores for f16/bf16, CUDA cores for f32), instantiated with the
// plan's tile schedule, followed by the kernel's fused elementwise epilogue,
// applied to each fp32 accumulator before the only store.
//
//   absl::StatusOr<GeneratedKernel> k = EmitMatmulKernel(graph, kernel, limits);
//   k->launch   // grid = kernel.matmul.tiles, dynamic shared memory for the stages
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
