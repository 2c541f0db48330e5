#include "fusion/traffic.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "graph/checked_math.h"

namespace kiln {
namespace {

// `total += count * bytes`, false when the result would pass kMaxPlanBytes.
bool AddBytes(int64_t& total, int64_t count, int64_t bytes) {
  const std::optional<int64_t> product = CheckedMul(count, bytes);
  if (!product.has_value()) return false;
  const std::optional<int64_t> sum = CheckedAdd(total, *product);
  if (!sum.has_value() || *sum > kMaxPlanBytes) return false;
  total = *sum;
  return true;
}

std::string KernelLabel(const Graph& graph, const Kernel& kernel) {
  return absl::StrCat("kernel ", kernel.name, " (first ", NodeLabel(graph.node(kernel.nodes.front())), ")");
}

absl::Status KernelTooLarge(const Graph& graph, const Kernel& kernel) {
  return absl::InvalidArgumentError(absl::StrCat(KernelLabel(graph, kernel), " moves more than 2^62 bytes"));
}

int64_t InputPasses(const Kernel& kernel, NodeId input) {
  // A looped row kernel reads a full-shape input once per pass that uses it;
  // every other input is read once.
  if (kernel.kind != KernelKind::kRowReduction) return 1;
  int64_t passes = 0;
  for (const std::vector<NodeId>& pass : kernel.row().pass_inputs) {
    passes += std::count(pass.begin(), pass.end(), input);
  }
  return std::max<int64_t>(passes, 1);
}

}  // namespace

int64_t TensorBytes(const Node& node) { return NumElements(node.shape) * DTypeSize(node.dtype); }

int64_t InputBytes(const Graph& graph, const Kernel& kernel, NodeId input) {
  return InputPasses(kernel, input) * TensorBytes(graph.node(input));
}

absl::StatusOr<Traffic> KernelTraffic(const Graph& graph, const Kernel& kernel) {
  Traffic t;
  for (NodeId input : kernel.inputs) {
    if (!AddBytes(t.bytes_read, InputPasses(kernel, input), TensorBytes(graph.node(input)))) {
      return KernelTooLarge(graph, kernel);
    }
  }
  for (NodeId output : kernel.outputs) {
    if (!AddBytes(t.bytes_written, 1, TensorBytes(graph.node(output)))) return KernelTooLarge(graph, kernel);
  }
  if (t.bytes_read > kMaxPlanBytes - t.bytes_written) return KernelTooLarge(graph, kernel);
  for (NodeId id : kernel.nodes) {
    const Node& node = graph.node(id);
    if (node.op == OpKind::kMatmul) {
      const Dims& a = graph.node(node.operands[0]).shape;
      const int64_t k = a.back();
      t.flops += 2.0 * static_cast<double>(NumElements(node.shape)) * static_cast<double>(k);
      // f32 products reach the matrix units only as tf32, where allowed.
      t.tf32 = kernel.kind == KernelKind::kMatmul && kernel.matmul().tier == MatmulTier::kWgmma &&
               kernel.matmul().operand_bytes == 4;
      t.tensor_core = node.dtype == DType::kF16 || node.dtype == DType::kBF16 || t.tf32;
    } else if (OpFamilyOf(node.op) == OpFamily::kReduce) {
      t.flops += static_cast<double>(NumElements(graph.node(node.operands[0]).shape));
    } else if (IsElementwise(node.op)) {
      t.flops += static_cast<double>(NumElements(node.shape));
    }
  }
  // Key blocks right of the diagonal are skipped: half the work of a square causal attention.
  if (kernel.kind == KernelKind::kAttention && kernel.attention().causal) t.flops /= 2;
  return t;
}

absl::Status AddToPlanTotal(const Graph& graph, const Kernel& kernel, bool fused, Traffic& total) {
  Traffic sum = total;
  if (!AddBytes(sum.bytes_read, 1, kernel.traffic.bytes_read) ||
      !AddBytes(sum.bytes_written, 1, kernel.traffic.bytes_written) ||
      sum.bytes_read > kMaxPlanBytes - sum.bytes_written) {
    return absl::InvalidArgumentError(absl::StrCat("the ", fused ? "fused" : "unfused",
                                                   " plan moves more than 2^62 bytes: the total passes the limit at ",
                                                   KernelLabel(graph, kernel)));
  }
  sum.flops += kernel.traffic.flops;
  total = sum;
  return absl::OkStatus();
}

double RooflineSeconds(const Traffic& traffic, const DeviceLimits& limits) {
  const double tensor_rate = limits.tensor_flops_per_second / (traffic.tf32 ? 2 : 1);
  const double rate = traffic.tensor_core ? tensor_rate : limits.f32_flops_per_second;
  return std::max(static_cast<double>(traffic.bytes()) / limits.hbm_bytes_per_second, traffic.flops / rate);
}

double PlanRoofline(const Plan& plan, const DeviceLimits& limits) {
  double seconds = 0;
  for (const Kernel& k : plan.kernels) seconds += RooflineSeconds(k.traffic, limits);
  return seconds;
}

}  // namespace kiln
