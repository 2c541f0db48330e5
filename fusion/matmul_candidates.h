// The configs a tuner may time for a matmul kernel, as data: for the wgmma
// tier every tile the kernel supports with as many stages as fit, in two L2
// groupings; for mma.sync every tile with the stages that fit; FFMA has one
// fixed tile and no candidates. Tiles far wider or taller than the product
// are left out. The schedule's own (heuristic) config is always first.
//
//   for (const MatmulConfig& c : MatmulCandidates(kernel.matmul, limits)) { ... }
#ifndef KILN_FUSION_MATMUL_CANDIDATES_H_
#define KILN_FUSION_MATMUL_CANDIDATES_H_

#include <vector>

#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

std::vector<MatmulConfig> MatmulCandidates(const MatmulSchedule& schedule, const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_FUSION_MATMUL_CANDIDATES_H_
