// CUDA for the slice kernel that runs alone: a thread per output element,
// reading through the strided index. Transposes and reductions over other
// axes have emitters of their own (codegen/transpose_emitter.h,
// codegen/axis_reduction_emitter.h).
//
//   absl::StatusOr<GeneratedKernel> k = EmitSlice(graph, kernel, limits);
#ifndef KILN_CODEGEN_LAYOUT_EMITTERS_H_
#define KILN_CODEGEN_LAYOUT_EMITTERS_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitSlice(const Graph& graph, const Kernel& kernel, const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_LAYOUT_EMITTERS_H_
