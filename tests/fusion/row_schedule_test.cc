// Row schedules that follow from the row's bytes rather than its element
// count, and small broadcast producers of graph inputs folded into the row
// kernel that consumes them (fusion/grouping.cc, fusion/row_schedule.cc).
#include "fusion/row_schedule.h"

#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/node_names.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Plan Fused(const Graph& graph, const DeviceLimits& limits = DeviceLimits{}) {
  absl::StatusOr<Plan> plan = PlanFusion(graph, limits);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return *plan;
}

// A row op on [rows, cols] and the one row kernel it plans to.
struct RowPlanCase {
  RowOp op;
  DType dtype;
  int64_t rows, cols;
  RowStrategy strategy;
  int lanes_per_row, threads, rows_per_group;
  std::string text, reason;
};

void ExpectRowPlans(const std::vector<RowPlanCase>& cases) {
  for (const RowPlanCase& c : cases) {
    SCOPED_TRACE(absl::StrCat(RowOpName(c.op), " ", c.rows, "x", c.cols));
    const Plan plan = Fused(SweepRowGraph(c.op, c.dtype, c.rows, c.cols));
    ASSERT_EQ(plan.kernels.size(), 1u);
    const Kernel& k = plan.kernels[0];
    const RowSchedule& row = k.row();
    EXPECT_EQ(row.strategy, c.strategy);
    EXPECT_EQ(row.lanes_per_row, c.lanes_per_row);
    EXPECT_EQ(row.threads, c.threads);
    EXPECT_EQ(row.rows_per_group, c.rows_per_group);
    EXPECT_EQ(k.Strategy(), c.text);
    EXPECT_EQ(k.Reason(), c.reason);
  }
}

TEST(RowScheduleTest, WeightCastsFoldIntoTheLayerNormKernel) {
  const Graph graph = LayerNormWithWeights(DType::kBF16, 8192, 8192);
  const Plan plan = Fused(graph);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const Kernel& k = plan.kernels[0];
  EXPECT_EQ(k.kind, KernelKind::kRowReduction);
  EXPECT_THAT(NodeNames(graph, k.inputs), ElementsAre("x", "w", "b"));
  EXPECT_THAT(NodeNames(graph, k.outputs), ElementsAre("y"));
  EXPECT_THAT(NodeNames(graph, k.row().broadcast_nodes), ElementsAre("w32", "b32"));
  // x and y once, the bf16 weight and bias once each: no f32 copies of them.
  EXPECT_EQ(k.traffic.bytes_read, 8192LL * 8192 * 2 + 2 * 8192 * 2);
  EXPECT_EQ(k.traffic.bytes_written, 8192LL * 8192 * 2);
  EXPECT_THAT(plan.boundaries, IsEmpty());
}

TEST(RowScheduleTest, WeightCastsFoldOnEveryRowStrategy) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{65536, 1024}, {16396, 4093}, {523, 128256}}) {
    SCOPED_TRACE(cols);
    const Graph graph = LayerNormWithWeights(DType::kBF16, rows, cols);
    const Plan plan = Fused(graph);
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_THAT(NodeNames(graph, plan.kernels[0].row().broadcast_nodes), ElementsAre("w32", "b32"));
  }
}

