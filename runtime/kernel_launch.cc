#include "runtime/kernel_launch.h"

#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kiln {

LaunchConfig LaunchConfigOf(const GeneratedKernel& generated) {
  LaunchConfig config;
  config.grid[0] = generated.launch.grid;
  config.block[0] = generated.launch.block;
  config.shared_bytes = generated.launch.shared_bytes;
  return config;
}

absl::StatusOr<LaunchConfig> ResidentLaunchConfig(const GeneratedKernel& generated, const LoadedKernel& loaded,
                                                  int sm_count) {
  LaunchConfig config = LaunchConfigOf(generated);
  if (!generated.launch.resident_grid) return config;
  const unsigned cluster = std::max(generated.launch.cluster, 1u);
  int64_t resident_blocks = 0;
  if (cluster > 1) {
    LaunchConfig clustered = config;
    clustered.cluster_x = cluster;
    absl::StatusOr<int> clusters = loaded.ResidentClusters(clustered);
    if (!clusters.ok()) return clusters.status();
    resident_blocks = int64_t{*clusters} * cluster;
  } else {
    absl::StatusOr<int> per_sm = loaded.ResidentBlocksPerSm(config);
    if (!per_sm.ok()) return per_sm.status();
    resident_blocks = int64_t{*per_sm} * sm_count;
  }
  if (resident_blocks == 0) {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", generated.name, ": no ",
                                                   cluster > 1 ? absl::StrCat("cluster of ", cluster, " blocks") : "block",
                                                   " of ", config.block[0], " threads and ", config.shared_bytes,
                                                   " bytes of shared memory fits on this GPU"));
  }
  config.grid[0] = static_cast<unsigned>(std::min<int64_t>(config.grid[0], resident_blocks));
  return config;
}

std::string ResidentGridNote(unsigned planned, unsigned launched, unsigned cluster_blocks) {
  const unsigned cluster = std::max(cluster_blocks, 1u);
  const std::string units = cluster > 1 ? absl::StrCat(" clusters of ", cluster, " blocks") : " blocks";
  if (launched >= planned) return absl::StrCat("all ", planned / cluster, units, " fit on the GPU at once");
  return absl::StrCat("the work of ", planned / cluster, units, ", taken in turn by the ", launched / cluster,
                      " that fit on the GPU at once");
}

}  // namespace kiln
