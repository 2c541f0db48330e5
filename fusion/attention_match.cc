#include "fusion/attention_match.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "fusion/matmul_schedule.h"

namespace kiln {
namespace {

std::string Quoted(const Node& node) { return absl::StrCat("\"", absl::CEscape(node.name), "\""); }

// A reduction of `op` over the operand's last axis that keeps it.
bool IsRowReduce(const Graph& graph, NodeId id, OpKind op) {
  const Node& node = graph.node(id);
  if (node.op != op || !node.keepdims) return false;
  const int64_t rank = static_cast<int64_t>(graph.node(node.operands[0]).shape.size());
  return node.axes == std::vector<int64_t>{rank - 1};
}

NodeId SkipCasts(const Graph& graph, NodeId id, std::vector<NodeId>& chain) {
  while (graph.node(id).op == OpKind::kCast) {
    chain.push_back(id);
    id = graph.node(id).operands[0];
  }
  return id;
}

// The axis of `full` (rank r) that axis `axis` of a right-aligned operand of rank `rank` lands on.
int64_t AlignedAxis(int64_t axis, size_t rank, size_t full_rank) {
  return axis + static_cast<int64_t>(full_rank) - static_cast<int64_t>(rank);
}

bool IsIotaOnAxis(const Graph& graph, NodeId id, int64_t axis, size_t full_rank) {
  const Node& node = graph.node(id);
  return node.op == OpKind::kIota && AlignedAxis(node.axes[0], node.shape.size(), full_rank) == axis;
}

// A fill that removes a key from the softmax: -inf, or the lowest finite value
// of the logits' dtype (PyTorch's masked_fill with finfo.min), whose exp
// underflows to 0 against the row's unmasked diagonal as -inf's does.
bool RemovesKey(const Node& fill, DType logits) {
  if (!IsScalarConstant(fill)) return false;
  if (std::isinf(fill.value)) return fill.value < 0;
  return fill.value == -LargestFinite(logits);
}

// x = select(row >= col, ., fill) with row and col iotas on S's last two
// axes, and a fill that removes the key.
bool IsCausalMask(const Graph& graph, NodeId x, size_t rank) {
  const Node& select = graph.node(x);
  if (select.op != OpKind::kSelect) return false;
  if (!RemovesKey(graph.node(select.operands[2]), select.dtype)) return false;
  const Node& cond = graph.node(select.operands[0]);
  const int64_t row = static_cast<int64_t>(rank) - 2, col = static_cast<int64_t>(rank) - 1;
  if (cond.op == OpKind::kGe) {
    return IsIotaOnAxis(graph, cond.operands[0], row, rank) && IsIotaOnAxis(graph, cond.operands[1], col, rank);
  }
  if (cond.op == OpKind::kLe) {
    return IsIotaOnAxis(graph, cond.operands[0], col, rank) && IsIotaOnAxis(graph, cond.operands[1], row, rank);
  }
  return false;
}

}  // namespace

AttentionMatch MatchAttention(const Graph& graph, NodeId output, const std::vector<bool>& folded,
                              const DeviceLimits& limits) {
  const Node& out = graph.node(output);
  if (out.op != OpKind::kMatmul) return {};
  // P = e / s, e * (1 / s) or (1 / s) * e, with s = sum(e) over the last axis.
  std::vector<NodeId> chain = {output};
  const NodeId p = SkipCasts(graph, out.operands[0], chain);
  const Node& division = graph.node(p);
  NodeId e = -1, s = -1, reciprocal = -1;
  if (division.op == OpKind::kDiv) {
    e = division.operands[0];
    s = division.operands[1];
  } else if (division.op == OpKind::kMul) {
    for (int i : {0, 1}) {
      if (graph.node(division.operands[i]).op == OpKind::kReciprocal) {
        reciprocal = division.operands[i];
        s = graph.node(reciprocal).operands[0];
        e = division.operands[1 - i];
      }
    }
  }
  if (e < 0 || !IsRowReduce(graph, s, OpKind::kReduceSum) || graph.node(s).operands[0] != e) return {};
  chain.insert(chain.end(), {p, s, e});
  if (reciprocal >= 0) chain.push_back(reciprocal);

  // From here on `output` reads a softmax, and a refusal says why.
  auto refuse = [&](const std::string& why) {
    return AttentionMatch{.reason = absl::StrCat("matmul ", Quoted(out), " reads a softmax but is no attention kernel: ",
                                                 why)};
  };
  if (graph.node(e).op != OpKind::kExp) return refuse("the softmax's numerator is not exp(...)");
  NodeId x = graph.node(e).operands[0];
  const Node& shifted = graph.node(x);
  if (shifted.op == OpKind::kSub && IsRowReduce(graph, shifted.operands[1], OpKind::kReduceMax) &&
      graph.node(shifted.operands[1]).operands[0] == shifted.operands[0]) {
    chain.insert(chain.end(), {x, shifted.operands[1]});
    x = shifted.operands[0];
  }

  // The score program: the elementwise nodes x is computed from, back to the
  // non-elementwise ones it reads (the matmul S, and tensors from memory).
  std::vector<NodeId> program, stack = {x}, matmuls;
  absl::flat_hash_set<NodeId> seen;
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    const Node& node = graph.node(n);
    if (node.op == OpKind::kMatmul) {
      matmuls.push_back(n);
    } else if (IsElementwise(node.op)) {
      program.push_back(n);
      for (NodeId operand : node.operands) stack.push_back(operand);
    }
  }
  if (matmuls.size() != 1) {
    return refuse(absl::StrCat("the softmax's input reads ", matmuls.size(), " matmuls, not one"));
  }
  const NodeId scores = matmuls[0];
  const Node& s_node = graph.node(scores);
  std::sort(program.begin(), program.end());
  for (NodeId n : program) {
    const Dims& shape = graph.node(n).shape;
    absl::StatusOr<Dims> joined = BroadcastDims(shape, s_node.shape);
    if (!joined.ok() || *joined != s_node.shape) {
      return refuse(absl::StrCat(Quoted(graph.node(n)), " ", DimsString(shape), " does not broadcast to the scores ",
                                 DimsString(s_node.shape)));
    }
  }

