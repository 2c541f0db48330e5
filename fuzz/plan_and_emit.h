// The pipeline after loading, as `kiln plan` and `kiln emit` run it, for the
// fuzz targets that load graphs: verify -> plan (fused and unfused) ->
// reports -> code generation, on three devices: an H200, one without
// clusters, and a small pre-Hopper one with a fixed matmul tile. Emitting
// only generates CUDA source, so the loop needs no NVRTC.
//
//   FuzzPlanAndEmit(graph);   // aborts, naming the property, on a violation
//
// Beyond "no crash, no UB": a loaded graph verifies, every error is
// InvalidArgument, and every kernel of a plan has an output and a launch of
// at least one block.
#ifndef KILN_FUZZ_PLAN_AND_EMIT_H_
#define KILN_FUZZ_PLAN_AND_EMIT_H_

#include "absl/status/statusor.h"
#include "codegen/kernel_codegen.h"
#include "fusion/matmul_schedule.h"
#include "fusion/plan_report.h"
#include "fusion/planner.h"
#include "fuzz/fuzz_checks.h"
#include "graph/verifier.h"

namespace fuzz_internal {

inline void PlanAndEmit(const kiln::Graph& graph, const kiln::DeviceLimits& limits,
                        const kiln::MatmulConfig* matmul_config = nullptr) {
  absl::StatusOr<kiln::Plan> fused = kiln::PlanFusion(graph, limits);
  absl::StatusOr<kiln::Plan> unfused = kiln::PlanUnfused(graph, limits);
  // A fixed config either fits a matmul kernel or is refused naming it.
  if (fused.ok() && matmul_config != nullptr) {
    const absl::Status applied = kiln::OverrideMatmulConfigs(*matmul_config, "--matmul-tile", limits, *fused);
    FUZZ_EXPECT(applied.ok() || applied.code() == absl::StatusCode::kInvalidArgument,
                "a matmul config is applied or refused with InvalidArgument");
    if (!applied.ok()) return;
  }
  // Planning refuses only plans whose traffic passes kMaxPlanBytes.
  for (const absl::StatusOr<kiln::Plan>* plan : {&fused, &unfused}) {
    FUZZ_EXPECT(plan->ok() || plan->status().code() == absl::StatusCode::kInvalidArgument,
                "planning fails only with InvalidArgument");
  }
  if (!fused.ok() || !unfused.ok()) return;
  const kiln::PlanTarget target{.gpu = "fuzz target", .limits = limits};
  kiln::PlanTable(graph, *fused, *unfused, target);
  for (bool explain : {false, true}) kiln::PlanJson(graph, "fuzz", *fused, *unfused, target, explain);
  kiln::PlanExplain(graph, *fused);
  for (const kiln::Plan* plan : {&*fused, &*unfused}) {
    for (const kiln::Kernel& kernel : plan->kernels) {
      FUZZ_EXPECT(!kernel.outputs.empty(), "every kernel writes something");
      absl::StatusOr<kiln::GeneratedKernel> generated = kiln::GenerateKernel(graph, kernel, limits);
      // A kernel too large for one launch grid is refused, never truncated.
      FUZZ_EXPECT(generated.ok() || generated.status().code() == absl::StatusCode::kInvalidArgument,
                  "code generation fails only with InvalidArgument");
      if (generated.ok()) FUZZ_EXPECT(generated->launch.grid >= 1, "a launch has at least one block");
    }
  }
}

}  // namespace fuzz_internal

inline void FuzzPlanAndEmit(const kiln::Graph& graph) {
  using fuzz_internal::PlanAndEmit;
  FUZZ_EXPECT(kiln::VerifyGraph(graph).ok(), "a loaded graph verifies");
  PlanAndEmit(graph, kiln::DeviceLimits{});
  kiln::DeviceLimits no_clusters;
  no_clusters.supports_clusters = false;
  PlanAndEmit(graph, no_clusters);
  // A small pre-Hopper device with a fixed matmul tile takes the other
  // schedule branches (mma.sync rather than wgmma).
  kiln::DeviceLimits small;
  small.sm_count = 16;
  small.max_cluster_blocks = 2;
  small.registers_per_sm = 32768;
  small.shared_bytes_per_block = 99 * 1024;
  small.compute_capability = 86;
  const kiln::MatmulConfig tile{.block_m = 64, .block_n = 128, .block_k = 64, .stages = 3};
  PlanAndEmit(graph, small, &tile);
}

#endif  // KILN_FUZZ_PLAN_AND_EMIT_H_
