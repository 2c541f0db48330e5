// The configs a tuner may time for a matmul kernel, as data, each in two L2
// groupings: for the wgmma tier every tile it supports with as many stages
// as fit, and where the tiles fill the SMs the cooperative ones also in
// 2-block clusters that share the larger operand tile; for mma.sync every
// tile with 3 and 4 stages; for FFMA its two tile heights with 2 to 4
// stages; and on every tier, where a tile leaves most SMs idle, that tile
// with K split into 2 to 16 slices. Tiles far wider or taller than the
// product are left out. The schedule's own (heuristic) config is always
// first.
//
//   for (const MatmulConfig& c : MatmulCandidates(kernel.matmul(), limits)) { ... }
#ifndef KILN_FUSION_MATMUL_CANDIDATES_H_
#define KILN_FUSION_MATMUL_CANDIDATES_H_

#include <vector>

#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

std::vector<MatmulConfig> MatmulCandidates(const MatmulSchedule& schedule, const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_FUSION_MATMUL_CANDIDATES_H_
