#include "fusion/device_limits.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"

namespace kiln {
namespace {

// The table's row for clusters of `cluster_blocks`, or -1 where it has none.
int SizeIndex(int cluster_blocks) {
  if (cluster_blocks < 2 || !std::has_single_bit(static_cast<unsigned>(cluster_blocks))) return -1;
  const int index = std::countr_zero(static_cast<unsigned>(cluster_blocks)) - 1;
  return index < ClusterResidency::kSizes ? index : -1;
}

}  // namespace

int ClusterResidency::At(int cluster_blocks, int blocks_per_sm) const {
  const int i = SizeIndex(cluster_blocks);
  if (i < 0 || blocks_per_sm < 1 || blocks_per_sm > kMaxBlocksPerSm) return 0;
  return clusters[i][blocks_per_sm - 1];
}

ClusterResidency H100ClusterResidency() {
  ClusterResidency r;
  r.clusters = {{{66, 132, 198, 264}, {30, 62, 92, 124}, {15, 30, 45, 62}}};
  return r;
}

int64_t DeviceLimits::ResidentClusters(int cluster_blocks, int blocks_per_sm) const {
  const int measured = cluster_residency.At(cluster_blocks, blocks_per_sm);
  if (measured > 0) return measured;
  return int64_t{sm_count} * blocks_per_sm / std::max(cluster_blocks, 1);
}

std::string CompileArch(int major, int minor) {
  return absl::StrCat("sm_", major, minor, major == 9 && minor == 0 ? "a" : "");
}

std::string DeviceLimits::Arch() const { return CompileArch(compute_capability / 10, compute_capability % 10); }

}  // namespace kiln
