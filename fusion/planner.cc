#include "fusion/planner.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "fusion/grouping.h"
#include "fusion/matmul_schedule.h"
#include "fusion/op_class.h"
#include "fusion/row_schedule.h"
#include "fusion/traffic.h"
#include "graph/verifier.h"

namespace kiln {

absl::string_view KernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::kPointwise: return "pointwise";
    case KernelKind::kRowReduction: return "row_reduction";
    case KernelKind::kReduction: return "reduction";
    case KernelKind::kMatmul: return "matmul";
    case KernelKind::kTranspose: return "transpose";
  }
  return "?";
}

absl::string_view RowStrategyName(RowStrategy strategy) {
  switch (strategy) {
    case RowStrategy::kNone: return "none";
    case RowStrategy::kWarpPersistent: return "persistent (warp per row)";
    case RowStrategy::kBlockPersistent: return "persistent (block per row)";
    case RowStrategy::kClusterPersistent: return "split (cluster per row, persistent)";
    case RowStrategy::kLooped: return "looped";
    case RowStrategy::kClusterLooped: return "split (cluster per row, looped)";
  }
  return "?";
}

std::string Kernel::Strategy() const {
  switch (kind) {
    case KernelKind::kPointwise: return "vectorized tiles";
    case KernelKind::kRowReduction: {
      std::string s(RowStrategyName(row.strategy));
      if (row.cluster_blocks > 1) absl::StrAppend(&s, " x", row.cluster_blocks);
      if (row.online_softmax) absl::StrAppend(&s, ", online softmax");
      if (row.passes > 1) absl::StrAppend(&s, ", ", row.passes, " passes");
      return s;
    }
    case KernelKind::kReduction: return "strided (a thread per output)";
    case KernelKind::kMatmul:
      return absl::StrCat(matmul.tensor_cores ? "tensor cores" : "CUDA cores", ", ", matmul.block_m, "x",
                          matmul.block_n, "x", matmul.block_k, " tiles, ", matmul.stages, " stages");
    case KernelKind::kTranspose: return "index-mapped copy";
  }
  return "?";
}

std::string Kernel::Reason() const {
  switch (kind) {
    case KernelKind::kRowReduction: return row.reason;
    case KernelKind::kMatmul: return matmul.reason;
    default: return "";
  }
}

namespace {

absl::StatusOr<Plan> BuildPlan(const Graph& graph, const DeviceLimits& limits, bool fuse) {
  if (absl::Status s = VerifyGraph(graph); !s.ok()) return s;
  Grouping grouping = GroupNodes(graph, fuse);
  Plan plan;
  plan.fused = fuse;
  plan.kernel_of = grouping.group_of;
  plan.boundaries = std::move(grouping.boundaries);

  std::vector<bool> is_output(graph.size(), false);
  for (NodeId id : graph.outputs()) is_output[id] = true;
  const std::vector<std::vector<NodeId>> users = graph.Users();

  for (size_t k = 0; k < grouping.groups.size(); ++k) {
    const Group& group = grouping.groups[k];
    Kernel kernel;
    kernel.kind = group.kind;
    kernel.nodes = group.nodes;
    const int gid = static_cast<int>(k);
    for (NodeId n : group.nodes) {
      for (NodeId p : graph.node(n).operands) {
        if (plan.kernel_of[p] == gid || graph.node(p).op == OpKind::kConstant) continue;
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
      kernel.row = ScheduleRows(graph, group, kernel.inputs, kernel.outputs, limits);
    }
    if (kernel.kind == KernelKind::kMatmul) {
      // A matmul starts its group: consumers join it, it never joins another.
      kernel.matmul = ScheduleMatmul(graph, kernel.nodes.front(), limits);
    }
    kernel.traffic = KernelTraffic(graph, kernel);
    plan.total.bytes_read += kernel.traffic.bytes_read;
    plan.total.bytes_written += kernel.traffic.bytes_written;
    plan.total.flops += kernel.traffic.flops;
    plan.kernels.push_back(std::move(kernel));
  }
  return plan;
}

}  // namespace

absl::StatusOr<Plan> PlanFusion(const Graph& graph, const DeviceLimits& limits) {
  return BuildPlan(graph, limits, /*fuse=*/true);
}

absl::StatusOr<Plan> PlanUnfused(const Graph& graph, const DeviceLimits& limits) {
  return BuildPlan(graph, limits, /*fuse=*/false);
}

}  // namespace kiln