// Expect no change: a cast that is also a graph output, or that a second
// kernel reads, keeps its own kernel and is read from memory.
TEST(RowScheduleTest, ProducersUsedElsewhereKeepTheirKernel) {
  {
    GraphBuilder b;
    Value x = b.Input("x", DType::kF32, {64, 4096});
    Value w = Cast(b.Input("w", DType::kBF16, {4096}), DType::kF32).Named("w32");
    Value y = (x - ReduceMax(x, {1}, true)) * w;
    const Graph graph = *b.Build({y.Named("y"), w});
    const Plan plan = Fused(graph);
    ASSERT_EQ(plan.kernels.size(), 2u);
    EXPECT_THAT(NodeNames(graph, plan.kernels[0].nodes), ElementsAre("w32"));
    EXPECT_THAT(plan.kernels[1].row().broadcast_nodes, IsEmpty());
  }
  {
    GraphBuilder b;
    Value x = b.Input("x", DType::kF32, {64, 4096});
    Value w = Cast(b.Input("w", DType::kBF16, {4096}), DType::kF32).Named("w32");
    Value y = (x - ReduceMax(x, {1}, true)) * w;
    Value z = ReduceSum(Exp(x), {0}, true) + w;  // a column reduction: another kernel reads w32
    const Graph graph = *b.Build({y.Named("y"), z.Named("z")});
    const Plan plan = Fused(graph);
    int holding_w32 = 0;
    for (const Kernel& k : plan.kernels) {
      if (NodeNames(graph, k.nodes) == std::vector<std::string>{"w32"}) ++holding_w32;
      if (k.kind == KernelKind::kRowReduction) {
        EXPECT_THAT(k.row().broadcast_nodes, IsEmpty());
      }
    }
    EXPECT_EQ(holding_w32, 1);
  }
}

// A block per row holds 64 bytes of the row a thread: 16 f32 values, 32 bf16.
TEST(RowScheduleTest, BlockThreadsFollowTheRowsBytes) {
  struct Case {
    DType dtype;
    int64_t cols;
    int threads;
    int values_per_thread;
  };
  for (const Case& c : {Case{DType::kF32, 8192, 512, 16}, Case{DType::kBF16, 8192, 256, 32},
                        Case{DType::kF16, 16384, 512, 32}, Case{DType::kBF16, 4093, 128, 32},
                        Case{DType::kBF16, 2048, 128, 16}}) {
    SCOPED_TRACE(c.cols);
    const Plan plan = Fused(*SoftmaxNaive(c.dtype, 8192, c.cols));
    ASSERT_EQ(plan.kernels.size(), 1u);
    const RowSchedule& row = plan.kernels[0].row();
    EXPECT_EQ(row.strategy, RowStrategy::kBlockPersistent);
    EXPECT_EQ(row.threads, c.threads);
    EXPECT_EQ(row.values_per_thread, c.values_per_thread);
  }
}

// Short rows share a warp: a group of lanes per row (as many as the row has
// vectors, rounded up to a power of two) with the warp's rows side by side,
// and each group covering several rows in turn until a thread has 32 bytes
// of loads in flight. The shapes are the sweep's short-row cliff on the H200.
TEST(RowScheduleTest, ShortRowsArePackedIntoWarps) {
  // A group's lanes are its threads.
  ExpectRowPlans({
      {RowOp::kSum, DType::kF32, 33554432, 2, RowStrategy::kPackedPersistent, 1, 1, 4,
       "persistent (rows packed in warps), 1 lane per row, 128 rows per warp",
       "row of 2 f32 = 8 B fits 1 lane: 32 rows side by side in a warp, each lane group covering 4 rows in turn "
       "(32 bytes in flight a thread), one pass"},
      {RowOp::kLogSumExp, DType::kF32, 2097152, 32, RowStrategy::kPackedPersistent, 8, 8, 2,
       "persistent (rows packed in warps), 8 lanes per row, 8 rows per warp",
       "row of 32 f32 = 128 B fits 8 lanes' registers: 4 rows side by side in a warp, each lane group covering 2 "
       "rows in turn (32 bytes in flight a thread)"},
      // A bf16 row of 16 is two vectors of 8: 2 lanes, 16 rows side by side.
      {RowOp::kRmsNorm, DType::kBF16, 4194304, 16, RowStrategy::kPackedPersistent, 2, 2, 2,
       "persistent (rows packed in warps), 2 lanes per row, 32 rows per warp",
       "row of 16 f32 = 64 B fits 2 lanes' registers: 16 rows side by side in a warp, each lane group covering 2 "
       "rows in turn (32 bytes in flight a thread)"},
      // Long rows keep a warp per row and their plan: 32 bytes a thread already.
      {RowOp::kSoftmax, DType::kF32, 65536, 1024, RowStrategy::kWarpPersistent, 32, 32, 1, "persistent (warp per row)",
       "row of 1024 f32 = 4 KiB fits one warp's registers: a warp per row"},
      {RowOp::kMax, DType::kBF16, 67108, 1000, RowStrategy::kWarpPersistent, 32, 32, 1, "persistent (warp per row)",
       "row of 1000 f32 = 4000 B fits one warp: a warp per row, one pass"},
  });
}

