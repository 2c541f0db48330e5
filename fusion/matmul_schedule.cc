#include "fusion/matmul_schedule.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace kiln {
namespace {

// A tensor-core tile the planner chooses from. `resident` is how many such
// blocks share one SM (registers and shared memory allow it) and
// `relative_rate` each SM's throughput with them, against 128x128x32 with 4
// stages. Measured on an H200 at bf16 8192^3 (bench/results, --matmul-tile):
// 128x128 2969 us, 128x256 3622 us (likely because two 4-warp blocks per SM
// hide each other's barriers better than one 8-warp block does). The smaller tiles' rates are
// estimates, to be replaced by autotuning.
struct TileCandidate {
  MatmulTile tile;
  int resident;
  double relative_rate;
};

constexpr TileCandidate kTensorCoreTiles[] = {
    {{.block_m = 128, .block_n = 128, .block_k = 32, .stages = 4}, 2, 1.00},
    {{.block_m = 128, .block_n = 256, .block_k = 32, .stages = 4}, 1, 0.82},
    {{.block_m = 64, .block_n = 128, .block_k = 32, .stages = 4}, 2, 0.75},
    {{.block_m = 64, .block_n = 64, .block_k = 32, .stages = 4}, 4, 0.55},
};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string Waves(int64_t tiles, int64_t slots) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", static_cast<double>(tiles) / static_cast<double>(slots));
  return buffer;
}

int64_t TensorCoreSharedBytes(const MatmulTile& t) {
  return int64_t{t.stages} * (t.block_m * t.block_k + t.block_k * t.block_n) * 2;
}

// Warps own 64x64 of the tile (32x32 in a 64x64 tile, so it still has four).
void ApplyTile(const MatmulTile& t, MatmulSchedule& s) {
  s.block_m = t.block_m;
  s.block_n = t.block_n;
  s.block_k = t.block_k;
  s.stages = t.stages;
  s.group_m = t.group_m;
  const bool smallest = t.block_m == 64 && t.block_n == 64;
  s.warps_m = smallest ? 2 : t.block_m / 64;
  s.warps_n = smallest ? 2 : t.block_n / 64;
  s.threads = s.warps_m * s.warps_n * 32;
  s.tiles = s.batch * CeilDiv(s.m, s.block_m) * CeilDiv(s.n, s.block_n);
  s.shared_bytes = TensorCoreSharedBytes(t);
}

}  // namespace

absl::Status ValidateMatmulTile(const MatmulTile& t, const DeviceLimits& limits) {
  auto one_of = [](int v, std::initializer_list<int> allowed) {
    return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
  };
  const std::string name = absl::StrCat("matmul tile ", t.block_m, "x", t.block_n, "x", t.block_k, " with ",
                                        t.stages, " stages");
  if (!one_of(t.block_m, {64, 128, 256}) || !one_of(t.block_n, {64, 128, 256}) ||
      (t.block_m == 256 && t.block_n == 256)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": block sides must be 64, 128 or 256, and not both 256"));
  }
  if (!one_of(t.block_k, {32, 64})) return absl::InvalidArgumentError(absl::StrCat(name, ": K step must be 32 or 64"));
  if (t.stages < 2 || t.stages > 8) return absl::InvalidArgumentError(absl::StrCat(name, ": stages must be 2..8"));
  if (t.group_m < 1 || t.group_m > 64) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": group of ", t.group_m, " tile rows is outside 1..64"));
  }
  if (TensorCoreSharedBytes(t) > limits.shared_bytes_per_block) {
    return absl::InvalidArgumentError(absl::StrCat(name, " needs ", TensorCoreSharedBytes(t),
                                                   " bytes of shared memory; a block may have ",
                                                   limits.shared_bytes_per_block));
  }
  return absl::OkStatus();
}

