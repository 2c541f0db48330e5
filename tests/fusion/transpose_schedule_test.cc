// Transposes collapse to their fewest dims, and the collapsed shape picks the
// strategy: a copy, a row-run copy or a tiled transpose, each with its
// vector widths, tile and block count, and the reason reports print.
#include "fusion/transpose_schedule.h"

#include <string>
#include <vector>

#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TransposeSchedule Schedule(DType dtype, const Dims& dims, const std::vector<int64_t>& perm) {
  GraphBuilder b;
  const Graph graph = *b.Build({Transpose(b.Input("x", dtype, dims), perm).Named("t")});
  return ScheduleTranspose(graph, graph.outputs()[0]);
}

TEST(CollapsePermutationTest, KeepsAPermutationWhoseDimsAllMove) {
  const CollapsedPermutation c = CollapsePermutation({8, 16, 1024, 128}, {0, 2, 1, 3});
  EXPECT_THAT(c.dims, ElementsAre(8, 16, 1024, 128));
  EXPECT_THAT(c.perm, ElementsAre(0, 2, 1, 3));
  const CollapsedPermutation reversed = CollapsePermutation({2, 3, 4, 5}, {3, 2, 1, 0});
  EXPECT_THAT(reversed.dims, ElementsAre(2, 3, 4, 5));
  EXPECT_THAT(reversed.perm, ElementsAre(3, 2, 1, 0));
}

TEST(CollapsePermutationTest, MergesDimsThatStayAdjacentAndInOrder) {
  // [B,S,H,D] -> [B,H,D,S]: H and D move together.
  const CollapsedPermutation bshd = CollapsePermutation({8, 1024, 16, 128}, {0, 2, 3, 1});
  EXPECT_THAT(bshd.dims, ElementsAre(8, 1024, 2048));
  EXPECT_THAT(bshd.perm, ElementsAre(0, 2, 1));
  // [A,B,C] -> [C,A,B] is a 2-D transpose of [A*B, C].
  const CollapsedPermutation cab = CollapsePermutation({512, 1024, 64}, {2, 0, 1});
  EXPECT_THAT(cab.dims, ElementsAre(524288, 64));
  EXPECT_THAT(cab.perm, ElementsAre(1, 0));
  // [A,B,C] -> [B,C,A] is a 2-D transpose of [A, B*C].
  const CollapsedPermutation bca = CollapsePermutation({5, 6, 7}, {1, 2, 0});
  EXPECT_THAT(bca.dims, ElementsAre(5, 42));
  EXPECT_THAT(bca.perm, ElementsAre(1, 0));
}

TEST(CollapsePermutationTest, DropsDimsOfSizeOne) {
  const CollapsedPermutation c = CollapsePermutation({5, 1, 7, 1, 9}, {4, 3, 0, 1, 2});
  EXPECT_THAT(c.dims, ElementsAre(35, 9));
  EXPECT_THAT(c.perm, ElementsAre(1, 0));
  const CollapsedPermutation copy = CollapsePermutation({4, 1, 3}, {0, 2, 1});
  EXPECT_THAT(copy.dims, ElementsAre(12));
  EXPECT_THAT(copy.perm, ElementsAre(0));
  const CollapsedPermutation ones = CollapsePermutation({1, 1}, {1, 0});
  EXPECT_THAT(ones.dims, IsEmpty());
  EXPECT_THAT(ones.perm, IsEmpty());
}

TEST(CollapsePermutationTest, IdentityIsOneDim) {
  const CollapsedPermutation c = CollapsePermutation({2, 3, 4}, {0, 1, 2});
  EXPECT_THAT(c.dims, ElementsAre(24));
  EXPECT_THAT(c.perm, ElementsAre(0));
}

