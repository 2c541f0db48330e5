// Code generation for a plan: one GeneratedKernel per kernel, by kind.
//
//   absl::StatusOr<GeneratedKernel> k = GenerateKernel(graph, plan.kernels[i], limits);
//   std::string tu = *EmitTranslationUnit(graph, plan, limits);   // `kiln emit`
#ifndef KILN_CODEGEN_KERNEL_CODEGEN_H_
#define KILN_CODEGEN_KERNEL_CODEGEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

absl::StatusOr<GeneratedKernel> GenerateKernel(const Graph& graph, const Kernel& kernel,
                                               const DeviceLimits& limits);

// Every kernel of the plan in one CUDA translation unit: the device library
// once, then each kernel after a comment naming it.
absl::StatusOr<std::string> EmitTranslationUnit(const Graph& graph, const Plan& plan,
                                                const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_CODEGEN_KERNEL_CODEGEN_H_
