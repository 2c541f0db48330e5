// CUDA for a reduction over leading or middle axes (KernelKind::kReduction),
// following its AxisReductionSchedule: each block reduces a tile of inner
// columns over its share of the reduced rows (vector loads along the
// contiguous inner dim, several in flight per thread, f32 accumulators),
// combines its row lanes in shared memory, and writes each output once.
// When `split` blocks share a tile, each writes its partial to a buffer of the
// kernel's module and the last to arrive combines them in rank order: no
// float atomics, so results are bit-identical run to run.
//
//   absl::StatusOr<GeneratedKernel> k = EmitAxisReduction(graph, kernel, limits);
//
// The partials and arrival counters are module globals (`__device__`
// arrays, zero when the module loads; the last block resets its counter): no
// runtime scratch buffer is needed. Every executable loads its own module, so
// only its own runs share them, and those are ordered like the runs that
// share its workspace.
#ifndef KILN_CODEGEN_AXIS_REDUCTION_EMITTER_H_
#define KILN_CODEGEN_AXIS_REDUCTION_EMITTER_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitAxisReduction(const Graph& graph, const Kernel& kernel,
                                                  const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_AXIS_REDUCTION_EMITTER_H_