// logsumexp's max and sum of exp join in the online recurrence, so rows too
// long for a block stream in one pass, read once, instead of being held in a
// cluster; rows a block holds stay held. softmax's output needs the row again
// after both, so its long rows stay held in a cluster.
TEST(RowScheduleTest, LogSumExpStreamsRowsTooLongForABlockInOneOnlinePass) {
  for (auto [rows, cols, strategy] : {std::tuple{int64_t{1335}, int64_t{50257}, RowStrategy::kLooped},
                                      std::tuple{int64_t{32}, int64_t{2097152}, RowStrategy::kClusterLooped}}) {
    SCOPED_TRACE(cols);
    const Plan plan = Fused(SweepRowGraph(RowOp::kLogSumExp, DType::kF16, rows, cols));
    ASSERT_EQ(plan.kernels.size(), 1u);
    const RowSchedule& row = plan.kernels[0].row();
    EXPECT_EQ(row.strategy, strategy);
    EXPECT_TRUE(row.online_softmax);
    EXPECT_EQ(row.passes, 1);
    EXPECT_EQ(row.stages.size(), 1u);
    EXPECT_EQ(plan.total.bytes(), (rows * cols + rows) * 2);
  }
  EXPECT_EQ(Fused(SweepRowGraph(RowOp::kLogSumExp, DType::kF16, 1335, 50257)).kernels[0].row().reason,
            "single pass: row of 50257 f32 = 201028 B exceeds one block's on-chip budget of 128 KiB, but its max and "
            "sum of exp join in one online pass; a block per row");
  EXPECT_EQ(Fused(SweepRowGraph(RowOp::kLogSumExp, DType::kBF16, 16396, 4093)).kernels[0].row().strategy,
            RowStrategy::kBlockPersistent);
  const Plan softmax = Fused(SweepRowGraph(RowOp::kSoftmax, DType::kF16, 1335, 50257));
  ASSERT_EQ(softmax.kernels.size(), 1u);
  EXPECT_EQ(softmax.kernels[0].row().strategy, RowStrategy::kClusterPersistent);
}

// Layernorm's mean and the mean of (x - mean)^2 join as one statistic (the
// moments) where a unit reduction costs a cluster exchange or a block of 1024
// threads' barrier, and where a streamed row would read the row again for
// the variance: one stage instead of two, and a looped row reads its input
// twice, not three times.
TEST(RowScheduleTest, LayerNormMeanAndVarianceJoinAsMoments) {
  const Graph layernorm = SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 1335, 50257);
  const Plan split = Fused(layernorm);
  ASSERT_EQ(split.kernels.size(), 1u);
  const RowSchedule& held = split.kernels[0].row();
  EXPECT_EQ(held.strategy, RowStrategy::kClusterPersistent);
  EXPECT_TRUE(held.segment_in_shared_memory);
  EXPECT_EQ(held.stages.size(), 1u);
  ASSERT_EQ(held.moment_pairs.size(), 1u);
  const Node& mean = layernorm.node(held.moment_pairs[0].first);
  const Node& var = layernorm.node(held.moment_pairs[0].second);
  EXPECT_EQ(mean.op, OpKind::kReduceMean);
  EXPECT_EQ(var.op, OpKind::kReduceMean);
  EXPECT_EQ(layernorm.node(var.operands[0]).op, OpKind::kMul);
  EXPECT_THAT(held.reason, ::testing::EndsWith(", mean and variance in one reduction"));
  EXPECT_EQ(split.kernels[0].Strategy(), "split (cluster per row, persistent) x4, online moments");

  const int64_t rows = 32, cols = 2097152;
  const Plan looped = Fused(SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, rows, cols));
  ASSERT_EQ(looped.kernels.size(), 1u);
  EXPECT_EQ(looped.kernels[0].row().strategy, RowStrategy::kClusterLooped);
  EXPECT_EQ(looped.kernels[0].row().passes, 2);
  EXPECT_THAT(looped.kernels[0].row().reason, ::testing::EndsWith(", 2 passes (mean and variance in one pass)"));
  // x read twice and y written once, in bf16, and the weight and bias read
  // by the output pass.
  EXPECT_EQ(looped.total.bytes(), rows * cols * 2 * 3 + 2 * cols * 2);

  // Held in registers, a block of 256 threads keeps its two barriers.
  const Plan in_registers = Fused(SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 8192, 8192));
  const RowSchedule& registers = in_registers.kernels[0].row();
  EXPECT_EQ(registers.strategy, RowStrategy::kBlockPersistent);
  EXPECT_FALSE(registers.segment_in_shared_memory);
  EXPECT_EQ(registers.stages.size(), 2u);
  EXPECT_THAT(registers.moment_pairs, IsEmpty());
}

