// Reductions over leading and middle axes: how the operand collapses into
// [outer, reduced, inner], and the column tiles, lanes and split the planner
// picks from that shape and the device limits.
#include "fusion/axis_reduction_schedule.h"

#include <string>
#include <vector>

#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

using Axis = AxisReductionSchedule::Axis;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The planned kernel of `op` over `axes` of an input of `shape`.
Kernel PlanReduction(DType dtype, const Dims& shape, std::vector<int64_t> axes, OpKind op = OpKind::kReduceSum,
                     const DeviceLimits& limits = DeviceLimits{}, bool keepdims = false) {
  GraphBuilder b;
  Value x = b.Input("x", dtype, shape);
  Value y;
  switch (op) {
    case OpKind::kReduceMean: y = ReduceMean(x, axes, keepdims); break;
    case OpKind::kReduceMax: y = ReduceMax(x, axes, keepdims); break;
    case OpKind::kReduceMin: y = ReduceMin(x, axes, keepdims); break;
    default: y = ReduceSum(x, axes, keepdims); break;
  }
  absl::StatusOr<Plan> plan = PlanFusion(*b.Build({y.Named("y")}), limits);
  EXPECT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->kernels.size(), 1u);
  EXPECT_EQ(plan->kernels.front().kind, KernelKind::kReduction);
  return plan->kernels.front();
}

TEST(CollapseReductionAxesTest, LeadingAxisIsRowsOfContiguousColumns) {
  const AxisReductionSchedule s = CollapseReductionAxes({65536, 4096}, {0});
  EXPECT_EQ(s.outer, 1);
  EXPECT_EQ(s.reduced, 65536);
  EXPECT_EQ(s.inner, 4096);
  EXPECT_THAT(s.outer_axes, IsEmpty());
  EXPECT_THAT(s.reduced_axes, ElementsAre(Axis{65536, 4096}));
  EXPECT_TRUE(s.collapsed());
}

TEST(CollapseReductionAxesTest, MiddleAxisHasOuterRowsAndInnerColumns) {
  const AxisReductionSchedule s = CollapseReductionAxes({8, 4096, 1024}, {1});
  EXPECT_EQ(s.outer, 8);
  EXPECT_EQ(s.reduced, 4096);
  EXPECT_EQ(s.inner, 1024);
  EXPECT_THAT(s.outer_axes, ElementsAre(Axis{8, 4096 * 1024}));
  EXPECT_THAT(s.reduced_axes, ElementsAre(Axis{4096, 1024}));
  EXPECT_TRUE(s.collapsed());
}

TEST(CollapseReductionAxesTest, AdjacentReducedAxesAndKeptAxesMerge) {
  const AxisReductionSchedule s = CollapseReductionAxes({4, 5, 6, 7}, {0, 1});
  EXPECT_EQ(s.outer, 1);
  EXPECT_EQ(s.reduced, 20);
  EXPECT_EQ(s.inner, 42);
  EXPECT_THAT(s.reduced_axes, ElementsAre(Axis{20, 42}));
  const AxisReductionSchedule middle = CollapseReductionAxes({2, 3, 5, 7, 11}, {2, 3});
  EXPECT_EQ(middle.outer, 6);
  EXPECT_EQ(middle.reduced, 35);
  EXPECT_EQ(middle.inner, 11);
  EXPECT_THAT(middle.outer_axes, ElementsAre(Axis{6, 385}));
  EXPECT_THAT(middle.reduced_axes, ElementsAre(Axis{35, 11}));
}

TEST(CollapseReductionAxesTest, DimsOfOneMoveNoAddressAndDrop) {
  // The kept 1 between the reduced 7 and the kept 5 does not separate them.
  const AxisReductionSchedule s = CollapseReductionAxes({1, 7, 1, 5}, {0, 1});
  EXPECT_EQ(s.outer, 1);
  EXPECT_EQ(s.reduced, 7);
  EXPECT_EQ(s.inner, 5);
  EXPECT_TRUE(s.collapsed());
  // Reducing only a dim of one copies: every dim is kept.
  const AxisReductionSchedule copy = CollapseReductionAxes({4, 1, 8}, {1});
  EXPECT_EQ(copy.outer, 1);
  EXPECT_EQ(copy.reduced, 1);
  EXPECT_EQ(copy.inner, 32);
  EXPECT_THAT(copy.reduced_axes, IsEmpty());
  EXPECT_THAT(copy.outer_axes, IsEmpty());
}