  // Nothing but O may be seen outside the kernel.
  chain.push_back(scores);
  chain.insert(chain.end(), program.begin(), program.end());
  const absl::flat_hash_set<NodeId> members(chain.begin(), chain.end());
  const std::vector<std::vector<NodeId>> users = graph.Users();
  for (NodeId n : chain) {
    if (n == output) continue;
    if (std::find(graph.outputs().begin(), graph.outputs().end(), n) != graph.outputs().end()) {
      return refuse(absl::StrCat(Quoted(graph.node(n)), " is a graph output, so it is stored"));
    }
    for (NodeId u : users[n]) {
      if (!members.contains(u)) {
        return refuse(absl::StrCat(Quoted(graph.node(n)), " is also read by ", Quoted(graph.node(u))));
      }
    }
  }

  // What the Hopper kernel takes.
  if (!limits.HasWgmma()) return refuse("the attention kernel needs sm_90a (wgmma)");
  const DType dtype = s_node.dtype;
  if ((dtype != DType::kBF16 && dtype != DType::kF16) || out.dtype != dtype) {
    return refuse(absl::StrCat("Q, K and V are ", DTypeName(dtype), "; the attention kernel takes f16 or bf16"));
  }
  const MatmulOperand q = DescribeMatmulOperand(graph, scores, 0, folded);
  const MatmulOperand k = DescribeMatmulOperand(graph, scores, 1, folded);
  const MatmulOperand v = DescribeMatmulOperand(graph, output, 1, folded);
  const Dims batch(s_node.shape.begin(), s_node.shape.end() - 2);
  for (const MatmulOperand* operand : {&q, &k, &v}) {
    if (operand->batch_dims != batch) {
      return refuse(absl::StrCat("the batch dims of Q, K and V differ from the scores' ", DimsString(batch)));
    }
  }
  if (q.transposed || v.transposed) return refuse("Q or V is read transposed");
  const Dims& q_shape = graph.node(q.node).shape;
  const int64_t d = q_shape.back(), dv = out.shape.back(), skv = s_node.shape.back();
  if ((d != 64 && d != 128) || (dv != 64 && dv != 128)) {
    return refuse(absl::StrCat("head dims ", d, " (Q, K) and ", dv, " (V) must be 64 or 128"));
  }
  if (!k.transposed && skv % 8 != 0) {
    return refuse(absl::StrCat("Kᵀ is stored with rows of ", skv, " keys, not a multiple of 16 bytes"));
  }

  AttentionChain result;
  result.scores = scores;
  result.logits = x;
  result.probs = out.operands[0];
  result.output = output;
  result.score_program = program;
  result.causal = IsCausalMask(graph, x, s_node.shape.size());
  std::sort(chain.begin(), chain.end());
  result.nodes = std::move(chain);
  return {.chain = std::move(result)};
}

}  // namespace kiln