// Only statistics the kernel computes in f32 pair: a mean rounded to bf16
// before the deviations are taken is not the moments' mean.
TEST(RowScheduleTest, SixteenBitStatisticsDoNotPair) {
  GraphBuilder b;
  const Value x = b.Input("x", DType::kBF16, {64, 1048576});
  const Value d = x - ReduceMean(x, {1}, true);
  const Graph graph = *b.Build({(d * Rsqrt(ReduceMean(d * d, {1}, true))).Named("y")});
  const Plan plan = Fused(graph);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_THAT(plan.kernels[0].row().moment_pairs, IsEmpty());
  EXPECT_EQ(plan.kernels[0].row().stages.size(), 2u);
}

// Expect fewer rows a group where more would leave SMs short of warps: 4096
// rows of 4 f32 fill 128 warps at one row a group, already below the 8448
// warps that fill 132 SMs.
TEST(RowScheduleTest, FewShortRowsKeepOneRowAGroup) {
  const Plan plan = Fused(SweepRowGraph(RowOp::kSoftmax, DType::kF32, 4096, 4));
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].row().rows_per_group, 1);
  EXPECT_EQ(plan.kernels[0].Strategy(), "persistent (rows packed in warps), 1 lane per row, 32 rows per warp");
}

// Short rows that no vector fits (odd lengths, rows of 3 f32 on 4 lanes) are
// staged: a block copies its rows' contiguous span into shared memory as
// 16-byte vectors and a thread reduces each row. The span holds 40 KiB of
// inputs and full-shape outputs at most, and shrinks where fewer than four
// blocks an SM would remain. The first four are the sweep's cliffs on the
// H200. (Rows of 1 are no rows: fusion/op_class.h, IsUnitReduction.)
TEST(RowScheduleTest, ShortRowsNoVectorFitsAreStagedInSharedMemory) {
  ExpectRowPlans({
      {RowOp::kSum, DType::kBF16, 2033601, 33, RowStrategy::kStagedPersistent, 1, 256, 2,
       "persistent (rows staged in shared memory), 512 rows per block",
       "row of 33 f32 = 132 B: no vector both divides the row and fills a lane's load, so a block stages 512 rows "
       "(33 KiB) in shared memory with 16-byte copies and each of its 256 threads reduces 2 rows in turn, one pass"},
      {RowOp::kLogSumExp, DType::kF16, 2033601, 33, RowStrategy::kStagedPersistent, 1, 256, 2,
       "persistent (rows staged in shared memory), 512 rows per block",
       "row of 33 f32 = 132 B: no vector both divides the row and fills a lane's load, so a block stages 512 rows "
       "(33 KiB) in shared memory with 16-byte copies and each of its 256 threads reduces 2 rows in turn"},
      // Input and output: 264 B a row, 155 rows in 40 KiB, so 128 threads a row each.
      {RowOp::kLayerNorm, DType::kF32, 2033601, 33, RowStrategy::kStagedPersistent, 1, 128, 1,
       "persistent (rows staged in shared memory), 128 rows per block",
       "row of 33 f32 = 132 B: no vector both divides the row and fills a lane's load, so a block stages 128 rows "
       "(33 KiB) in shared memory with 16-byte copies and each of its 128 threads reduces a row"},
      {RowOp::kSoftmax, DType::kF32, 22369621, 3, RowStrategy::kStagedPersistent, 1, 256, 4,
       "persistent (rows staged in shared memory), 1024 rows per block",
       "row of 3 f32 = 12 B: no vector both divides the row and fills a lane's load, so a block stages 1024 rows "
       "(24 KiB) in shared memory with 16-byte copies and each of its 256 threads reduces 4 rows in turn"},
      // 16 blocks of 256 rows already leave SMs idle: a row a thread.
      {RowOp::kSoftmax, DType::kF32, 4096, 3, RowStrategy::kStagedPersistent, 1, 256, 1,
       "persistent (rows staged in shared memory), 256 rows per block",
       "row of 3 f32 = 12 B: no vector both divides the row and fills a lane's load, so a block stages 256 rows "
       "(6 KiB) in shared memory with 16-byte copies and each of its 256 threads reduces a row"},
      // 63 f32 in and out: 504 B a row, 81 rows in 40 KiB, so blocks of 64 threads.
      {RowOp::kRmsNorm, DType::kF32, 1000000, 63, RowStrategy::kStagedPersistent, 1, 64, 1,
       "persistent (rows staged in shared memory), 64 rows per block",
       "row of 63 f32 = 252 B: no vector both divides the row and fills a lane's load, so a block stages 64 rows "
       "(32256 B) in shared memory with 16-byte copies and each of its 64 threads reduces a row"},
  });
}