TEST(CollapseReductionAxesTest, SeparatedReducedAxesGatherTheirRows) {
  // [A,B,C] over {0,2}: B kept between them, and no kept dims after C.
  const AxisReductionSchedule s = CollapseReductionAxes({64, 128, 256}, {0, 2});
  EXPECT_EQ(s.outer, 128);
  EXPECT_EQ(s.reduced, 64 * 256);
  EXPECT_EQ(s.inner, 1);
  EXPECT_THAT(s.outer_axes, ElementsAre(Axis{128, 256}));
  EXPECT_THAT(s.reduced_axes, ElementsAre(Axis{64, 128 * 256}, Axis{256, 1}));
  EXPECT_FALSE(s.collapsed());
  const AxisReductionSchedule four = CollapseReductionAxes({3, 4, 5, 6}, {1, 3});
  EXPECT_EQ(four.inner, 1);
  EXPECT_THAT(four.outer_axes, ElementsAre(Axis{3, 120}, Axis{5, 6}));
  EXPECT_THAT(four.reduced_axes, ElementsAre(Axis{4, 30}, Axis{6, 1}));
}

TEST(AxisReductionScheduleTest, FewWideColumnTilesSplitTheirRows) {
  // [65536,4096] f32: 32 tiles of 128 columns for 528 block slots; 33 blocks
  // share each tile, 1056 blocks in all.
  const Kernel k = PlanReduction(DType::kF32, {65536, 4096}, {0});
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_EQ(s.vector, 4);
  EXPECT_EQ(s.column_lanes, 32);
  EXPECT_EQ(s.row_lanes, 8);
  EXPECT_EQ(s.outer_lanes, 1);
  EXPECT_EQ(s.threads, 256);
  EXPECT_EQ(s.unroll, 4);
  EXPECT_EQ(s.blocks_per_sm, 4);
  EXPECT_EQ(s.tiles, 32);
  EXPECT_EQ(s.split, 33);
  EXPECT_EQ(s.rows_per_split, 1986);
  EXPECT_EQ(s.blocks, 32 * 33);
  EXPECT_EQ(k.Strategy(), "column tiles (128 columns, split x33)");
  EXPECT_EQ(k.Reason(),
            "[65536,4096] f32 over axes [0]: 65536 rows of 4096 columns; 16-byte loads (4 f32); tiles of 128 "
            "columns, 8 row lanes (256 threads); 32 tiles cannot fill 528 block slots (132 SMs x 4), so 33 blocks "
            "share each tile's rows (1986 each) and the last to finish combines their partials in order");
}

TEST(AxisReductionScheduleTest, SixteenBitElementsLoadEightAtATime) {
  const Kernel k = PlanReduction(DType::kBF16, {65536, 4096}, {0});
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_EQ(s.vector, 8);
  EXPECT_EQ(s.tile_columns(), 256);
  EXPECT_EQ(s.tiles, 16);
  EXPECT_EQ(s.split, 33);
  EXPECT_EQ(k.Strategy(), "column tiles (256 columns, split x33)");
}

TEST(AxisReductionScheduleTest, NarrowColumnsSpanOneTileAndSplitManyWays) {
  const Kernel k = PlanReduction(DType::kF32, {1000000, 8}, {0}, OpKind::kReduceMax);
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_EQ(s.column_lanes, 2);
  EXPECT_EQ(s.row_lanes, 128);
  EXPECT_EQ(s.tiles, 1);
  EXPECT_EQ(s.split, 460);
  EXPECT_EQ(s.rows_per_split, 2174);
  EXPECT_EQ(k.Strategy(), "column tiles (8 columns, split x460)");
}

TEST(AxisReductionScheduleTest, OddColumnsLoadScalarsAndLanesNeedNotBeAPowerOfTwo) {
  const Kernel k = PlanReduction(DType::kF32, {2, 1000000, 3}, {1}, OpKind::kReduceMean);
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_EQ(s.vector, 1);
  EXPECT_EQ(s.unroll, 16);
  EXPECT_EQ(s.column_lanes, 3);
  EXPECT_EQ(s.row_lanes, 85);
  EXPECT_EQ(s.threads, 255);
  EXPECT_EQ(s.tiles, 2);
  EXPECT_EQ(s.split, 181);
  EXPECT_EQ(k.Reason(),
            "[2,1000000,3] f32 over axes [1]: 1000000 rows of 3 columns for each of 2 outer indices; scalar loads "
            "(an odd 3 columns); tiles of 3 columns, 85 row lanes (255 threads); 2 tiles cannot fill 528 block "
            "slots (132 SMs x 4), so 181 blocks share each tile's rows (5525 each) and the last to finish "
            "combines their partials in order");
}

TEST(AxisReductionScheduleTest, ColumnsThatFillTheGpuWalkTheirRowsAlone) {
  // 128 x 4093 column threads fill 132 SMs: a thread per column, no row lanes.
  const Kernel k = PlanReduction(DType::kF32, {128, 33, 4093}, {1});
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_EQ(s.row_lanes, 1);
  EXPECT_EQ(s.column_lanes, 256);
  EXPECT_EQ(s.tiles_per_outer, 16);
  EXPECT_EQ(s.tiles, 2048);
  EXPECT_EQ(s.split, 1);
  EXPECT_EQ(k.Strategy(), "column tiles (256 columns)");
  EXPECT_EQ(k.Reason(),
            "[128,33,4093] f32 over axes [1]: 33 rows of 4093 columns for each of 128 outer indices; scalar "
            "loads (an odd 4093 columns); tiles of 256 columns, 1 row lane (256 threads); 2048 tiles fill 528 "
            "block slots (132 SMs x 4)");
}

