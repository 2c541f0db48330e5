#include "frontends/cli/device_flags.h"

#include <optional>

#include "absl/flags/flag.h"

ABSL_FLAG(std::optional<int>, sm_count, std::nullopt, "multiprocessors of the target GPU");
ABSL_FLAG(std::optional<double>, bandwidth_gbps, std::nullopt,
          "HBM bandwidth for the roofline, GB/s read+write (H200: 4220)");
ABSL_FLAG(std::optional<double>, f32_tflops, std::nullopt, "f32 (non-tensor-core) rate, TFLOP/s (H200: 67)");
ABSL_FLAG(std::optional<double>, tensor_tflops, std::nullopt,
          "dense bf16/f16 tensor-core rate, TFLOP/s (H200: 790)");
ABSL_FLAG(bool, clusters, true, "allow thread-block clusters (sm_90 and newer)");

namespace kiln {

DeviceLimits LimitsFromFlags(DeviceLimits base) {
  if (auto v = absl::GetFlag(FLAGS_sm_count)) base.sm_count = *v;
  if (auto v = absl::GetFlag(FLAGS_bandwidth_gbps)) base.hbm_bytes_per_second = *v * 1e9;
  if (auto v = absl::GetFlag(FLAGS_f32_tflops)) base.f32_flops_per_second = *v * 1e12;
  if (auto v = absl::GetFlag(FLAGS_tensor_tflops)) base.tensor_flops_per_second = *v * 1e12;
  if (!absl::GetFlag(FLAGS_clusters)) base.supports_clusters = false;
  return base;
}

}  // namespace kiln
