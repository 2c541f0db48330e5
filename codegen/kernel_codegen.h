// Code generation for a plan: one GeneratedKernel per kernel, by kind, and
// the commented source `kiln emit` and dump folders show.
//
//   absl::StatusOr<GeneratedKernel> k = GenerateKernel(graph, plan.kernels[i], limits);
//   std::string tu = *EmitTranslationUnit(graph, plan, limits);   // `kiln emit`
//   KernelComments(graph, plan, kernels)[i]
//     // ---- kernel f0_pointwise: pointwise, vectorized tiles
//     // launch: grid 1056, block 256, cluster 1, dynamic shared memory 0 bytes
//     // parameters:
//     //   in0   x  f32[16384,16384]  graph input
//     //   out0  y  f32[16384,16384]  graph output
#ifndef KILN_CODEGEN_KERNEL_CODEGEN_H_
#define KILN_CODEGEN_KERNEL_CODEGEN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> GenerateKernel(const Graph& graph, const Kernel& kernel,
                                               const DeviceLimits& limits);

// Every kernel of the plan, in launch order.
absl::StatusOr<std::vector<GeneratedKernel>> GeneratePlan(const Graph& graph, const Plan& plan,
                                                          const DeviceLimits& limits);

// For each kernel of `plan` (`generated` is GeneratePlan's result): what it
// computes, how it is launched, and the graph value each parameter carries,
// a graph input or output, a tensor another kernel writes or reads, or a
// view; a descriptor slot (map<k>) says it is a TMA descriptor of that
// value's memory, read or written. Node names are safe in a comment (ValidateNodeName allows no quotes,
// backslashes or newlines).
std::vector<std::string> KernelComments(const Graph& graph, const Plan& plan,
                                        const std::vector<GeneratedKernel>& generated);

// Every kernel of the plan in one CUDA translation unit: the device library
// once, then each kernel after its comment.
absl::StatusOr<std::string> EmitTranslationUnit(const Graph& graph, const Plan& plan,
                                                const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_KERNEL_CODEGEN_H_
