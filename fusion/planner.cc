#include "fusion/planner.h"

#include <algorithm>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "fusion/attention_match.h"
#include "fusion/attention_schedule.h"
#include "fusion/axis_reduction_schedule.h"
#include "fusion/dead_nodes.h"
#include "fusion/grouping.h"
#include "fusion/matmul_schedule.h"
#include "fusion/op_class.h"
#include "fusion/operand_layout.h"
#include "fusion/row_schedule.h"
#include "fusion/traffic.h"
#include "fusion/transpose_schedule.h"
#include "graph/verifier.h"

namespace kiln {

absl::string_view KernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::kPointwise: return "pointwise";
    case KernelKind::kRowReduction: return "row_reduction";
    case KernelKind::kReduction: return "reduction";
    case KernelKind::kMatmul: return "matmul";
    case KernelKind::kTranspose: return "transpose";
    case KernelKind::kAttention: return "attention";
    case KernelKind::kSlice: return "slice";
  }
  return "?";
}

absl::string_view RowStrategyName(RowStrategy strategy) {
  switch (strategy) {
    case RowStrategy::kNone: return "none";
    case RowStrategy::kWarpPersistent: return "persistent (warp per row)";
    case RowStrategy::kPackedPersistent: return "persistent (rows packed in warps)";
    case RowStrategy::kStagedPersistent: return "persistent (rows staged in shared memory)";
    case RowStrategy::kBlockPersistent: return "persistent (block per row)";
    case RowStrategy::kClusterPersistent: return "split (cluster per row, persistent)";
    case RowStrategy::kLooped: return "looped";
    case RowStrategy::kClusterLooped: return "split (cluster per row, looped)";
  }
  return "?";
}

absl::string_view MatmulTierName(MatmulTier tier) {
  switch (tier) {
    case MatmulTier::kWgmma: return "wgmma";
    case MatmulTier::kMmaSync: return "mma.sync";
    case MatmulTier::kFfma: return "FFMA";
  }
  return "?";
}

std::string MatmulConfig::ToString() const {
  return absl::StrCat(block_m, "x", block_n, "x", block_k, ":", stages, ":", group_m, pingpong ? ":pingpong" : "",
                      epilogue_warps ? ":epilogue-warps" : "",
                      ClusterBlocks() != 1 ? absl::StrCat(":cluster=", cluster_m, "x", cluster_n) : "",
                      split_k != 1 ? absl::StrCat(":split-k=", split_k) : "");
}

std::optional<MatmulConfig> ParseMatmulConfig(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  const std::vector<absl::string_view> sides =
      parts.empty() ? std::vector<absl::string_view>{} : absl::StrSplit(parts[0], 'x');
  MatmulConfig c;
  if (parts.size() < 2 || sides.size() != 3 || !absl::SimpleAtoi(sides[0], &c.block_m) ||
      !absl::SimpleAtoi(sides[1], &c.block_n) || !absl::SimpleAtoi(sides[2], &c.block_k) ||
      !absl::SimpleAtoi(parts[1], &c.stages) || (parts.size() >= 3 && !absl::SimpleAtoi(parts[2], &c.group_m))) {
    return std::nullopt;
  }
  // The flags after GROUP, in ToString's order, each at most once.
  size_t next = 3;
  if (next < parts.size() && (parts[next] == "pingpong" || parts[next] == "epilogue-warps")) {
    c.pingpong = parts[next] == "pingpong";
    c.epilogue_warps = !c.pingpong;
    ++next;
  }
  if (absl::string_view flag = next < parts.size() ? parts[next] : ""; absl::ConsumePrefix(&flag, "cluster=")) {
    const std::vector<absl::string_view> blocks = absl::StrSplit(flag, 'x');
    if (blocks.size() != 2 || !absl::SimpleAtoi(blocks[0], &c.cluster_m) || !absl::SimpleAtoi(blocks[1], &c.cluster_n) ||
        c.cluster_m < 1 || c.cluster_n < 1) {
      return std::nullopt;
    }
    ++next;
  }
  if (absl::string_view flag = next < parts.size() ? parts[next] : ""; absl::ConsumePrefix(&flag, "split-k=")) {
    if (!absl::SimpleAtoi(flag, &c.split_k) || c.split_k < 1) return std::nullopt;
    ++next;
  }
  if (next < parts.size()) return std::nullopt;
  return c;
}

