// Flags that describe the GPU a plan is made for, shared by `kiln plan`,
// `emit` and `run`. Defaults are an H200's; `run` starts from the device's own.
//
//   absl::StatusOr<DeviceLimits> limits = LimitsFromFlags(DeviceLimits{});
#ifndef KILN_FRONTENDS_CLI_DEVICE_FLAGS_H_
#define KILN_FRONTENDS_CLI_DEVICE_FLAGS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"

namespace kiln {

// `base` with every flag the user set applied on top; InvalidArgument for a
// value no device has.
absl::StatusOr<DeviceLimits> LimitsFromFlags(DeviceLimits base);

// --matmul-tile=MxNxK:STAGES[:GROUP] as a config, if given; InvalidArgument
// when it does not parse.
absl::StatusOr<std::optional<MatmulConfig>> MatmulTileFromFlag();

// Replaces the config of every matmul kernel of `plan` with --matmul-tile's,
// if given; InvalidArgument when it does not parse or does not fit a kernel.
absl::Status ApplyMatmulTileFlag(const DeviceLimits& limits, Plan& plan);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_DEVICE_FLAGS_H_
