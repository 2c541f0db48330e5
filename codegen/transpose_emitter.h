// CUDA for a transpose kernel, following its TransposeSchedule
// (fusion/transpose_schedule.h): a vectorized copy, a row-run copy (each
// contiguous run of the kept last dim moved as vectors, its source offset
// computed once per run), or a tiled transpose (a tile read along the input's
// last dim into shared memory and written along the output's last dim), or,
// for an operand computed where it is read, a thread per output element.
// A block takes one work item (a tile or a chunk of vectors); past the grid
// limit the grid is capped and blocks loop over the items with its stride.
//
//   absl::StatusOr<GeneratedKernel> k = EmitTranspose(graph, plan.kernels[0]);
//   k->launch.grid   // one block per tile or chunk of vectors
#ifndef KILN_CODEGEN_TRANSPOSE_EMITTER_H_
#define KILN_CODEGEN_TRANSPOSE_EMITTER_H_

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> EmitTranspose(const Graph& graph, const Kernel& kernel);

}  // namespace kiln

#endif  // KILN_CODEGEN_TRANSPOSE_EMITTER_H_
