// How many of a cluster kernel's clusters the GPU holds at once, and so how
// many waves its grid runs in, for `kiln run`'s notes. A cluster's blocks
// share one GPC, so GPCs whose SMs leave too few free block slots hold one
// cluster fewer than the SMs' slots suggest: a grid sized to the slots can
// spill a few clusters into a second wave that runs while most SMs idle.
//
//   ClusterWavesText(32, 30, 8)  // "clusters of 8 blocks: 30 fit on the GPU at once, so the grid's 32 run in 2 waves"
#ifndef KILN_RUNTIME_CLUSTER_RESIDENCY_H_
#define KILN_RUNTIME_CLUSTER_RESIDENCY_H_

#include <cstdint>
#include <string>

#include "runtime/loaded_kernel.h"

namespace kiln {

// The note for a grid of `grid_clusters` clusters of `cluster_blocks` blocks
// of which `resident` fit at once.
std::string ClusterWavesText(int64_t grid_clusters, int resident, int cluster_blocks);

// The note for `kernel` launched as `config` with clusters of `cluster_blocks`
// blocks: empty without clusters or where the driver cannot count them, and
// the error where counting fails (the kernel still runs).
std::string ClusterResidencyNote(const LoadedKernel& kernel, LaunchConfig config, unsigned cluster_blocks);

}  // namespace kiln

#endif  // KILN_RUNTIME_CLUSTER_RESIDENCY_H_
