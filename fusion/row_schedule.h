// Chooses how a row-reduction kernel covers its rows (persistent, looped or
// split) from the row length, the row count and the device's on-chip limits,
// and orders its reductions into stages and passes.
//
//   RowSchedule s = ScheduleRows(graph, group, kernel_inputs, limits);
//   s.strategy == RowStrategy::kClusterPersistent;   // e.g. softmax [512,131072]
//   s.reason   // "row of 131072 f32 = 512 KiB exceeds one block's on-chip budget ..."
//   // softmax [22369621, 3]: kPackedPersistent, 4 lanes a row, 8 rows a lane group in turn
#ifndef KILN_FUSION_ROW_SCHEDULE_H_
#define KILN_FUSION_ROW_SCHEDULE_H_

#include <vector>

#include "fusion/device_limits.h"
#include "fusion/grouping.h"
#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

RowSchedule ScheduleRows(const Graph& graph, const Group& group, const std::vector<NodeId>& inputs,
                         const std::vector<NodeId>& outputs, const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_FUSION_ROW_SCHEDULE_H_
