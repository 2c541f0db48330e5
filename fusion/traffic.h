// The traffic model of docs/design.md ("The traffic model"): compulsory HBM bytes and FLOPs per kernel.
//
//   Traffic t = *KernelTraffic(graph, kernel);  // kernel.inputs/outputs/row set
//   AddToPlanTotal(graph, kernel, fused, plan.total)  // fails past kMaxPlanBytes
//   RooflineSeconds(t, limits)                   // max(bytes / bandwidth, flops / rate)
//   PlanRoofline(plan, limits)                   // its kernels' bounds, one after another
//
// A kernel reads each distinct tensor it consumes once in full (a broadcast
// operand costs its own size), except that a looped row strategy reads a
// full-shape input once per pass that uses it; it writes each output once.
// Scalar constants are immediates and cost nothing; a tensor constant is read
// like an input. A matmul counts A, B and C once.
#ifndef KILN_FUSION_TRAFFIC_H_
#define KILN_FUSION_TRAFFIC_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

// The most bytes a plan may move, read plus written, in one kernel or in all
// of them. Every tensor holds at most 2^50 bytes, but a plan may read one
// many times; 2^62 keeps every total, and the runtime's workspace (at most
// the plan's writes plus alignment), clear of int64 overflow.
inline constexpr int64_t kMaxPlanBytes = int64_t{1} << 62;

// Fails when the kernel moves more than kMaxPlanBytes.
absl::StatusOr<Traffic> KernelTraffic(const Graph& graph, const Kernel& kernel);
// Adds a kernel's traffic (already computed) to its plan's total; fails when
// the total would pass kMaxPlanBytes.
absl::Status AddToPlanTotal(const Graph& graph, const Kernel& kernel, bool fused, Traffic& total);
// What `kernel` reads of one of its inputs, every pass counted: the bytes on
// the edge from that tensor into the kernel (of a plan whose traffic passed
// KernelTraffic, so within kMaxPlanBytes).
int64_t InputBytes(const Graph& graph, const Kernel& kernel, NodeId input);
double RooflineSeconds(const Traffic& traffic, const DeviceLimits& limits);
// Kernels run one after another, each at its own bound: a plan's total
// traffic mixes matrix and memory work that no single rate describes.
double PlanRoofline(const Plan& plan, const DeviceLimits& limits);
int64_t TensorBytes(const Node& node);

}  // namespace kiln

#endif  // KILN_FUSION_TRAFFIC_H_
