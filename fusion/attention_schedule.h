// How an attention kernel tiles its chain: 128 query rows a block (64 for
// each of two consumer warpgroups), 128-key blocks of K and V streamed
// through shared-memory stages, the softmax online. Grid: every block of
// query rows of every batch.
//
//   AttentionSchedule s = ScheduleAttention(graph, chain, folded, limits);
//   s.grid, s.shared_bytes, s.reason
#ifndef KILN_FUSION_ATTENTION_SCHEDULE_H_
#define KILN_FUSION_ATTENTION_SCHEDULE_H_

#include <vector>

#include "fusion/attention_match.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

AttentionSchedule ScheduleAttention(const Graph& graph, const AttentionChain& chain, const std::vector<bool>& folded,
                                    const DeviceLimits& limits);

// Shared memory of an attention block: the Q tile, the K and V stages, six
// barriers a stage and one for Q, and 1024 bytes to align the base.
int64_t AttentionSharedBytes(const AttentionSchedule& s);

}  // namespace kiln

#endif  // KILN_FUSION_ATTENTION_SCHEDULE_H_
