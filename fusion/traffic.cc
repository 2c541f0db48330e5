#include "fusion/traffic.h"

#include <algorithm>

namespace kiln {

int64_t TensorBytes(const Node& node) { return NumElements(node.shape) * DTypeSize(node.dtype); }

int64_t InputBytes(const Graph& graph, const Kernel& kernel, NodeId input) {
  // A looped row kernel reads a full-shape input once per pass that uses it;
  // every other input is read once.
  int64_t passes = 0;
  for (const std::vector<NodeId>& pass : kernel.row.pass_inputs) {
    passes += std::count(pass.begin(), pass.end(), input);
  }
  return std::max<int64_t>(passes, 1) * TensorBytes(graph.node(input));
}

Traffic KernelTraffic(const Graph& graph, const Kernel& kernel) {
  Traffic t;
  for (NodeId input : kernel.inputs) t.bytes_read += InputBytes(graph, kernel, input);
  for (NodeId output : kernel.outputs) t.bytes_written += TensorBytes(graph.node(output));
  for (NodeId id : kernel.nodes) {
    const Node& node = graph.node(id);
    if (node.op == OpKind::kMatmul) {
      const Dims& a = graph.node(node.operands[0]).shape;
      const int64_t k = a.back();
      t.flops += 2.0 * static_cast<double>(NumElements(node.shape)) * static_cast<double>(k);
      t.tensor_core = node.dtype == DType::kF16 || node.dtype == DType::kBF16;
    } else if (OpFamilyOf(node.op) == OpFamily::kReduce) {
      t.flops += static_cast<double>(NumElements(graph.node(node.operands[0]).shape));
    } else if (IsElementwise(node.op)) {
      t.flops += static_cast<double>(NumElements(node.shape));
    }
  }
  return t;
}

double RooflineSeconds(const Traffic& traffic, const DeviceLimits& limits) {
  const double rate = traffic.tensor_core ? limits.tensor_flops_per_second : limits.f32_flops_per_second;
  return std::max(static_cast<double>(traffic.bytes()) / limits.hbm_bytes_per_second, traffic.flops / rate);
}

double PlanRoofline(const Plan& plan, const DeviceLimits& limits) {
  double seconds = 0;
  for (const Kernel& k : plan.kernels) seconds += RooflineSeconds(k.traffic, limits);
  return seconds;
}

}  // namespace kiln
