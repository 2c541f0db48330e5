// The transpose tile code of codegen/device/kiln_transpose.cuh run on the
// CPU: a block's threads one after another through the load, then through
// the store (the barrier between them), every tile of a transpose of the last
// two dims, for tiles whose rows are aligned, straddle vector boundaries or
// are contiguous on either side, and batches on vector boundaries or off
// them. Each case's Shape is the one the planner picks for that graph
// (checked here), so these are the kernels the GPU runs, and a change to the
// tile layout is tested on a machine without a GPU.
#include <cstdint>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
// clang-format off: the shim must come before the device code (whose
// `#pragma unroll`s tests/CMakeLists.txt keeps the host compiler quiet about).
#include "tests/codegen/device_host.h"
#include "codegen/device/kiln_device.cuh"
#include "codegen/device/kiln_transpose.cuh"
// clang-format on

namespace kiln {
namespace {

// The tile constants codegen/transpose_emitter.cc writes for input
// [kBatches, kRows, kCols] under perm [0, 2, 1] ([kRows, kCols] under [1, 0]
// for one batch).
template <int kThreads_, int kTileR_, int kTileC_, int kV_, int kReads_, int kWrites_, long long kBatches_,
          long long kRows_, long long kCols_>
struct Shape {
  static constexpr int kThreads = kThreads_, kTileR = kTileR_, kTileC = kTileC_, kV = kV_;
  static constexpr int kReads = kReads_, kWrites = kWrites_;
  static constexpr long long kBatches = kBatches_, kRows = kRows_, kCols = kCols_;
  static constexpr long long kInRowStride = kCols, kOutColStride = kRows, kN = kBatches * kRows * kCols;
  static constexpr bool kAlignedBatches = kBatches == 1 || kRows * kCols % kV == 0;
};

int KilnTileRowsOf(TileRows rows) {
  switch (rows) {
    case TileRows::kAligned: return KILN_ROWS_ALIGNED;
    case TileRows::kStraddling: return KILN_ROWS_STRADDLING;
    case TileRows::kContiguous: return KILN_ROWS_CONTIGUOUS;
  }
  return -1;
}

// The planner's schedule for the graph is `S`'s.
template <typename S>
void ExpectPlannedShape(DType dtype) {
  GraphBuilder b;
  const Graph graph =
      *b.Build({S::kBatches == 1
                    ? Transpose(b.Input("x", dtype, {S::kRows, S::kCols}), {1, 0}).Named("t")
                    : Transpose(b.Input("x", dtype, {S::kBatches, S::kRows, S::kCols}), {0, 2, 1}).Named("t")});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  const TransposeSchedule& s = plan.kernels.front().transpose();
  ASSERT_EQ(s.strategy, TransposeStrategy::kTiled);
  EXPECT_EQ(s.threads, S::kThreads);
  EXPECT_EQ(s.tile_rows, S::kTileR);
  EXPECT_EQ(s.tile_cols, S::kTileC);
  EXPECT_EQ(s.vector_elements, S::kV);
  EXPECT_EQ(KilnTileRowsOf(s.reads), S::kReads);
  EXPECT_EQ(KilnTileRowsOf(s.writes), S::kWrites);
}

// Every tile through kiln_tile_load and kiln_tile_store as one block would
// move it, on random bits; shared memory is filled with a pattern before
// each tile, so a read of what no thread wrote shows.
template <typename B, typename S>
void ExpectTransposes(DType dtype) {
  SCOPED_TRACE(absl::StrCat(DTypeName(dtype), " [", S::kBatches, ",", S::kRows, ",", S::kCols, "]"));
  ExpectPlannedShape<S>(dtype);
  using L = KilnTileLayout<S>;
  constexpr long long kMatrix = S::kRows * S::kCols;
  std::mt19937 random(7);
  std::vector<B> in(S::kN), out(S::kN, B{0});
  for (B& v : in) v = static_cast<B>(random());
  std::vector<uint4> chunks(L::kHeldRows * L::kChunks);
  B* tile = reinterpret_cast<B*>(chunks.data());
  for (long long batch = 0; batch < S::kBatches; ++batch) {
    for (long long r0 = 0; r0 < S::kRows; r0 += S::kTileR) {
      for (long long c0 = 0; c0 < S::kCols; c0 += S::kTileC) {
        std::fill(chunks.begin(), chunks.end(), uint4{0xa5a5a5a5u, 0xa5a5a5a5u, 0xa5a5a5a5u, 0xa5a5a5a5u});
        const long long rows_left = S::kRows - r0;
        const int held = static_cast<int>(std::min<long long>(rows_left, L::kHeldRows));
        const int cols = static_cast<int>(std::min<long long>(S::kCols - c0, S::kTileC));
        const long long in_at = batch * kMatrix + r0 * S::kInRowStride + c0;
        const long long out_at = batch * kMatrix + c0 * S::kOutColStride + r0;
        for (unsigned t = 0; t < S::kThreads; ++t) {
          threadIdx.x = t;
          kiln_tile_load<B, S>(in.data(), in_at, held, cols, tile);
        }
        for (unsigned t = 0; t < S::kThreads; ++t) {
          threadIdx.x = t;
          kiln_tile_store<B, S>(out.data(), out_at, r0, rows_left, cols, tile);
        }
      }
    }
  }
  int64_t wrong = 0;
  for (long long batch = 0; batch < S::kBatches; ++batch) {
    for (long long r = 0; r < S::kRows; ++r) {
      for (long long c = 0; c < S::kCols; ++c) {
        if (out[batch * kMatrix + c * S::kRows + r] == in[batch * kMatrix + r * S::kCols + c]) continue;
        if (++wrong <= 3) {
          ADD_FAILURE() << "output [" << batch << "," << c << "," << r << "] is not input [" << batch << "," << r
                        << "," << c << "]";
        }
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

using Bits16 = unsigned short;
using Bits32 = unsigned;

TEST(TransposeTileHostTest, StraddlingReadsAndWrites) {
  // [4093, 8191]'s tiles, over tiles enough for every edge: 120 rows of 128
  // held, several row tiles with a halo, a partial last tile each way.
  ExpectTransposes<Bits16, Shape<128, 120, 64, 8, KILN_ROWS_STRADDLING, KILN_ROWS_STRADDLING, 1, 253, 131>>(
      DType::kBF16);
  ExpectTransposes<Bits16, Shape<128, 120, 64, 8, KILN_ROWS_STRADDLING, KILN_ROWS_STRADDLING, 1, 250, 77>>(
      DType::kF16);
  ExpectTransposes<Bits32, Shape<256, 60, 64, 4, KILN_ROWS_STRADDLING, KILN_ROWS_STRADDLING, 1, 253, 131>>(
      DType::kF32);
}

TEST(TransposeTileHostTest, BatchesOffVectorBoundaries) {
  // [64, 333, 777]'s tiles: each batch starts at a different lead, so the
  // leads of a tile's rows are worked out at run time.
  ExpectTransposes<Bits16, Shape<128, 120, 64, 8, KILN_ROWS_STRADDLING, KILN_ROWS_STRADDLING, 3, 250, 77>>(
      DType::kBF16);
  ExpectTransposes<Bits32, Shape<256, 60, 64, 4, KILN_ROWS_STRADDLING, KILN_ROWS_STRADDLING, 2, 131, 253>>(
      DType::kF32);
  ExpectTransposes<Bits16, Shape<64, 64, 64, 8, KILN_ROWS_CONTIGUOUS, KILN_ROWS_CONTIGUOUS, 4, 61, 45>>(
      DType::kF16);
}

TEST(TransposeTileHostTest, AlignedAndContiguousRows) {
  ExpectTransposes<Bits16, Shape<128, 128, 64, 8, KILN_ROWS_ALIGNED, KILN_ROWS_ALIGNED, 1, 256, 64>>(DType::kBF16);
  ExpectTransposes<Bits16, Shape<128, 64, 128, 8, KILN_ROWS_ALIGNED, KILN_ROWS_CONTIGUOUS, 1, 37, 1000>>(
      DType::kBF16);
  ExpectTransposes<Bits16, Shape<128, 128, 64, 8, KILN_ROWS_CONTIGUOUS, KILN_ROWS_ALIGNED, 1, 1000, 37>>(
      DType::kF16);
  ExpectTransposes<Bits32, Shape<256, 64, 64, 4, KILN_ROWS_CONTIGUOUS, KILN_ROWS_ALIGNED, 1, 1000, 37>>(
      DType::kF32);
  ExpectTransposes<Bits16, Shape<64, 64, 64, 8, KILN_ROWS_CONTIGUOUS, KILN_ROWS_CONTIGUOUS, 1, 61, 45>>(
      DType::kBF16);
}

}  // namespace
}  // namespace kiln
