// CUDA for a pointwise kernel: each block streams one contiguous tile of the
// iteration shape with several 16-byte vectors in flight per thread, a scalar
// tail, and broadcast operands read through index arithmetic.
//
//   absl::StatusOr<GeneratedKernel> k = EmitPointwiseKernel(graph, kernel, limits);
#ifndef KILN_CODEGEN_POINTWISE_EMITTER_H_
#define KILN_CODEGEN_POINTWISE_EMITTER_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitPointwiseKernel(const Graph& graph, const Kernel& kernel,
                                                    const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_POINTWISE_EMITTER_H_