std::string Kernel::Strategy() const {
  switch (kind) {
    case KernelKind::kPointwise: return "vectorized tiles";
    case KernelKind::kRowReduction: {
      const RowSchedule& r = row();
      std::string s(RowStrategyName(r.strategy));
      if (r.strategy == RowStrategy::kPackedPersistent) {
        absl::StrAppend(&s, ", ", r.lanes_per_row, r.lanes_per_row == 1 ? " lane" : " lanes", " per row");
      }
      const int rows_per_warp = r.lanes_per_row > 0 ? 32 / r.lanes_per_row * r.rows_per_group : 1;
      if (r.strategy == RowStrategy::kStagedPersistent) {
        absl::StrAppend(&s, ", ", r.threads * r.rows_per_group, " rows per block");
      } else if (rows_per_warp > 1) absl::StrAppend(&s, ", ", rows_per_warp, " rows per warp");
      if (r.cluster_blocks > 1) absl::StrAppend(&s, " x", r.cluster_blocks);
      if (r.online_softmax) absl::StrAppend(&s, ", online softmax");
      if (!r.moment_pairs.empty()) absl::StrAppend(&s, ", online moments");
      if (r.passes > 1) absl::StrAppend(&s, ", ", r.passes, " passes");
      return s;
    }
    case KernelKind::kReduction: {
      const AxisReductionSchedule& a = axis_reduction();
      std::string s = absl::StrCat("column tiles (", a.tile_columns(), a.tile_columns() == 1 ? " column" : " columns");
      if (a.outer_lanes > 1) absl::StrAppend(&s, " x ", a.outer_lanes, " outer");
      if (a.split > 1) absl::StrAppend(&s, ", split x", a.split);
      if (!a.collapsed()) absl::StrAppend(&s, ", gathered rows");
      return absl::StrCat(s, ")");
    }
    case KernelKind::kMatmul: {
      const MatmulSchedule& m = matmul();
      const MatmulConfig& c = m.config;
      std::string s = absl::StrCat(MatmulTierName(m.tier), ", ", c.block_m, "x", c.block_n, "x", c.block_k,
                                   " tiles, ", c.stages, " stages", c.pingpong ? ", ping-pong" : "",
                                   c.epilogue_warps ? ", epilogue warps" : "",
                                   c.ClusterBlocks() > 1 ? absl::StrCat(", clusters of ", c.cluster_m, "x", c.cluster_n) : "",
                                   c.split_k > 1 ? absl::StrCat(", split-K x", c.split_k) : "");
      if (m.config_source != "heuristic") absl::StrAppend(&s, ", ", m.config_source);
      return s;
    }
    case KernelKind::kAttention: {
      const AttentionSchedule& a = attention();
      return absl::StrCat("flash, ", a.block_q, " query rows x ", a.block_kv, " keys, ", a.stages, " stages",
                          a.causal ? ", causal" : "");
    }
    case KernelKind::kTranspose: return TransposeStrategyText(transpose());
    case KernelKind::kSlice: return "index-mapped copy";
  }
  return "?";
}

std::string Kernel::Reason() const {
  switch (kind) {
    case KernelKind::kRowReduction: return row().reason;
    case KernelKind::kMatmul: return matmul().reason;
    case KernelKind::kAttention: return attention().reason;
    case KernelKind::kReduction: return axis_reduction().reason;
    case KernelKind::kTranspose: return transpose().reason;
    default: return "";
  }
}