TEST(TransposeScheduleTest, TwoDimsTileWithSixteenByteVectors) {
  const TransposeSchedule s = Schedule(DType::kF32, {16384, 8192}, {1, 0});
  EXPECT_EQ(s.strategy, TransposeStrategy::kTiled);
  EXPECT_EQ(s.tile_rows, 64);
  EXPECT_EQ(s.tile_cols, 64);
  EXPECT_EQ(s.vector_elements, 4);
  EXPECT_EQ(s.reads, TileRows::kAligned);
  EXPECT_EQ(s.writes, TileRows::kAligned);
  EXPECT_EQ(s.threads, 256);
  EXPECT_EQ(s.blocks, 32768);
  EXPECT_EQ(TransposeStrategyText(s), "tiled 64x64 (16-byte vectors)");
  EXPECT_EQ(s.reason,
            "perm [1,0] of [16384,8192] moves the last dim: 32768 tiles of 64x64, staged in shared memory, read "
            "along the input's last dim (8192) and written along the output's last dim (16384)");
  const TransposeSchedule bf16 = Schedule(DType::kBF16, {16384, 8192}, {1, 0});
  EXPECT_EQ(bf16.vector_elements, 8);
  EXPECT_EQ(bf16.threads, 128);
  EXPECT_EQ(bf16.blocks, 128 * 128);
  EXPECT_EQ(TransposeStrategyText(bf16), "tiled 128x64 (16-byte vectors)");
}

// 16 KiB tiles, 64 columns (128 for bool), and a block of one kV x kV
// micro-tile per thread: 4, 8 or 16 vectors in flight each way.
TEST(TransposeScheduleTest, TilesHoldSixteenKiBAndAMicroTilePerThread) {
  struct Want {
    DType dtype;
    int tile_rows, tile_cols, threads;
  };
  for (const Want& want : {Want{DType::kF32, 64, 64, 256}, Want{DType::kI32, 64, 64, 256},
                           Want{DType::kBF16, 128, 64, 128}, Want{DType::kF16, 128, 64, 128},
                           Want{DType::kBool, 128, 128, 64}}) {
    const TransposeSchedule s = Schedule(want.dtype, {4096, 4096}, {1, 0});
    SCOPED_TRACE(DTypeName(want.dtype));
    EXPECT_EQ(s.tile_rows, want.tile_rows);
    EXPECT_EQ(s.tile_cols, want.tile_cols);
    EXPECT_EQ(s.threads, want.threads);
    EXPECT_EQ(int64_t{s.tile_rows} * s.tile_cols * s.element_bytes, 16384);
  }
}

TEST(TransposeScheduleTest, BatchedAndCollapsedPermutationsTile) {
  const TransposeSchedule batched = Schedule(DType::kBF16, {32, 1024, 1024}, {0, 2, 1});
  EXPECT_EQ(batched.strategy, TransposeStrategy::kTiled);
  EXPECT_EQ(batched.blocks, 32 * 8 * 16);
  EXPECT_EQ(batched.reason,
            "perm [0,2,1] of [32,1024,1024] moves the last dim: 4096 tiles of 128x64 over 32 batches, staged in "
            "shared memory, read along the input's last dim (1024) and written along the output's last dim (1024)");
  const TransposeSchedule bshd = Schedule(DType::kF16, {8, 1024, 16, 128}, {0, 2, 3, 1});
  EXPECT_THAT(bshd.dims, ElementsAre(8, 1024, 2048));
  EXPECT_EQ(bshd.blocks, 8 * 8 * 32);
  EXPECT_EQ(bshd.reason,
            "perm [0,2,3,1] of [8,1024,16,128] is perm [0,2,1] of [8,1024,2048], which moves the last dim: 2048 "
            "tiles of 128x64 over 8 batches, staged in shared memory, read along the input's last dim (2048) and "
            "written along the output's last dim (1024)");
  const TransposeSchedule cba = Schedule(DType::kF32, {98, 80, 72}, {2, 1, 0});
  EXPECT_THAT(cba.perm, ElementsAre(2, 1, 0));
  EXPECT_EQ(cba.blocks, 80 * 2 * 2);
  EXPECT_EQ(TransposeStrategyText(cba), "tiled 60x64 (16-byte, unaligned writes)");
}

