// The traffic model of docs/design.md ("The traffic model"): compulsory HBM bytes and FLOPs per kernel.
//
//   Traffic t = KernelTraffic(graph, kernel);   // kernel.inputs/outputs/row set
//   RooflineSeconds(t, limits)                   // max(bytes / bandwidth, flops / rate)
//   PlanRoofline(plan, limits)                   // its kernels' bounds, one after another
//
// A kernel reads each distinct tensor it consumes once in full (a broadcast
// operand costs its own size), except that a looped row strategy reads a
// full-shape input once per pass that uses it; it writes each output once.
// Constants are immediates and cost nothing. A matmul counts A, B and C once.
#ifndef KILN_FUSION_TRAFFIC_H_
#define KILN_FUSION_TRAFFIC_H_

#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

Traffic KernelTraffic(const Graph& graph, const Kernel& kernel);
// What `kernel` reads of one of its inputs, every pass counted: the bytes on
// the edge from that tensor into the kernel.
int64_t InputBytes(const Graph& graph, const Kernel& kernel, NodeId input);
double RooflineSeconds(const Traffic& traffic, const DeviceLimits& limits);
// Kernels run one after another, each at its own bound: a plan's total
// traffic mixes matrix and memory work that no single rate describes.
double PlanRoofline(const Plan& plan, const DeviceLimits& limits);
int64_t TensorBytes(const Node& node);

}  // namespace kiln

#endif  // KILN_FUSION_TRAFFIC_H_