namespace {

absl::StatusOr<Plan> BuildPlan(const Graph& user_graph, const DeviceLimits& limits, const PlanOptions& options,
                               bool fuse) {
  if (absl::Status s = VerifyGraph(user_graph); !s.ok()) return s;
  for (NodeId id : user_graph.outputs()) {
    if (user_graph.node(id).op == OpKind::kIota) {
      return absl::UnimplementedError(absl::StrCat(NodeLabel(user_graph.node(id)),
                                                   ": an iota is computed where it is read and cannot be a graph "
                                                   "output; add 0 to it to store it"));
    }
  }
  const std::optional<Graph> live = WithoutDeadNodes(user_graph);
  const Graph& graph = live.has_value() ? *live : user_graph;
  const std::vector<bool> folded = fuse ? FoldOperandTransposes(graph, limits, options) : std::vector<bool>(graph.size(), false);
  // Attention chains, each one kernel; a matmul that reads a softmax but
  // does not qualify says why.
  std::vector<AttentionChain> chains;
  std::vector<AttentionRefusal> refusals;
  std::vector<bool> in_chain(graph.size(), false);
  for (NodeId n = 0; fuse && n < graph.size(); ++n) {
    AttentionMatch match = MatchAttention(graph, n, folded, limits);
    if (match.chain.has_value() &&
        std::none_of(match.chain->nodes.begin(), match.chain->nodes.end(), [&](NodeId m) { return in_chain[m]; })) {
      for (NodeId m : match.chain->nodes) in_chain[m] = true;
      chains.push_back(*std::move(match.chain));
    } else if (!match.reason.empty()) {
      refusals.push_back({.matmul = n, .reason = std::move(match.reason)});
    }
  }
  Grouping grouping = GroupNodes(graph, fuse, folded, chains);
  Plan plan;
  plan.attention_refusals = std::move(refusals);
  plan.fused = fuse;
  plan.kernel_of = grouping.group_of;
  plan.boundaries = std::move(grouping.boundaries);

  // An attention chain runs its softmax's reductions as such, whatever their length.
  for (NodeId n = 0; n < graph.size(); ++n) {
    const int k = plan.kernel_of[n];
    if (k >= 0 && grouping.groups[k].kind != KernelKind::kAttention && IsUnitReduction(graph, n)) {
      plan.unit_reductions.push_back({.reduction = n, .reason = UnitReductionReason(graph, n)});
    }
  }

  std::vector<bool> is_output(graph.size(), false);
  for (NodeId id : graph.outputs()) is_output[id] = true;
  const std::vector<std::vector<NodeId>> users = graph.Users();
  for (NodeId t = 0; t < graph.size(); ++t) {
    if (!folded[t]) continue;
    for (NodeId u : users[t]) {
      const std::vector<NodeId>& operands = graph.node(u).operands;
      for (int i = 0; i < 2; ++i) {
        if (operands[i] == t) plan.layout_folds.push_back({.transpose = t, .matmul = u, .operand = i});
      }
    }
  }

  for (size_t k = 0; k < grouping.groups.size(); ++k) {
    const Group& group = grouping.groups[k];
    Kernel kernel;
    kernel.kind = group.kind;
    kernel.nodes = group.nodes;
    const int gid = static_cast<int>(k);
    for (NodeId n : group.nodes) {
      for (NodeId operand : graph.node(n).operands) {
        // A folded transpose is read as its source's memory.
        const NodeId p = folded[operand] ? graph.node(operand).operands[0] : operand;
        if (plan.kernel_of[p] == gid || IsComputedSource(graph.node(p))) continue;
        if (std::find(kernel.inputs.begin(), kernel.inputs.end(), p) == kernel.inputs.end()) {
          kernel.inputs.push_back(p);
        }
      }
      const bool used_outside = std::any_of(users[n].begin(), users[n].end(),
                                            [&](NodeId u) { return plan.kernel_of[u] != gid; });
      if (is_output[n] || used_outside) kernel.outputs.push_back(n);
    }
    if (fuse) {
      kernel.name = absl::StrCat("f", k, "_", KernelKindName(kernel.kind));
    } else {
      kernel.name = absl::StrCat("u", k, "_", OpName(graph.node(group.nodes.front()).op));
    }
    if (kernel.kind == KernelKind::kRowReduction) {
      kernel.schedule = ScheduleRows(graph, group, kernel.inputs, kernel.outputs, limits);
    }
    if (kernel.kind == KernelKind::kReduction) {
      kernel.schedule = ScheduleAxisReduction(graph, group.nodes.front(), limits);  // a reduction runs alone
    }
    if (kernel.kind == KernelKind::kMatmul) {
      // A matmul starts its group: consumers join it, it never joins another.
      kernel.schedule = ScheduleMatmul(graph, kernel, folded, limits, options);
    }
    if (kernel.kind == KernelKind::kTranspose) kernel.schedule = ScheduleTranspose(graph, group.nodes.front());
    if (kernel.kind == KernelKind::kAttention) {
      for (const AttentionChain& chain : chains) {
        if (plan.kernel_of[chain.output] == gid) kernel.schedule = ScheduleAttention(graph, chain, folded, limits);
      }
    }
    absl::StatusOr<Traffic> traffic = KernelTraffic(graph, kernel);
    if (!traffic.ok()) return traffic.status();
    kernel.traffic = *traffic;
    if (absl::Status s = AddToPlanTotal(graph, kernel, fuse, plan.total); !s.ok()) return s;
    plan.kernels.push_back(std::move(kernel));
  }
  return plan;
}

}  // namespace

absl::StatusOr<Plan> PlanFusion(const Graph& graph, const DeviceLimits& limits, const PlanOptions& options) {
  return BuildPlan(graph, limits, options, /*fuse=*/true);
}

absl::StatusOr<Plan> PlanUnfused(const Graph& graph, const DeviceLimits& limits, const PlanOptions& options) {
  return BuildPlan(graph, limits, options, /*fuse=*/false);
}

}  // namespace kiln
