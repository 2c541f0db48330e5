#include "fusion/matmul_candidates.h"

#include <algorithm>
#include <utility>

#include "fusion/matmul_schedule.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int kWgmmaTiles[][2] = {{128, 256}, {256, 128}, {128, 128}, {128, 192}, {128, 64}, {256, 64}};
constexpr int kPingpongTiles[][2] = {{128, 128}, {64, 256}};
constexpr int kMmaSyncTiles[][2] = {{128, 128}, {128, 256}, {256, 128}, {64, 128}, {128, 64}, {64, 64}};
constexpr int kGroups[] = {8, 16};
constexpr int kSplits[] = {2, 4, 8, 16};

// A tile more than one step wider (taller) than the product computes mostly padding.
bool Oversized(const MatmulSchedule& s, int block_m, int block_n) {
  return (block_m > 64 && block_m > AlignUp(s.m, 64) + 64) || (block_n > 64 && block_n > AlignUp(s.n, 64) + 64);
}

MatmulConfig Clustered(MatmulConfig c, int cluster_m, int cluster_n) {
  c.cluster_m = cluster_m;
  c.cluster_n = cluster_n;
  return c;
}

}  // namespace

std::vector<MatmulConfig> MatmulCandidates(const MatmulSchedule& s, const DeviceLimits& limits) {
  std::vector<MatmulConfig> out = {s.config};
  auto add = [&](const MatmulConfig& c) {
    MatmulSchedule trial = s;
    if (std::find(out.begin(), out.end(), c) == out.end() && ApplyMatmulConfig(c, "candidate", limits, trial).ok()) {
      out.push_back(c);
    }
  };
  // Split K where the tiles leave most SMs idle, up to about two units per
  // SM, for cooperative tiles with the epilogue on the consumers (the only
  // ones split K serves). With so few tiles the L2 grouping does not matter:
  // one group is enough.
  auto add_splits = [&](const MatmulConfig& c) {
    if (c.pingpong || c.epilogue_warps || c.group_m != kGroups[0] || !TilesLeaveSmsIdle(s, c, limits)) return;
    for (int split : kSplits) {
      if (MatmulTileCount(s, c) * split > 2 * int64_t{limits.sm_count}) break;
      MatmulConfig sliced = c;
      sliced.split_k = split;
      add(sliced);
    }
  };
  // A tile and its splits.
  auto add_tile = [&](const MatmulConfig& c) {
    add(c);
    add_splits(c);
  };
  for (int group : kGroups) {
    if (s.tier == MatmulTier::kFfma) {
      for (int bm : {128, 256}) {
        for (int stages : {2, 3, 4}) {
          add_tile({.block_m = bm, .block_n = 128, .block_k = 8, .stages = stages, .group_m = group});
          // Deeper slices are cp.async copies. 32 deep lost on an H200 at
          // f32 4096^3 (256x128: 3458-3543 us against 3238 us 16 deep).
          if (stages > 2) add_tile({.block_m = bm, .block_n = 128, .block_k = 16, .stages = stages, .group_m = group});
        }
      }
    } else if (s.tier == MatmulTier::kWgmma) {
      // The tiles are the kernel's: Cᵀ's where tf32 swaps the operands.
      auto add_wgmma = [&](int bm, int bn, bool pingpong) {
        if (s.swap_operands) std::swap(bm, bn);
        if (Oversized(s, bm, bn)) return;
        for (bool epilogue_warps : {false, true}) {
          if (epilogue_warps && (pingpong || !s.no_epilogue_warps.empty())) continue;
          MatmulConfig c{.block_m = bm, .block_n = bn, .block_k = WgmmaBlockK(s.operand_bytes), .stages = 8,
                         .group_m = group, .pingpong = pingpong, .epilogue_warps = epilogue_warps};
          // As many stages as fit beside the staging tiles.
          while (c.stages > 2 && WgmmaSharedBytes(c, s.staging_element_bytes) > limits.shared_bytes_per_block) {
            --c.stages;
          }
          add_tile(c);
          // Cooperative tiles in clusters where the tiles fill the SMs,
          // sharing the larger operand tile, whose multicast saves the most
          // L2 reads (B's where they are equal). Measured on an H200 at
          // 8192^3 and 4096^3 (bench/results/2026-12-02-h200-s8): sharing
          // A's 256 rows of a 256x64 tile ran 1.11-1.21x faster than
          // without; sharing B of square tiles beat sharing A; ping-pong
          // tiles lost 3-14% in clusters, whose lockstep their turns then
          // wait on.
          if (!pingpong && MatmulTileCount(s, c) >= limits.sm_count) {
            add(c.block_n >= c.block_m ? Clustered(c, 2, 1) : Clustered(c, 1, 2));
          }
        }
      };
      for (const auto& [bm, bn] : kWgmmaTiles) add_wgmma(bm, bn, false);
      for (const auto& [bm, bn] : kPingpongTiles) add_wgmma(bm, bn, true);
    } else {
      for (const auto& [bm, bn] : kMmaSyncTiles) {
        if (Oversized(s, bm, bn)) continue;
        for (int stages : {3, 4}) {
          add_tile({.block_m = bm, .block_n = bn, .block_k = 32, .stages = stages, .group_m = group});
        }
      }
    }
  }
  return out;
}

}  // namespace kiln