// Rows built from broadcasts alone hold no full-length tensor to stage: a
// column plus a row, summed over the row, reads [rows] and [cols] and writes
// [rows]. Staging sized its span by the full-length bytes a row moves, zero
// here, and divided by zero (pipeline fuzzer); such rows stream in warps.
TEST(RowScheduleTest, RowsOfBroadcastsAloneAreNotStaged) {
  GraphBuilder b;
  const Value column = b.Input("column", DType::kF32, {4096, 1});
  const Value row = b.Input("row", DType::kF32, {33});
  const Graph graph = *b.Build({ReduceSum(column + row, {1}, false).Named("y")});
  const Plan plan = Fused(graph);
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].row().strategy, RowStrategy::kWarpPersistent);
}

// Rows that lanes of whole vectors fit keep their lane groups, and so do
// short rows whose length is a multiple of 4 (a thread a row would meet its
// neighbours in one shared-memory bank), rows longer than 64 and rows whose
// inputs hold more than 64 values a thread.
TEST(RowScheduleTest, RowsThatVectorsFitAreNotStaged) {
  struct Case {
    RowOp op;
    DType dtype;
    int64_t rows, cols;
    RowStrategy strategy;
  };
  const Case cases[] = {
      {RowOp::kSum, DType::kF32, 33554432, 2, RowStrategy::kPackedPersistent},
      {RowOp::kSum, DType::kBF16, 33554432, 2, RowStrategy::kPackedPersistent},
      {RowOp::kSoftmax, DType::kF32, 1000000, 12, RowStrategy::kPackedPersistent},
      {RowOp::kSum, DType::kF32, 1000000, 65, RowStrategy::kWarpPersistent},
      {RowOp::kSum, DType::kF32, 1000000, 48, RowStrategy::kPackedPersistent},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(RowOpName(c.op), " ", c.rows, "x", c.cols));
    const Plan plan = Fused(SweepRowGraph(c.op, c.dtype, c.rows, c.cols));
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_EQ(plan.kernels[0].row().strategy, c.strategy);
  }
}

