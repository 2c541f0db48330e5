// The transpose tile code of codegen/device/kiln_transpose.cuh run on the
// CPU: a block's threads one after another through the load, then through
// the store (the barrier between them), every tile of a 2-D transpose, for
// tiles whose rows are aligned, straddle vector boundaries or are contiguous
// on either side. Each case's Shape is the one the planner picks for that
// graph (checked here), so these are the kernels the GPU runs, and a change
// to the tile layout is tested on a machine without a GPU.
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

// A 2-D transpose's tile constants, as codegen/transpose_emitter.cc writes
// them for input [kRows, kCols] under perm [1, 0].
template <int kThreads_, int kTileR_, int kTileC_, int kV_, int kReads_, int kWrites_, long long kRows_,
          long long kCols_>
struct Shape2D {
  static constexpr int kThreads = kThreads_, kTileR = kTileR_, kTileC = kTileC_, kV = kV_;
  static constexpr int kReads = kReads_, kWrites = kWrites_;
  static constexpr long long kRows = kRows_, kCols = kCols_;
  static constexpr long long kInRowStride = kCols, kOutColStride = kRows, kN = kRows * kCols;
  static constexpr bool kAlignedBatches = true;
};

int KilnTileRowsOf(TileRows rows) {
  switch (rows) {
    case TileRows::kAligned: return KILN_ROWS_ALIGNED;
    case TileRows::kStraddling: return KILN_ROWS_STRADDLING;
    case TileRows::kContiguous: return KILN_ROWS_CONTIGUOUS;
  }
  return -1;
}

// The planner's schedule for the graph is `Shape`'s.
template <typename Shape>
void ExpectPlannedShape(DType dtype) {
  GraphBuilder b;
  const Graph graph = *b.Build({Transpose(b.Input("x", dtype, {Shape::kRows, Shape::kCols}), {1, 0}).Named("t")});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  const TransposeSchedule& s = plan.kernels.front().transpose();
  ASSERT_EQ(s.strategy, TransposeStrategy::kTiled);
  EXPECT_EQ(s.threads, Shape::kThreads);
  EXPECT_EQ(s.tile_rows, Shape::kTileR);
  EXPECT_EQ(s.tile_cols, Shape::kTileC);
  EXPECT_EQ(s.vector_elements, Shape::kV);
  EXPECT_EQ(KilnTileRowsOf(s.reads), Shape::kReads);
  EXPECT_EQ(KilnTileRowsOf(s.writes), Shape::kWrites);
}

// Every tile through kiln_tile_load and kiln_tile_store as one block would
// move it, on random bits; shared memory is filled with a pattern before
// each tile, so a read of what no thread wrote shows.
template <typename B, typename Shape>
void ExpectTransposes(DType dtype) {
  SCOPED_TRACE(absl::StrCat(DTypeName(dtype), " [", Shape::kRows, ",", Shape::kCols, "]"));
  ExpectPlannedShape<Shape>(dtype);
  using L = KilnTileLayout<Shape>;
  std::mt19937 random(7);
  std::vector<B> in(Shape::kN), out(Shape::kN, B{0});
  for (B& v : in) v = static_cast<B>(random());
  std::vector<uint4> chunks(L::kHeldRows * L::kChunks);
  B* tile = reinterpret_cast<B*>(chunks.data());
  for (long long r0 = 0; r0 < Shape::kRows; r0 += Shape::kTileR) {
    for (long long c0 = 0; c0 < Shape::kCols; c0 += Shape::kTileC) {
      std::fill(chunks.begin(), chunks.end(), uint4{0xa5a5a5a5u, 0xa5a5a5a5u, 0xa5a5a5a5u, 0xa5a5a5a5u});
      const long long rows_left = Shape::kRows - r0;
      const int held = static_cast<int>(std::min<long long>(rows_left, L::kHeldRows));
      const int cols = static_cast<int>(std::min<long long>(Shape::kCols - c0, Shape::kTileC));
      const long long in_at = r0 * Shape::kInRowStride + c0, out_at = c0 * Shape::kOutColStride + r0;
      for (unsigned t = 0; t < Shape::kThreads; ++t) {
        threadIdx.x = t;
        kiln_tile_load<B, Shape>(in.data(), in_at, held, cols, tile);
      }
      for (unsigned t = 0; t < Shape::kThreads; ++t) {
        threadIdx.x = t;
        kiln_tile_store<B, Shape>(out.data(), out_at, r0, rows_left, cols, tile);
      }
    }
  }
  int64_t wrong = 0;
  for (long long r = 0; r < Shape::kRows; ++r) {
    for (long long c = 0; c < Shape::kCols; ++c) {
      if (out[c * Shape::kRows + r] == in[r * Shape::kCols + c]) continue;
      if (++wrong <= 3) ADD_FAILURE() << "output [" << c << "," << r << "] is not input [" << r << "," << c << "]";
    }
  }
  EXPECT_EQ(wrong, 0);
}

using Bits16 = unsigned short;
using Bits32 = unsigned;

TEST(TransposeTileHostTest, StraddlingReadsAndWrites) {
  // [4093, 8191]'s tiles, over tiles enough for every edge: 120 rows of 128
  // held, several row tiles with a halo, a partial last tile each way.
  ExpectTransposes<Bits16, Shape2D<128, 120, 64, 8, KILN_ROWS_STRADDLING, KILN_ROWS_STRADDLING, 253, 131>>(
      DType::kBF16);
  ExpectTransposes<Bits16, Shape2D<128, 120, 64, 8, KILN_ROWS_STRADDLING, KILN_ROWS_STRADDLING, 250, 77>>(
      DType::kF16);
  ExpectTransposes<Bits32, Shape2D<256, 60, 64, 4, KILN_ROWS_STRADDLING, KILN_ROWS_STRADDLING, 253, 131>>(
      DType::kF32);
}

TEST(TransposeTileHostTest, AlignedAndContiguousRows) {
  ExpectTransposes<Bits16, Shape2D<128, 128, 64, 8, KILN_ROWS_ALIGNED, KILN_ROWS_ALIGNED, 256, 64>>(DType::kBF16);
  ExpectTransposes<Bits16, Shape2D<128, 64, 128, 8, KILN_ROWS_ALIGNED, KILN_ROWS_CONTIGUOUS, 37, 1000>>(
      DType::kBF16);
  ExpectTransposes<Bits16, Shape2D<128, 128, 64, 8, KILN_ROWS_CONTIGUOUS, KILN_ROWS_ALIGNED, 1000, 37>>(
      DType::kF16);
  ExpectTransposes<Bits32, Shape2D<256, 64, 64, 4, KILN_ROWS_CONTIGUOUS, KILN_ROWS_ALIGNED, 1000, 37>>(
      DType::kF32);
  ExpectTransposes<Bits16, Shape2D<64, 64, 64, 8, KILN_ROWS_CONTIGUOUS, KILN_ROWS_CONTIGUOUS, 61, 45>>(
      DType::kBF16);
}

}  // namespace
}  // namespace kiln
