// How many clusters the GPU holds at once: by cluster size and blocks an SM
// for planning (MeasureClusterResidency), and for one cluster kernel, with
// the waves its grid runs in, for `kiln run`'s notes. A cluster's blocks
// share one GPC, so GPCs whose SMs leave too few free block slots hold one
// cluster fewer than the SMs' slots suggest: a grid sized to the slots can
// spill a few clusters into a second wave that runs while most SMs idle.
//
//   absl::StatusOr<ClusterResidency> r = MeasureClusterResidency(info.shared_memory_per_sm);  // r->At(8, 2): 30 on an H100
//   ClusterWavesText(32, 30, 8)  // "clusters of 8 blocks: 30 fit on the GPU at once, so the grid's 32 run in 2 waves"
#ifndef KILN_RUNTIME_CLUSTER_RESIDENCY_H_
#define KILN_RUNTIME_CLUSTER_RESIDENCY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "fusion/device_limits.h"
#include "runtime/loaded_kernel.h"

namespace kiln {

// The clusters of every size in ClusterResidency that the GPU of the current
// context holds at 1 to ClusterResidency::kMaxBlocksPerSm blocks an SM,
// counted by the driver for an empty kernel whose blocks take enough shared
// memory (of `shared_bytes_per_sm`) that only so many fit an SM.
// FailedPreconditionError on a driver without cuOccupancyMaxActiveClusters.
absl::StatusOr<ClusterResidency> MeasureClusterResidency(int64_t shared_bytes_per_sm);

// The note for a grid of `grid_clusters` clusters of `cluster_blocks` blocks
// of which `resident` fit at once.
std::string ClusterWavesText(int64_t grid_clusters, int resident, int cluster_blocks);

// The note for `kernel` launched as `config` with clusters of `cluster_blocks`
// blocks: empty without clusters or where the driver cannot count them, and
// the error where counting fails (the kernel still runs).
std::string ClusterResidencyNote(const LoadedKernel& kernel, LaunchConfig config, unsigned cluster_blocks);

}  // namespace kiln

#endif  // KILN_RUNTIME_CLUSTER_RESIDENCY_H_
