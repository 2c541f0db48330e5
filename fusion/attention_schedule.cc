#include "fusion/attention_schedule.h"

#include "absl/strings/str_cat.h"
#include "fusion/matmul_schedule.h"
#include "graph/int_math.h"

namespace kiln {

int64_t AttentionSharedBytes(const AttentionSchedule& s) {
  const int64_t q = int64_t{s.block_q} * s.d * 2;
  const int64_t kv = int64_t{s.stages} * s.block_kv * (s.d + s.dv) * 2;
  return q + kv + (4 * s.stages + 1) * 8 + 1024;
}

AttentionSchedule ScheduleAttention(const Graph& graph, const AttentionChain& chain, const std::vector<bool>& folded,
                                    const DeviceLimits& limits) {
  AttentionSchedule s;
  const Node& scores = graph.node(chain.scores);
  s.batch_dims.assign(scores.shape.begin(), scores.shape.end() - 2);
  s.batch = NumElements(s.batch_dims);
  s.sq = scores.shape[scores.shape.size() - 2];
  s.skv = scores.shape.back();
  s.q = DescribeMatmulOperand(graph, chain.scores, 0, folded);
  s.k = DescribeMatmulOperand(graph, chain.scores, 1, folded);
  s.v = DescribeMatmulOperand(graph, chain.output, 1, folded);
  s.d = graph.node(s.q.node).shape.back();
  s.dv = graph.node(chain.output).shape.back();
  s.scores = chain.scores;
  s.logits = chain.logits;
  s.output = chain.output;
  s.score_program = chain.score_program;
  s.causal = chain.causal;
  s.threads = 384;
  s.grid = s.batch * CeilDiv(s.sq, s.block_q);
  // A third stage where it fits hides more of each key block's load.
  s.stages = 3;
  while (s.stages > 2 && AttentionSharedBytes(s) > limits.shared_bytes_per_block) --s.stages;
  s.shared_bytes = AttentionSharedBytes(s);
  s.reason = absl::StrCat(
      "S = Q·Kᵀ, the softmax and O = P·V in one kernel (wgmma + TMA, producer and two consumer warpgroups): ",
      s.block_q, " query rows a block, ", s.block_kv, "-key blocks of K and V through ", s.stages,
      " stages, the softmax online (running max and sum); S and P stay on chip, K and V are re-read by each block "
      "of query rows and served from L2",
      s.causal ? "; causal: key blocks right of the diagonal are skipped" : "", "; ", s.grid, " blocks");
  return s;
}

}  // namespace kiln
