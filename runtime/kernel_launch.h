// How a generated kernel launches: its grid, block and shared memory, and for
// a kernel whose blocks take their work in turn, only the blocks the GPU
// holds at once.
//
//   LaunchConfig planned = LaunchConfigOf(generated);
//   absl::StatusOr<LaunchConfig> config = ResidentLaunchConfig(generated, *loaded, info.sm_count);
#ifndef KILN_RUNTIME_KERNEL_LAUNCH_H_
#define KILN_RUNTIME_KERNEL_LAUNCH_H_

#include <string>

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "runtime/loaded_kernel.h"

namespace kiln {

// How `generated` launches as planned: its grid, block and dynamic shared
// memory. A cluster size is declared in the kernel source
// (__cluster_dims__), so a plain launch forms the clusters and cluster_x
// stays 1.
LaunchConfig LaunchConfigOf(const GeneratedKernel& generated);

// LaunchConfigOf, with a resident grid (LaunchShape::resident_grid) cut to
// the blocks, or whole clusters, that `loaded` keeps on a GPU of `sm_count`
// SMs at once: more would start only as the first finish, a second wave for
// work the first could have taken in turn. InvalidArgumentError naming the
// kernel where none fits; the driver's error where it cannot count them.
absl::StatusOr<LaunchConfig> ResidentLaunchConfig(const GeneratedKernel& generated, const LoadedKernel& loaded,
                                                  int sm_count);

// The note for a resident grid of `planned` blocks launched as `launched`
// blocks, in clusters of `cluster_blocks`:
// "the work of 1335 clusters of 4 blocks, taken in turn by the 120 that fit on the GPU at once".
std::string ResidentGridNote(unsigned planned, unsigned launched, unsigned cluster_blocks);

}  // namespace kiln

#endif  // KILN_RUNTIME_KERNEL_LAUNCH_H_
