#include "frontends/cli/device_flags.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "fusion/matmul_schedule.h"

namespace kiln {
namespace {

// "128x256x64:3" or "128x256x32:4:16" (GROUP: tile rows per launch group).
absl::StatusOr<MatmulTile> ParseMatmulTile(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  const std::vector<absl::string_view> sides =
      parts.empty() ? std::vector<absl::string_view>{} : absl::StrSplit(parts[0], 'x');
  MatmulTile tile;
  const bool ok = (parts.size() == 2 || parts.size() == 3) && sides.size() == 3 &&
                  absl::SimpleAtoi(sides[0], &tile.block_m) && absl::SimpleAtoi(sides[1], &tile.block_n) &&
                  absl::SimpleAtoi(sides[2], &tile.block_k) && absl::SimpleAtoi(parts[1], &tile.stages) &&
                  (parts.size() == 2 || absl::SimpleAtoi(parts[2], &tile.group_m));
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("--matmul-tile=", text, " is not MxNxK:STAGES[:GROUP], e.g. 128x256x64:3"));
  }
  return tile;
}

}  // namespace

std::vector<const Flag*> DeviceFlags() {
  return {&kSmCount, &kBandwidthGbps, &kF32Tflops, &kTensorTflops, &kNoClusters, &kMaxClusterBlocks, &kMatmulTile};
}

absl::StatusOr<DeviceLimits> LimitsFromFlags(const FlagValues& flags, DeviceLimits base) {
  if (flags.Has(kSmCount)) base.sm_count = static_cast<int>(flags.Int(kSmCount));
  if (flags.Has(kBandwidthGbps)) base.hbm_bytes_per_second = flags.Number(kBandwidthGbps) * 1e9;
  if (flags.Has(kF32Tflops)) base.f32_flops_per_second = flags.Number(kF32Tflops) * 1e12;
  if (flags.Has(kTensorTflops)) base.tensor_flops_per_second = flags.Number(kTensorTflops) * 1e12;
  if (flags.Switch(kNoClusters)) base.supports_clusters = false;
  if (flags.Has(kMaxClusterBlocks)) base.max_cluster_blocks = static_cast<int>(flags.Int(kMaxClusterBlocks));
  if (flags.Has(kMatmulTile)) {
    const std::string text = flags.Text(kMatmulTile);
    absl::StatusOr<MatmulTile> tile = ParseMatmulTile(text);
    if (!tile.ok()) return tile.status();
    if (absl::Status s = ValidateMatmulTile(*tile, base); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--matmul-tile=", text, ": ", s.message()));
    }
    base.matmul_tile = *tile;
  }
  return base;
}

}  // namespace kiln