TEST(TransposeScheduleTest, OddLengthsStillMoveSixteenByteVectors) {
  const TransposeSchedule s = Schedule(DType::kF32, {4093, 8191}, {1, 0});
  EXPECT_EQ(s.vector_elements, 4);
  EXPECT_EQ(s.reads, TileRows::kStraddling);
  EXPECT_EQ(s.writes, TileRows::kStraddling);
  // Straddling writes read the next tile's first 4 rows too: the tile gives
  // up 4 of its 64 rows to them, keeping one read item a thread.
  EXPECT_EQ(s.tile_rows, 60);
  EXPECT_EQ(s.threads, 256);
  EXPECT_EQ(s.blocks, 69 * 128);
  EXPECT_EQ(TransposeStrategyText(s), "tiled 60x64 (16-byte, unaligned rows)");
  EXPECT_EQ(s.reason,
            "perm [1,0] of [4093,8191] moves the last dim: 8832 tiles of 60x64, staged in shared memory, read along "
            "the input's last dim (8191) and written along the output's last dim (4093); rows of 8191 elements are "
            "no multiple of 16 bytes, so reads split the vectors straddling their ends; rows of 4093 elements are no "
            "multiple of 16 bytes, so writes split the vectors straddling their ends");
  const TransposeSchedule half = Schedule(DType::kBF16, {130, 200}, {1, 0});
  EXPECT_EQ(half.reads, TileRows::kAligned);
  EXPECT_EQ(half.writes, TileRows::kStraddling);
  EXPECT_EQ(TransposeStrategyText(half), "tiled 120x64 (16-byte, unaligned writes)");
  // One row tile holds every row: nothing after it to read.
  EXPECT_EQ(Schedule(DType::kBF16, {100, 200}, {1, 0}).tile_rows, 128);
}

TEST(TransposeScheduleTest, AShortDimGetsAShortTileAndTheOtherSideGrows) {
  const TransposeSchedule tall = Schedule(DType::kF32, {1000, 3}, {1, 0});
  EXPECT_EQ(tall.tile_rows, 1024);
  EXPECT_EQ(tall.tile_cols, 4);
  EXPECT_EQ(tall.blocks, 1);
  EXPECT_EQ(tall.reads, TileRows::kContiguous);
  EXPECT_EQ(tall.writes, TileRows::kAligned);
  EXPECT_EQ(TransposeStrategyText(tall), "tiled 1024x4 (16-byte, unaligned reads)");
  EXPECT_EQ(tall.reason,
            "perm [1,0] of [1000,3] moves the last dim: 1 tile of 1024x4, staged in shared memory, read along the "
            "input's last dim (3) and written along the output's last dim (1000); rows of 3 elements are no "
            "multiple of 16 bytes, so reads move the tile's adjacent rows as one span");
  // Never shorter than a vector (8 f16): micro-tiles are kV x kV.
  const TransposeSchedule wide = Schedule(DType::kF16, {3, 100000}, {1, 0});
  EXPECT_EQ(wide.tile_rows, 8);
  EXPECT_EQ(wide.tile_cols, 1024);
  EXPECT_EQ(wide.blocks, 98);
  EXPECT_EQ(wide.reads, TileRows::kAligned);
  EXPECT_EQ(wide.writes, TileRows::kContiguous);
  EXPECT_EQ(wide.threads, 128);
  EXPECT_EQ(TransposeStrategyText(wide), "tiled 8x1024 (16-byte, unaligned writes)");
  const TransposeSchedule small = Schedule(DType::kF32, {5, 6, 7}, {2, 1, 0});
  EXPECT_EQ(small.tile_rows, 8);
  EXPECT_EQ(small.tile_cols, 8);
  EXPECT_EQ(small.blocks, 6);
  EXPECT_EQ(small.threads, 32);  // a warp: the tile has 16 vectors
  const TransposeSchedule tall_bf16 = Schedule(DType::kBF16, {1000, 3}, {1, 0});
  EXPECT_EQ(tall_bf16.tile_rows, 1024);
  EXPECT_EQ(tall_bf16.tile_cols, 8);
}

