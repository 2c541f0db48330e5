// What a user may allow the planner beyond the graph's exact semantics.
//
//   PlanOptions options;
//   options.allow_tf32 = true;                      // kiln --allow-tf32
//   absl::StatusOr<Plan> plan = PlanFusion(graph, DeviceLimits{}, options);
#ifndef KILN_FUSION_PLAN_OPTIONS_H_
#define KILN_FUSION_PLAN_OPTIONS_H_

namespace kiln {

struct PlanOptions {
  // f32 matmuls may run on tensor cores as tf32: operands rounded to 10-bit
  // mantissas, products summed in fp32, about seven times the FFMA rate on an
  // H200. Off, every f32 matmul is exact fp32 on CUDA cores, as the reference
  // interpreter computes it.
  bool allow_tf32 = false;

  bool operator==(const PlanOptions&) const = default;
};

}  // namespace kiln

#endif  // KILN_FUSION_PLAN_OPTIONS_H_
