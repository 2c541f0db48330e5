#include "fusion/occupancy.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int kWarpSize = 32;

// Registers are handed to warps in whole units from the share of the warp's
// scheduler, and a block's warps spread over all schedulers; a block whose
// warps, rounded up to a whole number per scheduler, would need more than
// one SM's registers cannot launch at all.
int64_t BlocksByRegisters(int warps, int registers_per_thread, const DeviceLimits& limits) {
  if (registers_per_thread <= 0) return std::numeric_limits<int64_t>::max();
  const int64_t per_warp = AlignUp(int64_t{registers_per_thread} * kWarpSize, DeviceLimits::kRegistersPerWarpUnit);
  const int64_t partitions = DeviceLimits::kRegisterPartitionsPerSm;
  if (per_warp * AlignUp(int64_t{warps}, partitions) > limits.registers_per_sm) return 0;
  const int64_t warps_per_partition = limits.registers_per_sm / partitions / per_warp;
  return warps_per_partition * partitions / warps;
}

// Shared memory is handed out in whole units, the driver's reserve included.
int64_t BlocksBySharedMemory(int64_t bytes, const DeviceLimits& limits) {
  if (bytes > limits.shared_bytes_per_block) return 0;
  const int64_t reserve = DeviceLimits::kReservedSharedBytesPerBlock;
  return limits.BlocksBySharedMemory(AlignUp(bytes + reserve, DeviceLimits::kSharedAllocationUnit) - reserve);
}

}  // namespace

Occupancy BlocksPerSm(const BlockResources& block, const DeviceLimits& limits) {
  const int warps = static_cast<int>(CeilDiv(int64_t{std::max(block.threads, 1)}, int64_t{kWarpSize}));
  const int64_t by_limit[] = {  // in OccupancyLimit's order
      limits.max_threads_per_sm / (warps * kWarpSize),
      BlocksByRegisters(warps, block.registers_per_thread, limits),
      BlocksBySharedMemory(block.shared_bytes, limits),
      limits.max_blocks_per_sm,
  };
  const int64_t tightest = *std::min_element(std::begin(by_limit), std::end(by_limit));
  Occupancy occupancy{.blocks = static_cast<int>(std::max<int64_t>(tightest, 0))};
  for (size_t i = 0; i < std::size(by_limit); ++i) {
    if (by_limit[i] == tightest) occupancy.limits.push_back(static_cast<OccupancyLimit>(i));
  }
  return occupancy;
}

absl::string_view OccupancyLimitName(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::kThreads: return "threads";
    case OccupancyLimit::kRegisters: return "registers";
    case OccupancyLimit::kSharedMemory: return "shared memory";
    case OccupancyLimit::kBlocks: return "blocks";
  }
  return "?";
}

std::string OccupancyLimitNames(const Occupancy& occupancy) {
  return absl::StrJoin(occupancy.limits, ", ", [](std::string* out, OccupancyLimit limit) {
    absl::StrAppend(out, OccupancyLimitName(limit));
  });
}

}  // namespace kiln
