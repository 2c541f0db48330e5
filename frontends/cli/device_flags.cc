#include "frontends/cli/device_flags.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fusion/matmul_schedule.h"

namespace kiln {

std::vector<const Flag*> DeviceFlags() {
  return {&kSmCount, &kBandwidthGbps, &kF32Tflops, &kTensorTflops, &kNoClusters, &kMaxClusterBlocks, &kMatmulTile, &kAllowTf32};
}

DeviceLimits LimitsFromFlags(const FlagValues& flags, DeviceLimits base) {
  if (flags.Has(kSmCount)) {
    base.sm_count = static_cast<int>(flags.Int(kSmCount));
    // Another GPU's clusters: only its block slots are known.
    base.cluster_residency = {};
  }
  if (flags.Has(kBandwidthGbps)) base.hbm_bytes_per_second = flags.Number(kBandwidthGbps) * 1e9;
  if (flags.Has(kF32Tflops)) base.f32_flops_per_second = flags.Number(kF32Tflops) * 1e12;
  if (flags.Has(kTensorTflops)) base.tensor_flops_per_second = flags.Number(kTensorTflops) * 1e12;
  if (flags.Switch(kNoClusters)) base.supports_clusters = false;
  if (flags.Has(kMaxClusterBlocks)) base.max_cluster_blocks = static_cast<int>(flags.Int(kMaxClusterBlocks));
  return base;
}

PlanOptions PlanOptionsFromFlags(const FlagValues& flags) { return {.allow_tf32 = flags.Switch(kAllowTf32)}; }

absl::StatusOr<std::optional<MatmulConfig>> MatmulTileFromFlags(const FlagValues& flags) {
  if (!flags.Has(kMatmulTile)) return std::nullopt;
  const std::string text = flags.Text(kMatmulTile);
  std::optional<MatmulConfig> tile = ParseMatmulConfig(text);
  if (!tile.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--matmul-tile=", text, " is not MxNxK:STAGES[:GROUP][:FLAGS], e.g. 128x256x64:3"));
  }
  return *tile;
}

absl::Status ApplyMatmulTileFlag(const FlagValues& flags, const DeviceLimits& limits, Plan& plan) {
  absl::StatusOr<std::optional<MatmulConfig>> tile = MatmulTileFromFlags(flags);
  if (!tile.ok()) return tile.status();
  if (!tile->has_value()) return absl::OkStatus();
  return OverrideMatmulConfigs(**tile, "--matmul-tile", limits, plan);
}

}  // namespace kiln
