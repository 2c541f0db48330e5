#include "frontends/cli/device_flags.h"

#include <optional>

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "fusion/matmul_schedule.h"

ABSL_FLAG(std::optional<int>, sm_count, std::nullopt, "multiprocessors of the target GPU");
ABSL_FLAG(std::optional<double>, bandwidth_gbps, std::nullopt,
          "HBM bandwidth for the roofline, GB/s read+write (H200: 4220)");
ABSL_FLAG(std::optional<double>, f32_tflops, std::nullopt, "f32 (non-tensor-core) rate, TFLOP/s (H200: 67)");
ABSL_FLAG(std::optional<double>, tensor_tflops, std::nullopt,
          "dense bf16/f16 tensor-core rate, TFLOP/s (H200: 790)");
ABSL_FLAG(bool, clusters, true, "allow thread-block clusters (sm_90 and newer)");
ABSL_FLAG(std::optional<int>, max_cluster_blocks, std::nullopt,
          "most blocks in one thread-block cluster (portable limit: 8)");
ABSL_FLAG(std::string, matmul_tile, "",
          "tensor-core matmul tile instead of the planner's choice: MxNxK:STAGES[:GROUP], e.g. 128x256x64:3");


namespace kiln {
namespace {

}  // namespace

absl::StatusOr<DeviceLimits> LimitsFromFlags(DeviceLimits base) {
  if (auto v = absl::GetFlag(FLAGS_sm_count)) base.sm_count = *v;
  if (auto v = absl::GetFlag(FLAGS_bandwidth_gbps)) base.hbm_bytes_per_second = *v * 1e9;
  if (auto v = absl::GetFlag(FLAGS_f32_tflops)) base.f32_flops_per_second = *v * 1e12;
  if (auto v = absl::GetFlag(FLAGS_tensor_tflops)) base.tensor_flops_per_second = *v * 1e12;
  if (!absl::GetFlag(FLAGS_clusters)) base.supports_clusters = false;
  if (auto v = absl::GetFlag(FLAGS_max_cluster_blocks)) base.max_cluster_blocks = *v;
  if (base.sm_count < 1 || base.hbm_bytes_per_second <= 0 || base.f32_flops_per_second <= 0 ||
      base.tensor_flops_per_second <= 0) {
    return absl::InvalidArgumentError("--sm-count and the rates must be positive");
  }
  if (base.max_cluster_blocks < 1 || base.max_cluster_blocks > 8) {
    return absl::InvalidArgumentError(absl::StrCat("--max-cluster-blocks=", base.max_cluster_blocks,
                                                   " is outside 1..8, the portable cluster sizes"));
  }
  return base;
}

absl::StatusOr<std::optional<MatmulConfig>> MatmulTileFromFlag() {
  const std::string text = absl::GetFlag(FLAGS_matmul_tile);
  if (text.empty()) return std::nullopt;
  std::optional<MatmulConfig> tile = ParseMatmulConfig(text);
  if (!tile.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--matmul-tile=", text, " is not MxNxK:STAGES[:GROUP], e.g. 128x256x64:3"));
  }
  return *tile;
}

absl::Status ApplyMatmulTileFlag(const DeviceLimits& limits, Plan& plan) {
  absl::StatusOr<std::optional<MatmulConfig>> tile = MatmulTileFromFlag();
  if (!tile.ok()) return tile.status();
  if (!tile->has_value()) return absl::OkStatus();
  return OverrideMatmulConfigs(**tile, "--matmul-tile", limits, plan);
}

}  // namespace kiln
