// Chooses how a matmul kernel tiles its product: tensor cores or CUDA cores
// by dtype, the tile shape by how evenly its tiles fill the device's SMs
// (or the tile DeviceLimits::matmul_tile imposes).
//
//   MatmulSchedule s = ScheduleMatmul(graph, matmul_node, limits);
//   s.block_m, s.block_n   // e.g. 128 x 256 for bf16 8192^3
//   s.reason               // "bf16 on tensor cores ...; 128x256 tiles: 2048 tiles ..."
#ifndef KILN_FUSION_MATMUL_SCHEDULE_H_
#define KILN_FUSION_MATMUL_SCHEDULE_H_

#include "absl/status/status.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

MatmulSchedule ScheduleMatmul(const Graph& graph, NodeId matmul, const DeviceLimits& limits);

// OK when the tensor-core code generator implements `tile` and its stages fit
// in `limits.shared_bytes_per_block`; otherwise InvalidArgumentError saying why.
absl::Status ValidateMatmulTile(const MatmulTile& tile, const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_FUSION_MATMUL_SCHEDULE_H_