TEST(TransposeScheduleTest, KeptLastDimCopiesRuns) {
  const TransposeSchedule s = Schedule(DType::kBF16, {8, 16, 1024, 128}, {0, 2, 1, 3});
  EXPECT_EQ(s.strategy, TransposeStrategy::kRowRun);
  EXPECT_EQ(s.vector_elements, 8);
  EXPECT_EQ(s.vectors_per_thread, 4);
  EXPECT_EQ(s.blocks, 8 * 16 * 1024 * 128 / 8 / 1024);
  EXPECT_EQ(TransposeStrategyText(s), "row-run copy (16-byte vectors)");
  EXPECT_EQ(s.reason, "perm [0,2,1,3] of [8,16,1024,128] keeps the last dim: 131072 runs of 128 contiguous elements "
                      "(256 bytes)");
  const TransposeSchedule merged = Schedule(DType::kF32, {2, 2, 5, 3002}, {1, 0, 2, 3});
  EXPECT_THAT(merged.dims, ElementsAre(2, 2, 15010));
  EXPECT_EQ(merged.vector_elements, 2);
  EXPECT_EQ(TransposeStrategyText(merged), "row-run copy (8-byte vectors)");
  EXPECT_EQ(merged.reason, "perm [1,0,2,3] of [2,2,5,3002] is perm [1,0,2] of [2,2,15010], which keeps the last dim: "
                           "4 runs of 15010 contiguous elements (60040 bytes)");
  const TransposeSchedule odd = Schedule(DType::kBF16, {4, 12, 33, 63}, {0, 2, 1, 3});
  EXPECT_EQ(odd.vector_elements, 1);
  EXPECT_EQ(TransposeStrategyText(odd), "row-run copy (scalar)");
}

TEST(TransposeScheduleTest, NothingMovingIsAVectorizedCopy) {
  const TransposeSchedule s = Schedule(DType::kF32, {3, 1, 5}, {0, 1, 2});
  EXPECT_EQ(s.strategy, TransposeStrategy::kCopy);
  EXPECT_EQ(s.vector_elements, 4);
  EXPECT_EQ(s.blocks, 1);
  EXPECT_EQ(TransposeStrategyText(s), "vectorized copy");
  EXPECT_EQ(s.reason, "perm [0,1,2] of [3,1,5] keeps every dim of size > 1 in place: a copy of 15 elements");
  const TransposeSchedule ones = Schedule(DType::kBF16, {1, 1}, {1, 0});
  EXPECT_THAT(ones.dims, IsEmpty());
  EXPECT_EQ(ones.reason, "perm [1,0] of [1,1] keeps every dim of size > 1 in place: a copy of 1 element");
  const TransposeSchedule moved_ones = Schedule(DType::kF16, {1, 4099}, {1, 0});
  EXPECT_EQ(moved_ones.strategy, TransposeStrategy::kCopy);
  EXPECT_EQ(moved_ones.blocks, 1);
}

TEST(TransposeScheduleTest, ComputedOperandsAreComputedPerElement) {
  GraphBuilder b;
  const Graph graph = *b.Build({Transpose(b.Iota(DType::kI32, {33, 65}, 1), {1, 0}).Named("t")});
  const TransposeSchedule s = ScheduleTranspose(graph, graph.outputs()[0]);
  EXPECT_EQ(s.strategy, TransposeStrategy::kComputed);
  EXPECT_EQ(s.blocks, 9);
  EXPECT_EQ(TransposeStrategyText(s), "computed from indices");
  EXPECT_EQ(s.reason, "perm [1,0] of [33,65]: its operand (iota) is computed where it is read, so each output "
                      "element computes its own value");
}

TEST(TransposeScheduleTest, PlansReportTheSchedule) {
  GraphBuilder b;
  const Graph graph = *b.Build({Transpose(b.Input("x", DType::kF32, {8, 16, 1024, 128}), {0, 2, 1, 3}).Named("t")});
  for (bool fuse : {true, false}) {
    const Plan plan = *(fuse ? PlanFusion(graph, DeviceLimits{}) : PlanUnfused(graph, DeviceLimits{}));
    ASSERT_EQ(plan.kernels.size(), 1u);
    const Kernel& k = plan.kernels[0];
    EXPECT_EQ(k.kind, KernelKind::kTranspose);
    EXPECT_EQ(k.transpose().strategy, TransposeStrategy::kRowRun);
    EXPECT_EQ(k.Strategy(), "row-run copy (16-byte vectors)");
    EXPECT_EQ(k.Reason(), "perm [0,2,1,3] of [8,16,1024,128] keeps the last dim: 131072 runs of 128 contiguous "
                          "elements (512 bytes)");
  }
}

}  // namespace
}  // namespace kiln