TEST(AxisReductionScheduleTest, FewRowsOfWideColumnsNeedNoRowLanes) {
  const Kernel k = PlanReduction(DType::kF32, {7, 100000}, {0});
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_EQ(s.row_lanes, 1);
  EXPECT_EQ(s.tile_columns(), 1024);
  EXPECT_EQ(s.tiles, 98);
  EXPECT_EQ(s.split, 1);
  EXPECT_EQ(k.Reason(),
            "[7,100000] f32 over axes [0]: 7 rows of 100000 columns; 16-byte loads (4 f32); tiles of 1024 "
            "columns, 1 row lane (256 threads); 98 tiles on 528 block slots (132 SMs x 4), a block each (7 rows "
            "per lane, too few to split)");
}

TEST(AxisReductionScheduleTest, FewRowsOfNarrowColumnsShareABlockAcrossOuterIndices) {
  const Kernel k = PlanReduction(DType::kF32, {20000, 4, 8}, {1});
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_EQ(s.column_lanes, 2);
  EXPECT_EQ(s.row_lanes, 4);
  EXPECT_EQ(s.outer_lanes, 32);
  EXPECT_EQ(s.tiles, 625);
  EXPECT_EQ(k.Strategy(), "column tiles (8 columns x 32 outer)");
  // With columns enough to fill the GPU, a thread walks its 4 rows (32-byte rows: whole sectors).
  const Kernel many = PlanReduction(DType::kF32, {1000000, 4, 8}, {1});
  EXPECT_EQ(many.axis_reduction().row_lanes, 1);
  EXPECT_EQ(many.axis_reduction().outer_lanes, 128);
}

TEST(AxisReductionScheduleTest, SeparatedAxesGatherRowsInTheSameKernel) {
  const Kernel k = PlanReduction(DType::kF32, {64, 128, 256}, {0, 2});
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_FALSE(s.collapsed());
  EXPECT_EQ(s.row_lanes, 256);
  EXPECT_EQ(s.tiles, 128);
  EXPECT_EQ(k.Strategy(), "column tiles (1 column, gathered rows)");
  EXPECT_EQ(k.Reason(),
            "[64,128,256] f32 over axes [0,2]: 16384 rows of 1 column for each of 128 outer indices (the axes do "
            "not collapse: rows gathered from 2 reduced and 1 outer axis groups); scalar loads (one column); "
            "tiles of 1 column, 256 row lanes (256 threads); 128 tiles on 528 block slots (132 SMs x 4), a block "
            "each (64 rows per lane, too few to split)");
}

TEST(AxisReductionScheduleTest, ManyTilesNeedNoSplit) {
  const Kernel k = PlanReduction(DType::kF32, {1000, 1000, 32}, {1});
  const AxisReductionSchedule& s = k.axis_reduction();
  EXPECT_EQ(s.column_lanes, 8);
  EXPECT_EQ(s.row_lanes, 32);
  EXPECT_EQ(s.tiles, 1000);
  EXPECT_EQ(s.split, 1);
  EXPECT_EQ(s.blocks, 1000);
}

TEST(AxisReductionScheduleTest, SplitFollowsTheSmCount) {
  // [65536,1024] f32 is 8 tiles: 66 blocks each fill 132 SMs x 4, 33 fill half as many SMs, and one SM needs none.
  auto split_on = [](int sm_count) {
    DeviceLimits limits;
    limits.sm_count = sm_count;
    return PlanReduction(DType::kF32, {65536, 1024}, {0}, OpKind::kReduceSum, limits).axis_reduction().split;
  };
  EXPECT_EQ(split_on(132), 66);
  EXPECT_EQ(split_on(66), 33);
  EXPECT_EQ(split_on(1), 1);
}

TEST(AxisReductionScheduleTest, OpsAndKeepdimsShareTheSchedule) {
  const Kernel sum = PlanReduction(DType::kF16, {4097, 64}, {0});
  for (OpKind op : {OpKind::kReduceMean, OpKind::kReduceMax, OpKind::kReduceMin}) {
    for (bool keepdims : {false, true}) {
      const Kernel k = PlanReduction(DType::kF16, {4097, 64}, {0}, op, DeviceLimits{}, keepdims);
      EXPECT_EQ(k.Strategy(), sum.Strategy());
      EXPECT_EQ(k.Reason(), sum.Reason());
    }
  }
}

TEST(AxisReductionScheduleTest, TrafficIsOneReadAndOneWrite) {
  const Kernel k = PlanReduction(DType::kBF16, {65536, 4096}, {0});
  EXPECT_EQ(k.traffic.bytes_read, int64_t{65536} * 4096 * 2);
  EXPECT_EQ(k.traffic.bytes_written, 4096 * 2);
}

}  // namespace
}  // namespace kiln
