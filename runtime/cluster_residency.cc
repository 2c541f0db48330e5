#include "runtime/cluster_residency.h"

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/int_math.h"
#include "runtime/loaded_kernel.h"

namespace kiln {
namespace {

// An empty kernel, as PTX the driver compiles for any GPU with clusters.
constexpr char kProbePtx[] = R"(.version 7.8
.target sm_90
.address_size 64
.visible .entry kiln_cluster_probe()
{
  ret;
}
)";

}  // namespace

absl::StatusOr<ClusterResidency> MeasureClusterResidency(int64_t shared_bytes_per_sm) {
  absl::StatusOr<std::unique_ptr<LoadedKernel>> probe = LoadedKernel::LoadPtx(kProbePtx, "kiln_cluster_probe");
  if (!probe.ok()) return probe.status();
  ClusterResidency residency;
  for (int blocks = 1; blocks <= ClusterResidency::kMaxBlocksPerSm; ++blocks) {
    const int64_t shared = (shared_bytes_per_sm / blocks - DeviceLimits::kReservedSharedBytesPerBlock) /
                           DeviceLimits::kSharedAllocationUnit * DeviceLimits::kSharedAllocationUnit;
    for (int size = 0; size < ClusterResidency::kSizes; ++size) {
      const int cluster = 2 << size;
      LaunchConfig config;
      config.grid[0] = static_cast<unsigned>(cluster * 1024);
      config.block[0] = 128;
      config.shared_bytes = static_cast<unsigned>(shared);
      config.cluster_x = static_cast<unsigned>(cluster);
      absl::StatusOr<int> count = (*probe)->ResidentClusters(config);
      if (!count.ok()) return count.status();
      residency.clusters[size][blocks - 1] = *count;
    }
  }
  return residency;
}

std::string ClusterWavesText(int64_t grid_clusters, int resident, int cluster_blocks) {
  const std::string what = absl::StrCat("clusters of ", cluster_blocks, " blocks: ");
  if (resident <= 0) return absl::StrCat(what, "none fits on the GPU");
  const int64_t waves = CeilDiv(grid_clusters, resident);
  return absl::StrCat(what, resident, " fit on the GPU at once, so the grid's ", grid_clusters, " run in ", waves,
                      waves == 1 ? " wave" : " waves");
}

std::string ClusterResidencyNote(const LoadedKernel& kernel, LaunchConfig config, unsigned cluster_blocks) {
  if (cluster_blocks < 2) return "";
  config.cluster_x = cluster_blocks;
  absl::StatusOr<int> resident = kernel.ResidentClusters(config);
  if (absl::IsFailedPrecondition(resident.status())) return "";
  // A report: a count that fails says why and leaves the kernel to run.
  if (!resident.ok()) return absl::StrCat("resident clusters not counted: ", resident.status().message());
  return ClusterWavesText(config.grid[0] / cluster_blocks, *resident, static_cast<int>(cluster_blocks));
}

}  // namespace kiln
