// How many blocks of a kernel one SM holds at once, and which resource stops
// it there: the rules of NVIDIA's occupancy calculator (cuda_occupancy.h) for
// the figures in DeviceLimits.
//
//   const Occupancy o = BlocksPerSm({.threads = 512, .registers_per_thread = 40,
//                                    .shared_bytes = 34816}, DeviceLimits{});
//   o.blocks               // 3
//   OccupancyLimitNames(o)  // "registers"
#ifndef KILN_FUSION_OCCUPANCY_H_
#define KILN_FUSION_OCCUPANCY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "fusion/device_limits.h"

namespace kiln {

// What one block of a kernel takes from its SM.
struct BlockResources {
  int threads = 0;
  int registers_per_thread = 0;  // 0: not known yet, so registers limit nothing
  int64_t shared_bytes = 0;      // static and dynamic together
};

enum class OccupancyLimit { kThreads, kRegisters, kSharedMemory, kBlocks };

struct Occupancy {
  int blocks = 0;  // 0: one block needs more than an SM has, so it cannot launch
  // Every resource that allows no more blocks than that, in the order above.
  std::vector<OccupancyLimit> limits;
};

Occupancy BlocksPerSm(const BlockResources& block, const DeviceLimits& limits);

absl::string_view OccupancyLimitName(OccupancyLimit limit);
// The limits joined: "threads, registers".
std::string OccupancyLimitNames(const Occupancy& occupancy);

}  // namespace kiln

#endif  // KILN_FUSION_OCCUPANCY_H_
