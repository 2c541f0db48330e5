#include "runtime/cluster_residency.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/loaded_kernel.h"

namespace kiln {

std::string ClusterWavesText(int64_t grid_clusters, int resident, int cluster_blocks) {
  const std::string what = absl::StrCat("clusters of ", cluster_blocks, " blocks: ");
  if (resident <= 0) return absl::StrCat(what, "none fits on the GPU");
  const int64_t waves = (grid_clusters + resident - 1) / resident;
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
