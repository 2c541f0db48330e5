// Flags that describe the GPU a plan is made for, shared by `kiln plan`,
// `emit` and `run` (the command table lists DeviceFlags() for each). Defaults
// are an H200's; `run` starts from the device's own.
//
//   DeviceLimits limits = LimitsFromFlags(line.flags, DeviceLimits{});
//   ApplyMatmulTileFlag(line.flags, limits, plan);   // --matmul-tile, once planned
#ifndef KILN_FRONTENDS_CLI_DEVICE_FLAGS_H_
#define KILN_FRONTENDS_CLI_DEVICE_FLAGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontends/cli/flags.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "fusion/plan_options.h"

namespace kiln {

inline constexpr Flag kSmCount{.name = "sm-count",
                               .kind = FlagKind::kInt,
                               .value = "N",
                               .help = "multiprocessors of the target GPU",
                               .group = "device",
                               .min = 1,
                               .max = 100000};
inline constexpr Flag kBandwidthGbps{.name = "bandwidth-gbps",
                                     .kind = FlagKind::kNumber,
                                     .value = "R",
                                     .help = "HBM bandwidth for the roofline, GB/s read+write (H200: 4220)",
                                     .group = "device",
                                     .positive = true};
inline constexpr Flag kF32Tflops{.name = "f32-tflops",
                                 .kind = FlagKind::kNumber,
                                 .value = "R",
                                 .help = "f32 (non-tensor-core) rate, TFLOP/s (H200: 67)",
                                 .group = "device",
                                 .positive = true};
inline constexpr Flag kTensorTflops{.name = "tensor-tflops",
                                    .kind = FlagKind::kNumber,
                                    .value = "R",
                                    .help = "dense bf16/f16 tensor-core rate, TFLOP/s (H200: 790; tf32 runs at half)",
                                    .group = "device",
                                    .positive = true};
inline constexpr Flag kNoClusters{.name = "no-clusters",
                                  .help = "plan without thread-block clusters (as for GPUs before sm_90)",
                                  .group = "device"};
inline constexpr Flag kMaxClusterBlocks{.name = "max-cluster-blocks",
                                        .kind = FlagKind::kInt,
                                        .value = "N",
                                        .help = "most blocks in one thread-block cluster (the portable sizes: 1..8)",
                                        .group = "device",
                                        .min = 1,
                                        .max = 8};
inline constexpr Flag kMatmulTile{.name = "matmul-tile",
                                  .kind = FlagKind::kText,
                                  .value = "MxNxK:STAGES[:GROUP]",
                                  .help = "tensor-core matmul tile instead of the planner's choice, e.g. 128x256x64:3; "
                                          "on wgmma GROUP may be followed by :pingpong or :epilogue-warps, then "
                                          ":cluster=2x1 or :cluster=1x2 (TMA multicast); on any tier, then by "
                                          ":split-k=S",
                                  .group = "device"};
inline constexpr Flag kAllowTf32{.name = "allow-tf32",
                                 .help = "f32 matmuls may run on tensor cores as tf32 (10-bit mantissas, fp32 sums); "
                                         "without it they are exact fp32",
                                 .group = "device"};

// The flags above, in the order help lists them.
std::vector<const Flag*> DeviceFlags();

// `base` with every device flag the user gave applied on top.
DeviceLimits LimitsFromFlags(const FlagValues& flags, DeviceLimits base);

// What the planner may do beyond exact semantics: --allow-tf32.
PlanOptions PlanOptionsFromFlags(const FlagValues& flags);

// --matmul-tile=MxNxK:STAGES[:GROUP][:FLAGS] as a config, if given; InvalidArgument
// when it does not parse.
absl::StatusOr<std::optional<MatmulConfig>> MatmulTileFromFlags(const FlagValues& flags);

// Replaces the config of every matmul kernel of `plan` with --matmul-tile's,
// if given; InvalidArgument when it does not parse or does not fit a kernel
// ("--matmul-tile=96x128x64:3:16 cannot run kernel f0_matmul (wgmma): ...").
absl::Status ApplyMatmulTileFlag(const FlagValues& flags, const DeviceLimits& limits, Plan& plan);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_DEVICE_FLAGS_H_
