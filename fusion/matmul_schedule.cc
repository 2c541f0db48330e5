#include "fusion/matmul_schedule.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace kiln {
namespace {

// A tensor-core tile the code generator implements. `resident` is how many
// such blocks share one SM (registers and shared memory allow it) and
// `relative_rate` each SM's throughput with them against the largest tile:
// smaller tiles re-read more operand bytes per product and issue more
// shared-memory loads per mma. Estimates, to be replaced by autotuning.
struct TileCandidate {
  int block_m, block_n, warps_m, warps_n, resident;
  double relative_rate;
};

constexpr TileCandidate kTensorCoreTiles[] = {
    {128, 256, 2, 4, 1, 1.00},
    {128, 128, 2, 2, 2, 0.90},
    {64, 128, 2, 2, 2, 0.75},
    {64, 64, 2, 2, 4, 0.55},
};
constexpr int kTensorCoreBlockK = 32;
constexpr int kTensorCoreStages = 4;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string Waves(int64_t tiles, int64_t slots) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", static_cast<double>(tiles) / static_cast<double>(slots));
  return buffer;
}

}  // namespace

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
    s.reason = absl::StrCat(DTypeName(node.dtype),
                            " on CUDA cores (FFMA, exact fp32 rather than tf32); 128x128 tiles: ", s.tiles,
                            " tiles, ", Waves(s.tiles, sms), " waves of ", sms, " SMs");
  } else {
    // Among the tiles that give every SM a block, the one with the least
    // estimated time: whole waves of resident blocks, each wave as long as its
    // blocks' work at the tile's rate. Where no tile fills the SMs, a block's
    // latency is the time, and the smallest tile has the least.
    const TileCandidate* best = &kTensorCoreTiles[std::size(kTensorCoreTiles) - 1];
    double best_time = -1;
    for (const TileCandidate& c : kTensorCoreTiles) {
      const int64_t tiles = s.batch * CeilDiv(s.m, c.block_m) * CeilDiv(s.n, c.block_n);
      if (tiles < sms) continue;
      const int64_t waves = CeilDiv(tiles, int64_t{sms} * c.resident);
      const double time = static_cast<double>(waves * c.resident * c.block_m * c.block_n) / c.relative_rate;
      if (best_time < 0 || time < best_time) {
        best = &c;
        best_time = time;
      }
    }
    s.block_m = best->block_m;
    s.block_n = best->block_n;
    s.block_k = kTensorCoreBlockK;
    s.warps_m = best->warps_m;
    s.warps_n = best->warps_n;
    s.threads = best->warps_m * best->warps_n * 32;
    s.stages = kTensorCoreStages;
    s.tiles = s.batch * CeilDiv(s.m, s.block_m) * CeilDiv(s.n, s.block_n);
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
