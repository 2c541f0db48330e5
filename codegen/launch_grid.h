// The block count of a launch, checked against what every CUDA device
// accepts: a grid's x dimension holds at most 2^31 - 1 blocks (compute
// capability 3.0 and later). A kernel that needs more is refused, never
// launched with a truncated grid that leaves most of its output unwritten.
//
//   absl::StatusOr<unsigned> grid = LaunchGrid("f0_pointwise", blocks);
//   // blocks = 2^32: InvalidArgumentError("kernel f0_pointwise needs 4294967296
//   //   blocks; a launch grid holds at most 2147483647")
//
// Grid-stride kernels need no refusal: they cap their grid at kMaxGridBlocks
// (CappedGrid) and loop over the rest.
#ifndef KILN_CODEGEN_LAUNCH_GRID_H_
#define KILN_CODEGEN_LAUNCH_GRID_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln {

inline constexpr int64_t kMaxGridBlocks = 2147483647;

// `blocks` as a grid x dimension: InvalidArgumentError naming `kernel` above
// kMaxGridBlocks, InternalError below 1 (an emitter's mistake).
absl::StatusOr<unsigned> LaunchGrid(absl::string_view kernel, int64_t blocks);

// `blocks` clamped to [1, kMaxGridBlocks], for kernels that loop over a grid stride.
unsigned CappedGrid(int64_t blocks);

}  // namespace kiln

#endif  // KILN_CODEGEN_LAUNCH_GRID_H_
