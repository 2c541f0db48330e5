// CUDA for a row-reduction kernel, following the plan's RowSchedule: a group
// of lanes (a warp, or part of one for short rows packed side by side, each
// group covering rows_per_group rows in turn), a block or a thread-block
// cluster per row; the row held in registers
// (persistent) or re-read per pass (looped); reductions in stages, with the
// online max/sum recurrence where the plan merged a softmax's max and sum.
//
//   absl::StatusOr<GeneratedKernel> k = EmitRowKernel(graph, kernel, limits);
#ifndef KILN_CODEGEN_ROW_EMITTER_H_
#define KILN_CODEGEN_ROW_EMITTER_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitRowKernel(const Graph& graph, const Kernel& kernel,
                                              const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_ROW_EMITTER_H_
