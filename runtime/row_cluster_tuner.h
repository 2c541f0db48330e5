// Tunes the cluster size of a row kernel that splits each row over a cluster
// and loops over its parts (RowStrategy::kClusterLooped), which runs at any
// size. The planner sizes its clusters from the blocks an SM it expects, but
// a compiled kernel's registers decide how many of its blocks an SM holds,
// and a cluster's blocks share one GPC, so fewer clusters may fit at once
// than there are rows: the rows beyond them run as a later wave while most
// SMs idle. A smaller cluster saves waves, but leaves each SM fewer blocks,
// so fewer loads in flight. Timed on an H100 (s24), rows of 2097152, 32 of
// them:
//   layernorm bf16 (2 blocks an SM)  clusters of 8 (2 waves) 196.7 us, of 4 (1 wave) 173.2
//   rmsnorm bf16 (2 blocks an SM)    of 8 (2 waves) 180.4 us, of 4 (1 wave) 163.6
//   rmsnorm f16 (3 blocks an SM)     of 8 (1 wave) 144.1 us, of 4 (1 wave, 1 block an SM) 164.2 (s23)
// and 128 rows of 524288:
//   layernorm bf16  of 8 (5 waves) 153.8 us, of 4 (3 waves) 173.3, of 2 (1 wave) 147.1
//   softmax bf16    of 8 (3 waves) 138.0 us, of 4 (2 waves) 143.6, of 2 (1 wave) 142.1
// Fewer waves do not always win, so the sizes that save a wave are timed.
//
//   absl::StatusOr<TunedKernel> k = LoadWithTunedRowClusters(graph, plan.kernels[i], limits, device, cache, true);
//   plan.kernels[i].row().cluster_blocks  // the size the loaded kernel was generated for
//   k->note  // "clusters tuned to 4 blocks for 32 rows: of 8 blocks 30 fit on the GPU at once (2 waves) 193.0 us, ..."
#ifndef KILN_RUNTIME_ROW_CLUSTER_TUNER_H_
#define KILN_RUNTIME_ROW_CLUSTER_TUNER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "graph/graph.h"
#include "runtime/device.h"
#include "runtime/kernel_cache.h"
#include "runtime/launch_bound_tuner.h"

namespace kiln {

// A cluster size and how many of its clusters fit on the GPU at once.
struct ClusterCount {
  int cluster_blocks = 0;
  int resident = 0;
};

// The sizes worth timing for `rows` clusters: `planned`, then its halves
// down to 2 while the last size counted needs more than one wave and the
// next would need fewer. `resident` counts a size's clusters that fit at
// once (compiling the kernel at that size). Only `planned` where it needs one
// wave or is no cluster.
absl::StatusOr<std::vector<ClusterCount>> RowClusterCandidates(
    int64_t rows, int planned, const std::function<absl::StatusOr<int>(int cluster_blocks)>& resident);

// `kernel` generated and loaded through LoadWithTunedLaunchBound. With
// `tune`, a cluster-looped row kernel with several RowClusterCandidates has
// each generated, loaded and timed alone, and keeps the fastest: `kernel`'s
// schedule takes its size, and the note lists the sizes timed. Other
// kernels, and drivers that cannot count clusters, are loaded as planned.
absl::StatusOr<TunedKernel> LoadWithTunedRowClusters(const Graph& graph, Kernel& kernel, const DeviceLimits& limits,
                                                     const Device& device, KernelCache& cache, bool tune);

}  // namespace kiln

#endif  // KILN_RUNTIME_ROW_CLUSTER_TUNER_H_