// A reduction alone holds no row: a warp per row streams rows shorter than
// 2048 values (a block per row had left [65472, 1025] at 0.61 of the copy
// rate); from 2048 a block per row loops over them.
TEST(RowScheduleTest, StreamedReductionsTakeAWarpPerRowBelowTwoThousandValues) {
  ExpectRowPlans({
      {RowOp::kSum, DType::kF32, 65472, 1025, RowStrategy::kWarpPersistent, 32, 32, 1, "persistent (warp per row)",
       "row of 1025 f32 = 4100 B fits one warp: a warp per row, one pass"},
      {RowOp::kMax, DType::kBF16, 65472, 2047, RowStrategy::kWarpPersistent, 32, 32, 1, "persistent (warp per row)",
       "row of 2047 f32 = 8188 B fits one warp: a warp per row, one pass"},
      {RowOp::kSum, DType::kF32, 4096, 2048, RowStrategy::kLooped, 32, 256, 1, "looped",
       "single pass: a reduction alone needs no row held on chip; a block per row"},
  });
}

// Few rows streamed over clusters take the largest cluster, then the most
// threads, whose clusters all fit on the GPU at once: an H100 (the table
// with no GPU) holds 30 clusters of 8 blocks of 1024 threads, 62 of 512.
TEST(RowScheduleTest, FewRowsTakeClustersThatAllFitAtOnce) {
  ExpectRowPlans({
      {RowOp::kLogSumExp, DType::kBF16, 32, 2097152, RowStrategy::kClusterLooped, 32, 512, 1,
       "split (cluster per row, looped) x8, online softmax",
       "single pass: row of 2097152 f32 = 8 MiB exceeds one block's on-chip budget of 128 KiB, but its max and sum "
       "of exp join in one online pass; 32 rows cannot fill 132 SMs, so each row is split over a cluster of 8 "
       "blocks of 512 threads (62 such clusters fit on the GPU at once)"},
      {RowOp::kSum, DType::kF32, 128, 524288, RowStrategy::kClusterLooped, 32, 1024, 1,
       "split (cluster per row, looped) x2",
       "single pass: a reduction alone needs no row held on chip; 128 rows cannot fill 132 SMs, so each row is "
       "split over a cluster of 2 blocks of 1024 threads (132 such clusters fit on the GPU at once)"},
      // Held rows' registers set their blocks an SM, which planning does not
      // know: they keep clusters of 8.
      {RowOp::kLayerNorm, DType::kBF16, 32, 2097152, RowStrategy::kClusterLooped, 32, 512, 1,
       "split (cluster per row, looped) x8, online moments, 2 passes",
       "row of 2097152 f32 = 8 MiB exceeds the on-chip budget of a cluster, 1 MiB; looped over tiles, 2 passes "
       "(mean and variance in one pass)"},
  });
}

// Where the counts are not known, the block slots bound them: 33 clusters of
// 8 blocks of 1024 threads for 132 SMs.
TEST(RowScheduleTest, UnknownResidencyFallsBackToTheBlockSlots) {
  DeviceLimits limits;
  limits.cluster_residency = {};
  const Plan plan = Fused(SweepRowGraph(RowOp::kLogSumExp, DType::kBF16, 32, 2097152), limits);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const RowSchedule& row = plan.kernels[0].row();
  EXPECT_EQ(row.cluster_blocks, 8);
  EXPECT_EQ(row.threads, 1024);
  EXPECT_THAT(row.reason, ::testing::EndsWith("(33 such clusters fit on the GPU at once)"));
}

// More rows than even the smallest clusters fit run in waves, and say so.
TEST(RowScheduleTest, RowsBeyondEveryClusterSayTheyRunInWaves) {
  DeviceLimits limits;
  limits.cluster_residency.clusters[0] = {10, 20, 30, 40};  // clusters of 2
  const Plan plan = Fused(SweepRowGraph(RowOp::kSum, DType::kF32, 128, 524288), limits);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const RowSchedule& row = plan.kernels[0].row();
  EXPECT_EQ(row.cluster_blocks, 2);
  EXPECT_EQ(row.threads, 512);
  EXPECT_THAT(row.reason, ::testing::EndsWith("(40 such clusters fit on the GPU at once, so they run in waves)"));
}

}  // namespace
}  // namespace kiln
