// Chooses how a matmul kernel runs: the main-loop tier (wgmma on sm_90a for
// f16/bf16 operands TMA can read, and for f32 ones as tf32 where PlanOptions
// allow it; mma.sync for other f16/bf16; exact FFMA for f32), how it reads
// each operand (layout, batch broadcasting), and a tile
// config chosen by how evenly the tiles fill the device's SMs. A tuner or the
// user may replace the config afterwards with ApplyMatmulConfig.
//
//   MatmulSchedule s = ScheduleMatmul(graph, kernel, folded, limits, PlanOptions{});
//   s.tier                       // MatmulTier::kWgmma for bf16 8192^3 on an H200
//   s.config.ToString()          // "128x256x64:3:8"
//   s.reason                     // "bf16 on tensor cores (wgmma + TMA, ...); 128x256 tiles: ..."
//   absl::Status ok = ApplyMatmulConfig(other, "tuned", limits, s);
#ifndef KILN_FUSION_MATMUL_SCHEDULE_H_
#define KILN_FUSION_MATMUL_SCHEDULE_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "fusion/plan_options.h"
#include "graph/graph.h"

namespace kiln {

// How `matmul` reads operand `index` (0: A, 1: B): through a transpose that
// `folded` marks (indexed by node), the transpose's source in swapped layout.
MatmulOperand DescribeMatmulOperand(const Graph& graph, NodeId matmul, int index, const std::vector<bool>& folded);

// OK when the wgmma tier can run `matmul` reading its operands as `a` and `b`
// on `limits`' device with `options`; otherwise FailedPrecondition saying why not.
absl::Status WgmmaCanRun(const Graph& graph, NodeId matmul, const MatmulOperand& a, const MatmulOperand& b,
                         const DeviceLimits& limits, const PlanOptions& options);

// The schedule of a matmul kernel whose nodes and outputs the planner has
// set (kernel.nodes.front() is the matmul), with the heuristic config.
MatmulSchedule ScheduleMatmul(const Graph& graph, const Kernel& kernel, const std::vector<bool>& folded,
                              const DeviceLimits& limits, const PlanOptions& options);

// Replaces `s`'s config with `config`, recomputing what follows from it, and
// records `source` ("tuned", "--matmul-tile", ...). InvalidArgument, with `s`
// unchanged, when `s`'s tier cannot run it or it does not fit `limits`.
absl::Status ApplyMatmulConfig(const MatmulConfig& config, absl::string_view source, const DeviceLimits& limits,
                               MatmulSchedule& s);

// ApplyMatmulConfig on every matmul kernel of `plan` whose tier takes a
// config; InvalidArgument naming the first kernel it does not fit. Epilogue
// warps go to the wgmma kernels they can serve (MatmulSchedule::
// no_epilogue_warps); the others take the same tile with their epilogue on
// the consumers, so one config applies to a plan whose matmuls differ in
// their epilogues (an unfused plan's have none).
absl::Status OverrideMatmulConfigs(const MatmulConfig& config, absl::string_view source, const DeviceLimits& limits,
                                   Plan& plan);

// Shared memory a wgmma-tier block needs for `config` with outputs staged at
// `staging_element_bytes` per element: the stages (a K slice of each operand
// is one 128-byte swizzle row per tile row), one staging tile per consumer
// warpgroup, the barriers, and 1024 bytes to align the base.
int64_t WgmmaSharedBytes(const MatmulConfig& config, int staging_element_bytes);

// Output tiles of `config` over `s`'s product (its batches included).
int64_t MatmulTileCount(const MatmulSchedule& s, const MatmulConfig& config);

// Tiles of `config`'s clusters (MatmulConfig::cluster_m x cluster_n block
// tiles each) over `s`'s product: MatmulTileCount without clusters.
int64_t ClusterTileCount(const MatmulSchedule& s, const MatmulConfig& config);

// Whether `config`'s tiles fill fewer than half of `limits`' SMs: where
// splitting K pays (MatmulConfig::split_k).
bool TilesLeaveSmsIdle(const MatmulSchedule& s, const MatmulConfig& config, const DeviceLimits& limits);

// The wgmma K step for operands of `operand_bytes`: one 128-byte swizzle row.
int WgmmaBlockK(int operand_bytes);

// Whether a wgmma epilogue stages an output of `element_bytes` per element,
// in a C of `n` columns, in shared memory for a TMA store. Narrow elements
// are, where C's rows are a multiple of 16 bytes: a warp's accumulator pairs
// of them cover only half of each 32-byte sector. Elements of 4 bytes or more
// are stored from the registers: their pairs fill whole sectors, and their
// staging tiles would take the shared memory of pipeline stages.
bool StagesOutput(int64_t element_bytes, int64_t n);

}  // namespace kiln

#endif  // KILN_FUSION_MATMUL_SCHEDULE_H_
