// CUDA for the layout kernels that run alone: a transpose and a slice (a
// thread per output element, reading through the permuted or strided index).
//
//   absl::StatusOr<GeneratedKernel> k = EmitTranspose(graph, kernel, limits);
#ifndef KILN_CODEGEN_LAYOUT_EMITTERS_H_
#define KILN_CODEGEN_LAYOUT_EMITTERS_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitTranspose(const Graph& graph, const Kernel& kernel,
                                              const DeviceLimits& limits);
absl::StatusOr<GeneratedKernel> EmitSlice(const Graph& graph, const Kernel& kernel, const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_LAYOUT_EMITTERS_H_
