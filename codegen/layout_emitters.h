// CUDA for the kernels that run alone: a reduction over non-trailing axes (a
// thread per output element, walking the reduced axes) and a slice (a thread
// per output element, reading through the strided index). Transposes have
// their own emitter (codegen/transpose_emitter.h).
//
//   absl::StatusOr<GeneratedKernel> k = EmitStridedReduction(graph, kernel, limits);
#ifndef KILN_CODEGEN_LAYOUT_EMITTERS_H_
#define KILN_CODEGEN_LAYOUT_EMITTERS_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitStridedReduction(const Graph& graph, const Kernel& kernel,
                                                     const DeviceLimits& limits);
absl::StatusOr<GeneratedKernel> EmitSlice(const Graph& graph, const Kernel& kernel, const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_LAYOUT_EMITTERS_H_