MatmulSchedule ScheduleMatmul(const Graph& graph, NodeId matmul, const DeviceLimits& limits) {
  const Node& node = graph.node(matmul);
  const Dims& a = graph.node(node.operands[0]).shape;
  const Dims& b = graph.node(node.operands[1]).shape;
  MatmulSchedule s;
  s.batch = a.size() == 3 ? a[0] : 1;
  s.m = a[a.size() - 2];
  s.k = a.back();
  s.n = b.back();
  s.tensor_cores = node.dtype == DType::kF16 || node.dtype == DType::kBF16;
  const int64_t elements_per_16_bytes = 16 / DTypeSize(node.dtype);
  s.vector_copies = s.k % elements_per_16_bytes == 0 && s.n % elements_per_16_bytes == 0;
  const int sms = std::max(limits.sm_count, 1);

  if (!s.tensor_cores) {
    s.block_m = 128;
    s.block_n = 128;
    s.block_k = 8;
    s.threads = 256;
    s.stages = 2;
    s.tiles = s.batch * CeilDiv(s.m, s.block_m) * CeilDiv(s.n, s.block_n);
    s.shared_bytes = int64_t{s.stages} * s.block_k * (s.block_m + s.block_n) * 4;
    s.reason = absl::StrCat(DTypeName(node.dtype),
                            " on CUDA cores (FFMA, exact fp32 rather than tf32); 128x128 tiles: ", s.tiles,
                            " tiles, ", Waves(s.tiles, sms), " waves of ", sms, " SMs");
    if (limits.matmul_tile.has_value()) absl::StrAppend(&s.reason, " (--matmul-tile applies to f16/bf16 only)");
  } else if (limits.matmul_tile.has_value()) {
    ApplyTile(*limits.matmul_tile, s);
    s.reason = absl::StrCat(DTypeName(node.dtype), " on tensor cores (mma.sync, fp32 accumulators); ", s.block_m,
                            "x", s.block_n, " tiles as asked (--matmul-tile): ", s.tiles, " tiles, ",
                            Waves(s.tiles, sms), " per SM");
  } else {
    // Among the tiles that give every SM a block, the one with the least
    // estimated time: whole waves of resident blocks, each wave as long as its
    // blocks' work at the tile's rate. Where no tile fills the SMs, a block's
    // latency is the time, and the smallest tile has the least.
    const TileCandidate* best = &kTensorCoreTiles[std::size(kTensorCoreTiles) - 1];
    double best_time = -1;
    for (const TileCandidate& c : kTensorCoreTiles) {
      const int64_t tiles = s.batch * CeilDiv(s.m, c.tile.block_m) * CeilDiv(s.n, c.tile.block_n);
      if (tiles < sms) continue;
      const int64_t waves = CeilDiv(tiles, int64_t{sms} * c.resident);
      const double time =
          static_cast<double>(waves * c.resident * c.tile.block_m * c.tile.block_n) / c.relative_rate;
      if (best_time < 0 || time < best_time) {
        best = &c;
        best_time = time;
      }
    }
    MatmulTile tile = best->tile;
    // A device with less shared memory per block than an H200 gets fewer stages.
    while (tile.stages > 2 && TensorCoreSharedBytes(tile) > limits.shared_bytes_per_block) --tile.stages;
    ApplyTile(tile, s);
    s.reason = absl::StrCat(DTypeName(node.dtype), " on tensor cores (mma.sync, fp32 accumulators); ", s.block_m,
                            "x", s.block_n, " tiles: ", s.tiles, " tiles, ",
                            Waves(s.tiles, int64_t{sms} * best->resident), " waves of ", sms, " SMs x ",
                            best->resident, " block", best->resident == 1 ? "" : "s",
                            best_time < 0 ? ", too few to fill the SMs with any tile, so the smallest tile"
                                          : ", the least estimated time of the tiles that fill the SMs");
  }
  if (!s.vector_copies) {
    absl::StrAppend(&s.reason, "; K=", s.k, " or N=", s.n, " is not a multiple of ", elements_per_16_bytes,
                    ", so tiles are copied element by element");
  }
  return s;
}

}  // namespace kiln
