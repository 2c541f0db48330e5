// Recognizes attention written op by op, so that the planner can run it as
// one flash-style kernel in which the scores never reach memory:
//
//   S = matmul(Q, Kᵀ)                  Kᵀ a folded transpose or a stored [.., D, Skv]
//   x = f(S, masks, biases, positions) any elementwise ops (iota masks included)
//   P = softmax of x over its last axis max/sub/exp/sum/div, without the max,
//                                      or times a reciprocal; casts anywhere
//   O = matmul(P, V)
//
// It is derived from structure, not from one op sequence: the softmax is
// found by its reductions, f by following elementwise ops back to the one
// matmul they read. Every node but O must be used only inside the chain.
// When a matmul reads a softmax but the chain does not qualify, the reason
// is kept for --explain.
//
//   AttentionMatch m = MatchAttention(graph, o, folded, limits);
//   if (m.chain) { m.chain->nodes; m.chain->causal; } else if (!m.reason.empty()) { ... }
#ifndef KILN_FUSION_ATTENTION_MATCH_H_
#define KILN_FUSION_ATTENTION_MATCH_H_

#include <optional>
#include <string>
#include <vector>

#include "fusion/device_limits.h"
#include "graph/graph.h"

namespace kiln {

struct AttentionChain {
  NodeId scores = -1;  // S
  NodeId logits = -1;  // x, what the softmax normalizes
  NodeId probs = -1;   // P, as O reads it
  NodeId output = -1;  // O
  // The elementwise nodes that compute x from S, ascending; the kernel runs
  // them on every score it computes.
  std::vector<NodeId> score_program;
  std::vector<NodeId> nodes;  // every node of the kernel, ascending
  // x is select(row >= col, ., -inf) on S's last two axes: key blocks right
  // of the diagonal are skipped, not computed.
  bool causal = false;
};

struct AttentionMatch {
  std::optional<AttentionChain> chain;
  // Empty when `output` does not read a softmax at all (nothing to explain).
  std::string reason;
};

// Tries the matmul `output` as the O of an attention chain; `folded` marks
// transposes read as matmul operand layouts (FoldOperandTransposes).
AttentionMatch MatchAttention(const Graph& graph, NodeId output, const std::vector<bool>& folded,
                              const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_FUSION_ATTENTION_MATCH_H_
