// Chooses how a reduction over leading or middle axes (KernelKind::kReduction)
// covers its operand: the shape seen as [outer, reduced, inner], the column
// tile each block owns, how its threads split the reduced rows, and how many
// blocks share a tile's rows when the tiles alone cannot fill the GPU.
//
//   AxisReductionSchedule s = ScheduleAxisReduction(graph, reduce_node, limits);
//   // sum over axis 0 of [65536,4096] f32 on an H200:
//   s.inner == 4096; s.tile_columns() == 128; s.row_lanes == 8; s.split == 33;
//   s.reason   // "[65536,4096] f32 over axes [0]: 65536 rows of 4096 columns; ..."
#ifndef KILN_FUSION_AXIS_REDUCTION_SCHEDULE_H_
#define KILN_FUSION_AXIS_REDUCTION_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

// The shape part of the schedule alone (outer, reduced, inner and their
// axes): dims of extent 1 are dropped, adjacent dims of the same kind merge,
// and the kept dims after the last reduced one become `inner`. `axes` sorted.
AxisReductionSchedule CollapseReductionAxes(const Dims& shape, const std::vector<int64_t>& axes);

// The whole schedule of the reduce node `reduce` (its operand read from
// memory, its result written once).
AxisReductionSchedule ScheduleAxisReduction(const Graph& graph, NodeId reduce, const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_FUSION_AXIS_REDUCTION_SCHEDULE_H_
