#include "fusion/planner.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/matmul_candidates.h"
#include "fusion/matmul_schedule.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"
#include "tests/node_names.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Plans {
  Plan fused;
  Plan unfused;
};

Plans PlanBoth(const Graph& graph, const DeviceLimits& limits = DeviceLimits{}) {
  absl::StatusOr<Plan> fused = PlanFusion(graph, limits);
  absl::StatusOr<Plan> unfused = PlanUnfused(graph, limits);
  EXPECT_TRUE(fused.ok()) << fused.status();
  EXPECT_TRUE(unfused.ok()) << unfused.status();
  return {*fused, *unfused};
}

TEST(PlannerTest, GeluF32MatchesDesignNumbers) {
  const Graph graph = *GeluNaive(DType::kF32, {16384, 16384});
  const Plans plans = PlanBoth(graph);
  EXPECT_EQ(plans.unfused.kernels.size(), 9u);
  EXPECT_EQ(plans.unfused.total.bytes(), 22'548'578'304);
  ASSERT_EQ(plans.fused.kernels.size(), 1u);
  EXPECT_EQ(plans.fused.total.bytes(), 2'147'483'648);
  const Kernel& k = plans.fused.kernels[0];
  EXPECT_EQ(k.name, "f0_pointwise");
  EXPECT_EQ(k.kind, KernelKind::kPointwise);
  EXPECT_THAT(NodeNames(graph, k.nodes), ElementsAre("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "y"));
  EXPECT_THAT(NodeNames(graph, k.inputs), ElementsAre("x"));
  EXPECT_THAT(NodeNames(graph, k.outputs), ElementsAre("y"));
  EXPECT_TRUE(plans.fused.boundaries.empty());
}

TEST(PlannerTest, GeluBf16HalvesTheBytes) {
  const Plans plans = PlanBoth(*GeluNaive(DType::kBF16, {16384, 16384}));
  EXPECT_EQ(plans.unfused.total.bytes(), 21 * int64_t{268435456} * 2);
  EXPECT_EQ(plans.fused.total.bytes(), 1'073'741'824);
}

TEST(PlannerTest, UnfusedNamesEveryOpKernel) {
  const Graph graph = *GeluNaive(DType::kF32, {64, 64});
  const Plan unfused = *PlanUnfused(graph, DeviceLimits{});
  std::vector<std::string> names;
  for (const Kernel& k : unfused.kernels) names.push_back(k.name);
  EXPECT_THAT(names, ElementsAre("u0_mul", "u1_mul", "u2_mul", "u3_add", "u4_mul", "u5_tanh",
                                 "u6_add", "u7_mul", "u8_mul"));
  // t1 = x * x reads x once: distinct tensors only.
  EXPECT_EQ(unfused.kernels[0].traffic.bytes_read, 64 * 64 * 4);
}

struct SoftmaxCase {
  int64_t rows, cols;
  RowStrategy strategy;
};

TEST(PlannerTest, SoftmaxAtEveryBenchmarkShapeIsOneKernelReadingTheRowOnce) {
  const SoftmaxCase cases[] = {
      {65536, 1024, RowStrategy::kWarpPersistent},
      {16384, 4096, RowStrategy::kBlockPersistent},
      {4096, 16384, RowStrategy::kBlockPersistent},
      {512, 131072, RowStrategy::kClusterPersistent},
  };
  for (const SoftmaxCase& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.rows, "x", c.cols));
    const Graph graph = *SoftmaxNaive(DType::kF32, c.rows, c.cols);
    const Plans plans = PlanBoth(graph);
    const int64_t mn = c.rows * c.cols;
    EXPECT_EQ(plans.unfused.kernels.size(), 5u);
    EXPECT_EQ(plans.unfused.total.bytes(), (8 * mn + 4 * c.rows) * 4);
    ASSERT_EQ(plans.fused.kernels.size(), 1u);
    EXPECT_EQ(plans.fused.total.bytes(), 2 * mn * 4);
    const Kernel& k = plans.fused.kernels[0];
    EXPECT_EQ(k.kind, KernelKind::kRowReduction);
    EXPECT_EQ(k.row().strategy, c.strategy);
    EXPECT_EQ(k.row().passes, 1);
    EXPECT_THAT(NodeNames(graph, k.nodes), ElementsAre("m", "d", "e", "s", "y"));
  }
}

TEST(PlannerTest, LongSoftmaxSplitsOverAClusterAndSaysWhy) {
  const Graph graph = *SoftmaxNaive(DType::kF32, 512, 131072);
  const Kernel k = PlanFusion(graph, DeviceLimits{})->kernels[0];
  EXPECT_EQ(k.row().cluster_blocks, 8);
  EXPECT_EQ(int64_t{k.row().threads} * k.row().cluster_blocks * k.row().values_per_thread, 131072);
  EXPECT_EQ(k.row().reason,
            "row of 131072 f32 = 512 KiB exceeds one block's on-chip budget of 128 KiB; split over a "
            "cluster of 8 blocks, each block's segment held in shared memory, max and sum of exp in one "
            "reduction");
  EXPECT_TRUE(k.row().segment_in_shared_memory);
  // One cluster exchange a row: the max and its sum join as an online pair.
  ASSERT_EQ(k.row().stages.size(), 1u);
  EXPECT_EQ(k.row().online_pairs.size(), 1u);
}

// A block's segment goes to shared memory only where two blocks fit an SM:
// not on a device that gives a block 32 KB.
TEST(PlannerTest, RowSegmentsStayInRegistersWhereSharedMemoryIsShort) {
  const Graph graph = *SoftmaxNaive(DType::kBF16, 2048, 32768);  // 1024 threads, 64 KB a block
  DeviceLimits small;
  small.shared_bytes_per_block = 32 * 1024;
  for (const auto& [limits, in_shared] : {std::pair{DeviceLimits{}, true}, std::pair{small, false}}) {
    const Kernel k = PlanFusion(graph, limits)->kernels[0];
    ASSERT_EQ(k.row().strategy, RowStrategy::kBlockPersistent);
    ASSERT_EQ(k.row().threads, 1024);
    EXPECT_EQ(k.row().segment_in_shared_memory, in_shared);
    EXPECT_THAT(k.row().reason, HasSubstr(in_shared ? "each block's segment held in shared memory" : "held in registers"));
    // Held in registers, the sum pass keeps its exps for the output pass, so
    // the max and the sum stay two reductions.
    EXPECT_EQ(k.row().stages.size(), in_shared ? 1u : 2u);
    EXPECT_EQ(k.row().online_softmax, in_shared);
  }
}

TEST(PlannerTest, LongSoftmaxWithoutClustersLoopsTwiceWithTheOnlineRecurrence) {
  DeviceLimits limits;
  limits.supports_clusters = false;
  const Graph graph = *SoftmaxNaive(DType::kF32, 512, 131072);
  const Plan plan = *PlanFusion(graph, limits);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const Kernel& k = plan.kernels[0];
  EXPECT_EQ(k.row().strategy, RowStrategy::kLooped);
  EXPECT_TRUE(k.row().online_softmax);
  EXPECT_EQ(k.row().passes, 2);
  ASSERT_EQ(k.row().stages.size(), 1u);
  EXPECT_THAT(NodeNames(graph, k.row().stages[0]), ElementsAre("m", "s"));
  // Two reads of x and one write of y.
  EXPECT_EQ(plan.total.bytes(), 3 * int64_t{512} * 131072 * 4);
  EXPECT_EQ(k.row().reason,
            "row of 131072 f32 = 512 KiB exceeds the on-chip budget of a block, 128 KiB; looped over "
            "tiles, 2 passes (max and sum of exp in one pass)");
  EXPECT_EQ(k.Strategy(), "looped, online softmax, 2 passes");
}

TEST(PlannerTest, RowSumAtBothShapes) {
  const Plans square = PlanBoth(*RowSum(DType::kF32, 16384, 16384));
  EXPECT_EQ(square.unfused.total.bytes(), (int64_t{16384} * 16384 + 16384) * 4);
  EXPECT_EQ(square.fused.total.bytes(), (int64_t{16384} * 16384 + 16384) * 4);
  EXPECT_EQ(square.fused.kernels[0].row().strategy, RowStrategy::kLooped);

  const Plans tall = PlanBoth(*RowSum(DType::kF32, 256, 1048576));
  EXPECT_EQ(tall.fused.total.bytes(), (int64_t{256} * 1048576 + 256) * 4);
  // 256 rows fill 132 SMs with a block per row; fewer rows than SMs split.
  EXPECT_EQ(tall.fused.kernels[0].row().strategy, RowStrategy::kLooped);
  EXPECT_EQ(tall.fused.kernels[0].row().passes, 1);
  const Plans few = PlanBoth(*RowSum(DType::kF32, 64, 1048576));
  EXPECT_EQ(few.fused.kernels[0].row().strategy, RowStrategy::kClusterLooped);
  // An H100 holds 30 clusters of 8 blocks and 62 of 4 at two blocks of 1024
  // threads an SM; four blocks of 512 threads an SM hold 124 clusters of 4.
  EXPECT_EQ(few.fused.kernels[0].row().cluster_blocks, 4);
  EXPECT_EQ(few.fused.kernels[0].row().threads, 512);
  EXPECT_EQ(few.fused.total.bytes(), (int64_t{64} * 1048576 + 64) * 4);
}

TEST(PlannerTest, MatmulReluFusesTheEpilogue) {
  struct Case {
    DType dtype;
    int64_t m, n, k;
  };
  for (const Case& c : {Case{DType::kF32, 4096, 4096, 4096}, Case{DType::kBF16, 8192, 8192, 8192},
                        Case{DType::kF16, 4096, 4096, 4096}}) {
    const Graph graph = *MatmulRelu(c.dtype, c.m, c.n, c.k);
    const Plans plans = PlanBoth(graph);
    const int64_t s = DTypeSize(c.dtype);
    EXPECT_EQ(plans.unfused.kernels.size(), 2u);
    EXPECT_EQ(plans.unfused.total.bytes(), (c.m * c.k + c.k * c.n + 3 * c.m * c.n) * s);
    ASSERT_EQ(plans.fused.kernels.size(), 1u);
    EXPECT_EQ(plans.fused.total.bytes(), (c.m * c.k + c.k * c.n + c.m * c.n) * s);
    EXPECT_EQ(plans.fused.kernels[0].kind, KernelKind::kMatmul);
    EXPECT_EQ(plans.fused.kernels[0].traffic.flops, 2.0 * c.m * c.n * c.k + c.m * c.n);
    EXPECT_EQ(plans.fused.kernels[0].traffic.tensor_core, c.dtype != DType::kF32);
  }
}

TEST(PlannerTest, MatmulScheduleFollowsDtypeShapeAndAlignment) {
  const Kernel big = PlanBoth(*MatmulRelu(DType::kBF16, 8192, 8192, 8192)).fused.kernels[0];
  EXPECT_EQ(big.matmul().tier, MatmulTier::kWgmma);
  // relu(A·B) is the kernel's one output, staged in bf16: its epilogue runs on the producer's spare warps.
  EXPECT_EQ(big.matmul().config, (MatmulConfig{.block_m = 128, .block_n = 256, .block_k = 64, .stages = 3, .group_m = 8,
                                               .epilogue_warps = true}));
  EXPECT_EQ(big.matmul().no_epilogue_warps, "");
  EXPECT_EQ(big.matmul().threads, 384);
  EXPECT_EQ(big.matmul().tiles, 2048);
  EXPECT_EQ(big.matmul().grid, 132);
  EXPECT_EQ(big.matmul().staging_element_bytes, 2);
  // Three stages of 128x64 A and 64x256 B, a 128x256 bf16 staging tile, six
  // stage barriers, a staged and a drained barrier, and the alignment slack.
  EXPECT_EQ(big.matmul().shared_bytes, 3 * (128 + 256) * 64 * 2 + 128 * 256 * 2 + 8 * 8 + 1024);
  EXPECT_EQ(big.Strategy(), "wgmma, 128x256x64 tiles, 3 stages, epilogue warps");
  EXPECT_EQ(big.matmul().reason,
            "bf16 on tensor cores (wgmma + TMA, producer and consumer warpgroups, persistent grid, fp32 "
            "accumulators); 128x256 tiles: 2048 tiles, 15.52 waves of 132 SMs, the least estimated time of the tiles "
            "that fill the SMs; the epilogue runs on the producer warpgroup's spare warps, beside the next tile's "
            "main loop");

  // One 128x256 tile would leave 131 SMs idle; the smallest tile wins.
  const Kernel small = PlanBoth(*MatmulRelu(DType::kF16, 64, 64, 4096)).fused.kernels[0];
  EXPECT_EQ(small.matmul().config.block_m, 128);
  EXPECT_EQ(small.matmul().config.block_n, 64);
  EXPECT_EQ(small.matmul().config.stages, 8);
  EXPECT_THAT(small.matmul().reason, HasSubstr("too few to fill the SMs with any tile, so the one of least latency"));
  // M = 128 with long K: 128x64 tiles give 128 of the 132 SMs a tile.
  const Kernel skinny = PlanBoth(*MatmulRelu(DType::kBF16, 128, 8192, 8192)).fused.kernels[0];
  EXPECT_EQ(skinny.matmul().config.block_n, 64);
  EXPECT_EQ(skinny.matmul().tiles, 128);

  // Before Hopper there is no wgmma: mma.sync, two blocks per SM.
  DeviceLimits ampere;
  ampere.compute_capability = 80;
  ampere.sm_count = 108;
  const Kernel old = PlanBoth(*MatmulRelu(DType::kBF16, 8192, 8192, 8192), ampere).fused.kernels[0];
  EXPECT_EQ(old.matmul().tier, MatmulTier::kMmaSync);
  EXPECT_EQ(old.matmul().config, (MatmulConfig{.block_m = 128, .block_n = 128, .block_k = 32, .stages = 4, .group_m = 16}));
  EXPECT_EQ(old.matmul().threads, 128);
  EXPECT_EQ(old.matmul().grid, 4096);
  EXPECT_EQ(old.matmul().shared_bytes, 4 * (128 * 32 + 32 * 128) * 2);
  EXPECT_EQ(old.Strategy(), "mma.sync, 128x128x32 tiles, 4 stages");
  EXPECT_EQ(old.matmul().reason,
            "bf16 on tensor cores (mma.sync, fp32 accumulators), not wgmma: it needs compute capability 9.0 "
            "(sm_90a); the device has 8.0; 128x128 tiles: 4096 tiles, 18.96 waves of 108 SMs x 2 blocks, the least "
            "estimated time of the tiles that fill the SMs");
  ampere.shared_bytes_per_block = 48 * 1024;
  const Kernel fewer_stages = PlanBoth(*MatmulRelu(DType::kBF16, 8192, 8192, 8192), ampere).fused.kernels[0];
  EXPECT_EQ(fewer_stages.matmul().config.stages, 3);
  EXPECT_EQ(fewer_stages.matmul().shared_bytes, 3 * (128 * 32 + 32 * 128) * 2);

  const Kernel f32 = PlanBoth(*MatmulRelu(DType::kF32, 4096, 4096, 4096)).fused.kernels[0];
  EXPECT_EQ(f32.matmul().tier, MatmulTier::kFfma);
  EXPECT_EQ(f32.Strategy(), "FFMA, 128x128x8 tiles, 3 stages");
  EXPECT_THAT(f32.matmul().reason, HasSubstr("exact fp32 rather than tf32"));
  // Rows that are not 16-byte aligned cannot be cp.async copies: two stages
  // through registers (and K's 25 steps split in three for the 9 tiles).
  EXPECT_EQ(PlanBoth(*MatmulRelu(DType::kF32, 300, 301, 200)).fused.kernels[0].Strategy(),
            "FFMA, 128x128x8 tiles, 2 stages, split-K x3");

  // Rows of 20 bf16 (40 bytes) are not 16-byte aligned: TMA cannot read them.
  const Kernel odd = PlanBoth(*MatmulRelu(DType::kBF16, 100, 64, 20)).fused.kernels[0];
  EXPECT_EQ(odd.matmul().tier, MatmulTier::kMmaSync);
  EXPECT_FALSE(odd.matmul().vector_copies);
  EXPECT_THAT(odd.matmul().reason, HasSubstr("not wgmma: TMA cannot read A: its rows of 20 elements are not a multiple "
                                           "of 16 bytes"));
  EXPECT_THAT(odd.matmul().reason,
              HasSubstr("K=20 or N=64 is not a multiple of 8, so tiles are copied element by element"));

  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {3, 200, 64});
  Value w = b.Input("w", DType::kBF16, {3, 64, 72});
  const Kernel batched = PlanBoth(*b.Build({Matmul(x, w)})).fused.kernels[0];
  EXPECT_EQ(batched.matmul().batch, 3);
  EXPECT_EQ(batched.matmul().m, 200);
  EXPECT_EQ(batched.matmul().n, 72);
  EXPECT_EQ(batched.matmul().k, 64);
  EXPECT_EQ(batched.matmul().tiles, 3 * ((200 + batched.matmul().config.block_m - 1) / batched.matmul().config.block_m) *
                                      ((72 + batched.matmul().config.block_n - 1) / batched.matmul().config.block_n));
}

// Why `limits` refuses `c` for `schedule`; a refused config leaves the schedule as it was.
std::string Refusal(const MatmulConfig& c, const MatmulSchedule& schedule, const DeviceLimits& limits = {}) {
  MatmulSchedule trial = schedule;
  const absl::Status st = ApplyMatmulConfig(c, "test", limits, trial);
  EXPECT_EQ(trial.config, schedule.config) << "a refused config leaves the schedule as it was";
  return std::string(st.message());
}

// The split-K candidates of `schedule`, after checking that every candidate
// applies and keeps to at most two work units an SM.
int SplitCandidates(const MatmulSchedule& schedule, const DeviceLimits& limits = {}) {
  int splits = 0;
  for (const MatmulConfig& candidate : MatmulCandidates(schedule, limits)) {
    MatmulSchedule trial = schedule;
    EXPECT_TRUE(ApplyMatmulConfig(candidate, "candidate", limits, trial).ok()) << candidate.ToString();
    if (candidate.split_k == 1) continue;
    ++splits;
    EXPECT_LE(trial.tiles * candidate.split_k, 2 * limits.sm_count) << candidate.ToString();
  }
  return splits;
}

// Few tiles with a long K leave most SMs idle: K is split into slices of at
// least 8 steps, enough to fill them. The schedule says how, and refuses
// slices it cannot run.
TEST(PlannerTest, SplitKFillsTheSmsWhenFewTilesHaveALongK) {
  const MatmulSchedule few = PlanBoth(*MatmulRelu(DType::kBF16, 256, 256, 32768)).fused.kernels[0].matmul();
  EXPECT_EQ(few.config, (MatmulConfig{.block_m = 128, .block_n = 64, .block_k = 64, .stages = 8, .group_m = 8,
                                      .split_k = 16}));
  EXPECT_EQ(few.tiles, 8);
  EXPECT_EQ(few.grid, 128);
  EXPECT_THAT(few.reason, HasSubstr("; split-K x16: K of 32768 in slices of 32 steps, 128 work units; the last slice "
                                    "of a tile to finish adds the 4194304 bytes of fp32 partials (through L2, not "
                                    "counted as traffic) in slice order and runs the epilogue"));
  EXPECT_EQ(PlanBoth(*MatmulRelu(DType::kBF16, 256, 256, 32768)).fused.kernels[0].Strategy(),
            "wgmma, 128x64x64 tiles, 8 stages, split-K x16");
  // One tile, K of 64 steps: 8 slices of 8.
  EXPECT_EQ(PlanBoth(*MatmulRelu(DType::kF16, 64, 64, 4096)).fused.kernels[0].matmul().config.split_k, 8);
  // Tiles that fill half the SMs, or a K too short for two slices of 8 steps, are not split.
  EXPECT_EQ(PlanBoth(*MatmulRelu(DType::kBF16, 128, 8192, 8192)).fused.kernels[0].matmul().config.split_k, 1);
  EXPECT_EQ(PlanBoth(*MatmulRelu(DType::kBF16, 256, 256, 960)).fused.kernels[0].matmul().config.split_k, 1);
  EXPECT_EQ(PlanBoth(*MatmulRelu(DType::kBF16, 256, 256, 1024)).fused.kernels[0].matmul().config.split_k, 2);

  const MatmulConfig cooperative{.block_m = 128, .block_n = 128, .block_k = 64, .stages = 4, .group_m = 8};
  MatmulConfig c = cooperative;
  c.split_k = 17;
  EXPECT_THAT(Refusal(c, few), HasSubstr("split-K takes 1 to 16 slices"));
  c.split_k = 4;
  c.pingpong = true;
  EXPECT_THAT(Refusal(c, few), HasSubstr("split-K tiles are cooperative with the epilogue on the consumers"));
  c.pingpong = false;
  c.epilogue_warps = true;
  EXPECT_THAT(Refusal(c, few), HasSubstr("split-K tiles are cooperative"));
  // K=256 is 4 steps: 3 slices of 2 leave the third empty.
  const MatmulSchedule short_k = PlanBoth(*MatmulRelu(DType::kBF16, 256, 256, 256)).fused.kernels[0].matmul();
  c = cooperative;
  c.split_k = 3;
  EXPECT_THAT(Refusal(c, short_k), HasSubstr("split-K x3 leaves a slice empty: K=256 is 4 steps of 64"));
  // 4096 tiles of 128x128 in two slices: 512 MiB of partials.
  const MatmulSchedule big = PlanBoth(*MatmulRelu(DType::kBF16, 8192, 8192, 8192)).fused.kernels[0].matmul();
  c.split_k = 2;
  EXPECT_THAT(Refusal(c, big), HasSubstr("split-K x2 needs 536870912 bytes of partial products; the most is 67108864"));

  // The tuner's candidates split the few tiles, never the many.
  EXPECT_GE(SplitCandidates(few), 8);
  EXPECT_EQ(SplitCandidates(big), 0);
}

// Split K on the block-per-tile tiers: exact f32 on FFMA (K steps of 8) and
// mma.sync before Hopper follow the wgmma tier's rules, a block per unit.
TEST(PlannerTest, SplitKServesTheFfmaAndMmaSyncTiers) {
  const Kernel f32 = PlanBoth(*MatmulRelu(DType::kF32, 512, 512, 32768)).fused.kernels[0];
  const MatmulSchedule& few = f32.matmul();
  EXPECT_EQ(few.tier, MatmulTier::kFfma);
  EXPECT_EQ(few.config, (MatmulConfig{.block_m = 128, .block_n = 128, .block_k = 8, .stages = 3, .group_m = 16,
                                      .split_k = 8}));
  EXPECT_EQ(few.tiles, 16);
  EXPECT_EQ(few.grid, 128);
  EXPECT_EQ(f32.Strategy(), "FFMA, 128x128x8 tiles, 3 stages, split-K x8");
  EXPECT_THAT(few.reason, HasSubstr("; 128x128 tiles: 16 tiles, 0.06 waves of 132 SMs x 2 blocks; split-K x8: K of "
                                    "32768 in slices of 512 steps, 128 work units; the last slice of a tile to finish "
                                    "adds the 8388608 bytes of fp32 partials (through L2, not counted as traffic) in "
                                    "slice order and runs the epilogue"));
  auto split_of = [](const Graph& graph, const DeviceLimits& limits = DeviceLimits{}) {
    return PlanBoth(graph, limits).fused.kernels[0].matmul().config.split_k;
  };
  // 64 tiles fill fewer than half of 132 SMs: two slices fill them.
  EXPECT_EQ(split_of(*MatmulRelu(DType::kF32, 1024, 1024, 4096)), 2);
  // 128 tiles fill half the SMs; K=120 is 15 steps, too few for two slices of 8; K=128 is 16.
  EXPECT_EQ(split_of(*MatmulRelu(DType::kF32, 1024, 2048, 4096)), 1);
  EXPECT_EQ(split_of(*MatmulRelu(DType::kF32, 512, 512, 120)), 1);
  EXPECT_EQ(split_of(*MatmulRelu(DType::kF32, 512, 512, 128)), 2);
  // Rows that are not 16-byte aligned take the two register stages, split
  // alike: 9 tiles, 14 slices of 37 steps (the last 32).
  EXPECT_EQ(PlanBoth(*MatmulRelu(DType::kF32, 300, 301, 4099)).fused.kernels[0].Strategy(),
            "FFMA, 128x128x8 tiles, 2 stages, split-K x14");

  // The wgmma tier's schedules stay refused, split or not.
  MatmulConfig pingpong = few.config;
  pingpong.pingpong = true;
  EXPECT_THAT(Refusal(pingpong, few), HasSubstr("ping-pong is a wgmma schedule"));
  MatmulConfig c = few.config;
  c.split_k = 17;
  EXPECT_THAT(Refusal(c, few), HasSubstr("split-K takes 1 to 16 slices"));
  // K=16 is 2 steps of 8: 3 slices of 1 leave the third empty.
  c.split_k = 3;
  EXPECT_THAT(Refusal(c, PlanBoth(*MatmulRelu(DType::kF32, 512, 512, 16)).fused.kernels[0].matmul()),
              HasSubstr("split-K x3 leaves a slice empty: K=16 is 2 steps of 8"));
  // 1024 tiles of 128x128 in two slices: 128 MiB of partials.
  const MatmulSchedule big = PlanBoth(*MatmulRelu(DType::kF32, 4096, 4096, 4096)).fused.kernels[0].matmul();
  EXPECT_EQ(big.config.split_k, 1);
  c.split_k = 2;
  EXPECT_THAT(Refusal(c, big), HasSubstr("split-K x2 needs 134217728 bytes of partial products; the most is 67108864"));

  // The tuner's candidates split the few tiles of both heights, never the
  // many: the heuristic's, then 2 tile heights x 5 slice depths and stage
  // counts (8 deep with 2, 3 or 4 stages, 16 deep with 3 or 4) x 4 splits in
  // one L2 grouping.
  EXPECT_EQ(SplitCandidates(few), 1 + 40);
  EXPECT_EQ(SplitCandidates(big), 0);

  // mma.sync, before Hopper: 8 tiles of 64x128 over 1024 K steps of 32.
  DeviceLimits ampere;
  ampere.compute_capability = 80;
  const Kernel old = PlanBoth(*MatmulRelu(DType::kBF16, 256, 256, 32768), ampere).fused.kernels[0];
  EXPECT_EQ(old.Strategy(), "mma.sync, 64x128x32 tiles, 4 stages, split-K x16");
  EXPECT_EQ(old.matmul().grid, 128);
  c = {.block_m = 128, .block_n = 128, .block_k = 32, .stages = 4, .group_m = 8, .split_k = 2};
  MatmulSchedule trial = old.matmul();
  EXPECT_TRUE(ApplyMatmulConfig(c, "test", ampere, trial).ok());
  EXPECT_EQ(trial.grid, 8);  // a block per unit: 4 tiles x 2 slices
  c.epilogue_warps = true;
  EXPECT_THAT(Refusal(c, old.matmul(), ampere), HasSubstr("epilogue warps are a wgmma schedule"));
  EXPECT_GE(SplitCandidates(old.matmul(), ampere), 8);
}

// Two blocks of a cluster compute adjacent tiles and share one operand's K
// slices through TMA multicast: the grid is whole clusters, the schedule
// says which operand they share, and configs no cluster can run are refused
// with the reason.
TEST(PlannerTest, ClustersShareAnOperandThroughTmaMulticast) {
  MatmulSchedule big = PlanBoth(*MatmulRelu(DType::kBF16, 8192, 8192, 8192)).fused.kernels[0].matmul();
  const MatmulConfig tile{.block_m = 128, .block_n = 256, .block_k = 64, .stages = 3, .group_m = 8};
  MatmulConfig c = tile;
  c.cluster_m = 2;
  ASSERT_TRUE(ApplyMatmulConfig(c, "test", DeviceLimits{}, big).ok());
  EXPECT_EQ(big.tiles, 2048);
  EXPECT_EQ(ClusterTileCount(big, c), 1024);
  EXPECT_EQ(big.grid, 132);
  EXPECT_THAT(big.reason, HasSubstr("; clusters of 2x1 blocks (1024 cluster tiles) share each K slice of B, loaded "
                                    "once for both with TMA multicast (test)"));
  c.cluster_m = 1;
  c.cluster_n = 2;
  ASSERT_TRUE(ApplyMatmulConfig(c, "test", DeviceLimits{}, big).ok());
  EXPECT_THAT(big.reason, HasSubstr("share each K slice of A"));
  EXPECT_EQ(c.ToString(), "128x256x64:3:8:cluster=1x2");
  // An odd count of tile rows: the last cluster's second block lies past M.
  MatmulSchedule odd = PlanBoth(*MatmulRelu(DType::kBF16, 200, 4096, 512)).fused.kernels[0].matmul();
  c = tile;
  c.cluster_m = 2;
  ASSERT_TRUE(ApplyMatmulConfig(c, "test", DeviceLimits{}, odd).ok());
  EXPECT_EQ(odd.tiles, 32);
  EXPECT_EQ(ClusterTileCount(odd, c), 16);
  EXPECT_EQ(odd.grid, 32);
  // An odd SM count leaves one SM without a cluster.
  DeviceLimits odd_sms;
  odd_sms.sm_count = 131;
  ASSERT_TRUE(ApplyMatmulConfig(c, "test", odd_sms, big).ok());
  EXPECT_EQ(big.grid, 130);

  auto refusal = [&](const MatmulConfig& config, const DeviceLimits& limits = DeviceLimits{}) {
    MatmulSchedule s = big;
    const absl::Status st = ApplyMatmulConfig(config, "test", limits, s);
    EXPECT_EQ(s.config, big.config) << "a refused config leaves the schedule as it was";
    return std::string(st.message());
  };
  c = tile;
  c.cluster_m = c.cluster_n = 2;
  EXPECT_THAT(refusal(c), HasSubstr("a cluster is 2x1 or 1x2 blocks, not 2x2"));
  c.cluster_n = 1;
  DeviceLimits no_clusters;
  no_clusters.supports_clusters = false;
  EXPECT_THAT(refusal(c, no_clusters), HasSubstr("the device forms no clusters of 2 blocks"));
  MatmulSchedule few = PlanBoth(*MatmulRelu(DType::kBF16, 256, 256, 32768)).fused.kernels[0].matmul();
  c = {.block_m = 128, .block_n = 64, .block_k = 64, .stages = 8, .group_m = 8, .split_k = 4, .cluster_m = 2};
  EXPECT_FALSE(ApplyMatmulConfig(c, "test", DeviceLimits{}, few).ok());
  EXPECT_THAT(std::string(ApplyMatmulConfig(c, "test", DeviceLimits{}, few).message()),
              HasSubstr("split-K units are single tiles, which a cluster's blocks do not share"));
  DeviceLimits ampere;
  ampere.compute_capability = 80;
  MatmulSchedule old = PlanBoth(*MatmulRelu(DType::kBF16, 8192, 8192, 8192), ampere).fused.kernels[0].matmul();
  c = {.block_m = 128, .block_n = 128, .block_k = 32, .stages = 4, .group_m = 8, .cluster_m = 2};
  EXPECT_THAT(std::string(ApplyMatmulConfig(c, "test", ampere, old).message()),
              HasSubstr("clusters with TMA multicast are a wgmma schedule"));

  // The tuner's candidates cluster the tiles of products that fill the SMs,
  // sharing the larger operand tile, and never the few tiles split K serves.
  int clustered = 0;
  for (const MatmulConfig& candidate : MatmulCandidates(big, DeviceLimits{})) {
    if (candidate.ClusterBlocks() == 1) continue;
    ++clustered;
    // 2x1 shares B's tile (block_n rows of K), 1x2 A's (block_m rows).
    EXPECT_EQ(candidate.cluster_m > 1, candidate.block_n >= candidate.block_m) << candidate.ToString();
    EXPECT_FALSE(candidate.pingpong) << candidate.ToString();
    EXPECT_EQ(candidate.split_k, 1) << candidate.ToString();
  }
  EXPECT_EQ(clustered, 24);  // 6 tiles, each with and without epilogue warps, in 2 groupings
  for (const MatmulConfig& candidate : MatmulCandidates(few, DeviceLimits{})) {
    EXPECT_EQ(candidate.ClusterBlocks(), 1) << candidate.ToString();
  }
}

// The producer warpgroup's spare warps take the epilogue of a kernel whose
// one output is a staged 16-bit tensor computed from a 16-bit product; the
// schedule says why any other kernel keeps its epilogue with the consumers,
// and a config asking for them there is refused with that reason.
TEST(PlannerTest, EpilogueWarpsServeOneStagedSixteenBitOutput) {
  auto schedule = [](const Graph& graph, const PlanOptions& options = {}) {
    return PlanFusion(graph, DeviceLimits{}, options)->kernels[0].matmul();
  };
  const MatmulConfig asked{.block_m = 128, .block_n = 256, .block_k = 64, .stages = 3, .group_m = 8,
                           .epilogue_warps = true};
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {256, 128});
  Value w = b.Input("w", DType::kBF16, {128, 512});
  Value y = Relu(Matmul(x, w)).Named("y");
  // Rows of 500 bf16 are no multiple of 16 bytes: C is stored from registers.
  Value w_t = b.Input("w_t", DType::kBF16, {500, 128});
  Value narrow = Relu(Matmul(x, Transpose(w_t, {1, 0})));
  const struct {
    Graph graph;
    PlanOptions options;
    std::string why;
  } refused[] = {
      {*b.Build({y, Cast(y, DType::kF32).Named("y32")}), {}, "the kernel has several outputs"},
      {*b.Build({Matmul(x, w)}), {}, "the output is the product itself"},
      {*b.Build({Cast(y, DType::kF32)}), {}, "the output is not a 16-bit tensor staged for a TMA store"},
      {*MatmulRelu(DType::kF32, 256, 512, 128), {.allow_tf32 = true}, "a tf32 product is f32"},
      {*b.Build({narrow}), {}, "the output is not a 16-bit tensor staged"},
  };
  for (const auto& [graph, options, why] : refused) {
    MatmulSchedule s = schedule(graph, options);
    EXPECT_FALSE(s.config.epilogue_warps) << why;
    EXPECT_THAT(s.no_epilogue_warps, HasSubstr(why));
    EXPECT_THAT(std::string(ApplyMatmulConfig(asked, "test", DeviceLimits{}, s).message()),
                HasSubstr(absl::StrCat("epilogue warps cannot serve this kernel: ", why)));
  }
  // Before Hopper there are no warpgroups to specialize.
  DeviceLimits ampere;
  ampere.compute_capability = 80;
  MatmulSchedule old = PlanFusion(*b.Build({y}), ampere)->kernels[0].matmul();
  EXPECT_EQ(old.no_epilogue_warps, "they are a wgmma schedule");
  EXPECT_THAT(std::string(ApplyMatmulConfig(asked, "test", ampere, old).message()),
              HasSubstr("epilogue warps are a wgmma schedule"));

  MatmulSchedule s = schedule(*b.Build({y}));
  EXPECT_TRUE(s.config.epilogue_warps);
  EXPECT_THAT(std::string(ApplyMatmulConfig({.block_m = 128, .block_n = 128, .block_k = 64, .stages = 4, .group_m = 8,
                                             .pingpong = true, .epilogue_warps = true},
                                            "test", DeviceLimits{}, s)
                              .message()),
              HasSubstr("epilogue warps serve cooperative tiles"));
  EXPECT_TRUE(ApplyMatmulConfig(asked, "test", DeviceLimits{}, s).ok());

  // A plan-wide override gives them to the kernels they can serve, and the
  // same tile without them to the others: the unfused plan's bare matmul.
  for (bool fuse : {true, false}) {
    Plan plan = fuse ? *PlanFusion(*b.Build({y}), DeviceLimits{}) : *PlanUnfused(*b.Build({y}), DeviceLimits{});
    ASSERT_TRUE(OverrideMatmulConfigs(asked, "--matmul-tile", DeviceLimits{}, plan).ok());
    EXPECT_EQ(plan.kernels[0].matmul().config.epilogue_warps, fuse);
    EXPECT_EQ(plan.kernels[0].matmul().config.block_n, 256);
  }
}

// f32 matmuls are exact FFMA unless tf32 is allowed; then they run on wgmma,
// with the operands swapped where B is row-major (tf32 reads only K-major
// shared-memory operands), and on FFMA where neither operand is K-major.
TEST(PlannerTest, Tf32IsAnOptInThatSwapsOperandsForARowMajorB) {
  const Graph graph = *MatmulRelu(DType::kF32, 4096, 4096, 4096);
  const Kernel exact = PlanBoth(graph).fused.kernels[0];
  EXPECT_EQ(exact.matmul().tier, MatmulTier::kFfma);
  EXPECT_THAT(exact.matmul().reason, Not(HasSubstr("not tf32")));

  const PlanOptions tf32{.allow_tf32 = true};
  const Kernel fast = PlanFusion(graph, DeviceLimits{}, tf32)->kernels[0];
  const MatmulSchedule& s = fast.matmul();
  EXPECT_EQ(s.tier, MatmulTier::kWgmma);
  EXPECT_EQ(s.operand_bytes, 4);
  EXPECT_TRUE(s.swap_operands);
  EXPECT_EQ(s.config.block_k, 32);
  EXPECT_FALSE(s.config.pingpong);
  // Its f32 output is stored from registers: no staging tile takes stages.
  EXPECT_EQ(s.staging_element_bytes, 0);
  EXPECT_EQ(s.shared_bytes, WgmmaSharedBytes(s.config, 0));
  EXPECT_THAT(s.reason, HasSubstr("f32 as tf32 (allowed) on tensor cores (wgmma + TMA"));
  EXPECT_THAT(s.reason, HasSubstr("computed as Cᵀ = Bᵀ·Aᵀ, since tf32 reads only K-major operands from shared "
                                  "memory and B is row-major"));
  // The unfused plan's matmul is allowed tf32 too.
  EXPECT_EQ(PlanUnfused(graph, DeviceLimits{}, tf32)->kernels[0].matmul().tier, MatmulTier::kWgmma);

  // A K-major B ([N,K], read through its transpose) needs no swap.
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {512, 256});
  Value w_t = b.Input("w_t", DType::kF32, {384, 256});
  const Graph linear = *b.Build({Matmul(x, Transpose(w_t, {1, 0}))});
  const Plan linear_plan = *PlanFusion(linear, DeviceLimits{}, tf32);
  ASSERT_EQ(linear_plan.kernels.size(), 1u);
  EXPECT_EQ(linear_plan.kernels[0].matmul().tier, MatmulTier::kWgmma);
  EXPECT_FALSE(linear_plan.kernels[0].matmul().swap_operands);
  EXPECT_TRUE(linear_plan.kernels[0].matmul().b.transposed);

  // Aᵀ times a row-major B has no K-major operand: the transpose of A stays a
  // kernel, and the matmul swaps its operands on the row-major copy.
  GraphBuilder c;
  Value a_t = c.Input("a_t", DType::kF32, {256, 512});
  Value w = c.Input("w", DType::kF32, {256, 384});
  const Graph neither = *c.Build({Matmul(Transpose(a_t, {1, 0}), w)});
  const Plan neither_plan = *PlanFusion(neither, DeviceLimits{}, tf32);
  ASSERT_EQ(neither_plan.kernels.size(), 2u);
  EXPECT_EQ(neither_plan.kernels[0].kind, KernelKind::kTranspose);
  EXPECT_TRUE(neither_plan.kernels[1].matmul().swap_operands);

  // Rows of 4094 floats are no multiple of 16 bytes: TMA cannot read B.
  const Kernel odd = PlanFusion(*MatmulRelu(DType::kF32, 256, 4094, 256), DeviceLimits{}, tf32)->kernels[0];
  EXPECT_EQ(odd.matmul().tier, MatmulTier::kFfma);
  EXPECT_THAT(odd.matmul().reason, HasSubstr("exact fp32 rather than tf32), not tf32: TMA cannot read B: its rows of "
                                             "4094 elements are not a multiple of 16 bytes"));
  // Before Hopper, no wgmma: FFMA says why.
  DeviceLimits ampere;
  ampere.compute_capability = 80;
  EXPECT_THAT(PlanFusion(graph, ampere, tf32)->kernels[0].matmul().reason,
              HasSubstr("not tf32: it needs compute capability 9.0 (sm_90a)"));

  // tf32 tiles are cooperative, with a K step of 32 floats.
  MatmulSchedule tuned = s;
  EXPECT_THAT(std::string(ApplyMatmulConfig({.block_m = 128, .block_n = 128, .block_k = 64, .stages = 4, .group_m = 8},
                                            "test", DeviceLimits{}, tuned)
                              .message()),
              HasSubstr("the wgmma K step for 4-byte operands is 32 (one 128-byte swizzle row)"));
  EXPECT_THAT(std::string(ApplyMatmulConfig(
                              {.block_m = 128, .block_n = 128, .block_k = 32, .stages = 4, .group_m = 8, .pingpong = true},
                              "test", DeviceLimits{}, tuned)
                              .message()),
              HasSubstr("tf32 tiles are cooperative, not ping-pong"));
  EXPECT_TRUE(ApplyMatmulConfig({.block_m = 256, .block_n = 128, .block_k = 32, .stages = 2, .group_m = 8}, "test",
                                DeviceLimits{}, tuned)
                  .ok());
}

TEST(PlannerTest, MatmulBatchesBroadcastOrFoldIntoRows) {
  // [4,16,S,D] x [D,N]: B has no batch, so the batches are one taller product.
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {4, 16, 256, 64});
  Value w = b.Input("w", DType::kBF16, {64, 128});
  const Kernel folded = PlanBoth(*b.Build({Matmul(x, w)})).fused.kernels[0];
  EXPECT_EQ(folded.matmul().batch, 1);
  EXPECT_EQ(folded.matmul().m, 4 * 16 * 256);
  EXPECT_TRUE(folded.matmul().batch_dims.empty());
  EXPECT_THAT(folded.matmul().reason, HasSubstr("batch [4,16] folded into M (B has none): 16384 rows"));

  // [2,1,M,K] x [3,K,N]: A broadcasts over the 3, B over the 2.
  GraphBuilder c;
  Value p = c.Input("p", DType::kBF16, {2, 1, 40, 64});
  Value q = c.Input("q", DType::kBF16, {3, 64, 48});
  const Kernel broadcast = PlanBoth(*c.Build({Matmul(p, q)})).fused.kernels[0];
  EXPECT_EQ(broadcast.matmul().batch, 6);
  EXPECT_EQ(broadcast.matmul().batch_dims, (Dims{2, 3}));
  EXPECT_EQ(broadcast.matmul().a.batch_dims, (Dims{2, 1}));
  EXPECT_EQ(broadcast.matmul().b.batch_dims, (Dims{1, 3}));
  EXPECT_EQ(broadcast.traffic.bytes_read, (2 * 40 * 64 + 3 * 64 * 48) * 2);
}

TEST(PlannerTest, TransposedMatmulOperandsAreLayoutsNotKernels) {
  // x·Wᵀ as a Linear layer writes it, and Q·Kᵀ over heads.
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {512, 256});
  Value weight = b.Input("weight", DType::kBF16, {1024, 256});
  Value y = Relu(Matmul(x, Transpose(weight, {1, 0}).Named("wt"))).Named("y");
  const Graph graph = *b.Build({y});
  const Plans plans = PlanBoth(graph);
  ASSERT_EQ(plans.fused.kernels.size(), 1u);
  const Kernel& k = plans.fused.kernels[0];
  EXPECT_THAT(NodeNames(graph, k.inputs), ElementsAre("x", "weight"));
  EXPECT_TRUE(k.matmul().b.transposed);
  EXPECT_FALSE(k.matmul().a.transposed);
  EXPECT_EQ(graph.node(k.matmul().b.node).name, "weight");
  EXPECT_THAT(k.matmul().reason,
              HasSubstr("B is read column-major from \"weight\" (the transpose is its layout, not a kernel)"));
  ASSERT_EQ(plans.fused.layout_folds.size(), 1u);
  EXPECT_EQ(graph.node(plans.fused.layout_folds[0].transpose).name, "wt");
  EXPECT_EQ(plans.fused.layout_folds[0].operand, 1);
  EXPECT_EQ(plans.fused.total.bytes(), (512 * 256 + 1024 * 256 + 512 * 1024) * 2);
  EXPECT_TRUE(plans.fused.boundaries.empty());
  // The unfused baseline keeps the transpose as a kernel of its own.
  EXPECT_EQ(plans.unfused.kernels.size(), 3u);

  GraphBuilder h;
  Value q = h.Input("q", DType::kF16, {2, 8, 128, 64});
  Value key = h.Input("key", DType::kF16, {2, 8, 128, 64});
  const Graph heads = *h.Build({Matmul(q, Transpose(key, {0, 1, 3, 2}))});
  const Plan plan = *PlanFusion(heads, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_TRUE(plan.kernels[0].matmul().b.transposed);
  EXPECT_EQ(plan.kernels[0].matmul().batch, 16);
}

TEST(PlannerTest, TransposesThatCannotBeLayoutsStayKernels) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {64, 64});
  Value w = b.Input("w", DType::kBF16, {64, 64});
  Value wt = Transpose(w, {1, 0}).Named("wt");
  // Also read elementwise: the transpose must be materialized.
  Value y = (Matmul(x, wt) + wt).Named("y");
  const Plan used_twice = *PlanFusion(*b.Build({y}), DeviceLimits{});
  EXPECT_EQ(used_twice.kernels.size(), 2u);
  EXPECT_TRUE(used_twice.layout_folds.empty());

  // f32 runs on CUDA cores, which read row-major operands only.
  GraphBuilder f;
  Value a = f.Input("a", DType::kF32, {64, 32});
  Value c = f.Input("c", DType::kF32, {48, 32});
  const Plan f32 = *PlanFusion(*f.Build({Matmul(a, Transpose(c, {1, 0}))}), DeviceLimits{});
  EXPECT_EQ(f32.kernels.size(), 2u);
  EXPECT_EQ(f32.kernels[0].kind, KernelKind::kTranspose);

  // Column-major B of K=20 rows: TMA cannot read rows of 40 bytes.
  GraphBuilder o;
  Value p = o.Input("p", DType::kBF16, {64, 20});
  Value r = o.Input("r", DType::kBF16, {48, 20});
  const Plan odd = *PlanFusion(*o.Build({Matmul(p, Transpose(r, {1, 0}))}), DeviceLimits{});
  EXPECT_EQ(odd.kernels.size(), 2u);
  EXPECT_EQ(odd.kernels[1].matmul().tier, MatmulTier::kMmaSync);
}

TEST(PlannerTest, IotaMasksAreComputedNotRead) {
  // A causal mask over a row softmax: one kernel reading x alone.
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {64, 64});
  Value causal = Ge(b.Iota(DType::kI32, {64, 64}, 0), b.Iota(DType::kI32, {64, 64}, 1));
  Value masked = Select(causal, x, b.Constant(-INFINITY, DType::kF32));
  Value e = Exp(masked - ReduceMax(masked, {1}, true));
  const Graph graph = *b.Build({(e / ReduceSum(e, {1}, true)).Named("p")});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_THAT(NodeNames(graph, plan.kernels[0].inputs), ElementsAre("x"));
  EXPECT_EQ(plan.total.bytes(), 2 * 64 * 64 * 4);

  GraphBuilder o;
  Value i = o.Iota(DType::kF32, {4}, 0).Named("positions");
  EXPECT_EQ(PlanFusion(*o.Build({i}), DeviceLimits{}).status(),
            absl::UnimplementedError("node \"positions\" (iota): an iota is computed where it is read and cannot be a "
                                     "graph output; add 0 to it to store it"));
}

TEST(PlannerTest, MatmulTileOverridesAreCheckedPerTier) {
  Plan plan = *PlanFusion(*MatmulRelu(DType::kBF16, 1024, 1024, 1024), DeviceLimits{});
  const MatmulConfig wide{.block_m = 256, .block_n = 128, .block_k = 64, .stages = 3, .group_m = 16};
  ASSERT_TRUE(OverrideMatmulConfigs(wide, "--matmul-tile", DeviceLimits{}, plan).ok());
  EXPECT_EQ(plan.kernels[0].matmul().config, wide);
  EXPECT_EQ(plan.kernels[0].Strategy(), "wgmma, 256x128x64 tiles, 3 stages, --matmul-tile");
  EXPECT_THAT(plan.kernels[0].matmul().reason, HasSubstr("(--matmul-tile)"));
  const MatmulConfig mma_sync_tile{.block_m = 128, .block_n = 128, .block_k = 32, .stages = 4};
  ExpectInvalid(OverrideMatmulConfigs(mma_sync_tile, "--matmul-tile", DeviceLimits{}, plan),
                "--matmul-tile=128x128x32:4:16 cannot run kernel f0_matmul (wgmma): matmul tile 128x128x32 with 4 "
                "stages: the wgmma K step for 2-byte operands is 64 (one 128-byte swizzle row)");
  const MatmulConfig too_deep{.block_m = 128, .block_n = 256, .block_k = 64, .stages = 4};
  ExpectInvalid(OverrideMatmulConfigs(too_deep, "--matmul-tile", DeviceLimits{}, plan),
                "--matmul-tile=128x256x64:4:16 cannot run kernel f0_matmul (wgmma): matmul tile 128x256x64 with 4 "
                "stages needs 263232 bytes of shared memory; a block may have 232448");
  // f32 runs on CUDA cores, with tiles of their own.
  Plan f32 = *PlanFusion(*MatmulRelu(DType::kF32, 256, 256, 256), DeviceLimits{});
  ExpectInvalid(OverrideMatmulConfigs(wide, "--matmul-tile", DeviceLimits{}, f32),
                "--matmul-tile=256x128x64:3:16 cannot run kernel f0_matmul (FFMA): matmul tile 256x128x64 with 3 "
                "stages: FFMA tiles are 128x128 or 256x128, 8 or 16 deep, with 2 to 4 stages");
  const MatmulConfig tall{.block_m = 256, .block_n = 128, .block_k = 8, .stages = 2, .group_m = 8};
  ASSERT_TRUE(OverrideMatmulConfigs(tall, "--matmul-tile", DeviceLimits{}, f32).ok());
  EXPECT_EQ(f32.kernels[0].Strategy(), "FFMA, 256x128x8 tiles, 2 stages, --matmul-tile");
  // Deeper FFMA rings are cp.async copies: 16-byte aligned rows only.
  const MatmulConfig copied{.block_m = 128, .block_n = 128, .block_k = 8, .stages = 4, .group_m = 8};
  ASSERT_TRUE(OverrideMatmulConfigs(copied, "--matmul-tile", DeviceLimits{}, f32).ok());
  EXPECT_EQ(f32.kernels[0].matmul().shared_bytes, 4 * (128 * 12 + 8 * 128) * 4);
  // Slices 16 deep are cp.async copies only.
  const MatmulConfig deep{.block_m = 128, .block_n = 128, .block_k = 16, .stages = 3, .group_m = 8};
  ASSERT_TRUE(OverrideMatmulConfigs(deep, "--matmul-tile", DeviceLimits{}, f32).ok());
  EXPECT_EQ(f32.kernels[0].matmul().shared_bytes, 3 * (128 * 20 + 16 * 128) * 4);
  const MatmulConfig deep_registers{.block_m = 128, .block_n = 128, .block_k = 16, .stages = 2, .group_m = 8};
  ExpectInvalid(OverrideMatmulConfigs(deep_registers, "--matmul-tile", DeviceLimits{}, f32),
                "--matmul-tile=128x128x16:2:8 cannot run kernel f0_matmul (FFMA): matmul tile 128x128x16 with 2 "
                "stages: FFMA slices 16 deep are cp.async copies, which take 3 or 4 stages");
  Plan odd = *PlanFusion(*MatmulRelu(DType::kF32, 256, 255, 256), DeviceLimits{});
  ExpectInvalid(OverrideMatmulConfigs(copied, "--matmul-tile", DeviceLimits{}, odd),
                "--matmul-tile=128x128x8:4:8 cannot run kernel f0_matmul (FFMA): matmul tile 128x128x8 with 4 "
                "stages: FFMA stages beyond 2 are cp.async copies, which need K and N to be multiples of 4");
}

TEST(PlannerTest, DiamondIsOneKernel) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {128, 256});
  Value a = Exp(x).Named("a");
  Value c = Neg(x).Named("c");
  Value y = (a + c).Named("y");
  const Graph graph = *b.Build({y});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_THAT(NodeNames(graph, plan.kernels[0].outputs), ElementsAre("y"));
  EXPECT_EQ(plan.total.bytes(), 2 * 128 * 256 * 4);
}

TEST(PlannerTest, MultiConsumerValueIsMaterializedOnlyWhenNeededOutside) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {1000});
  Value a = Exp(x).Named("a");
  Value y1 = (a + 1.0).Named("y1");
  Value y2 = (a * 2.0).Named("y2");
  const Graph graph = *b.Build({y1, y2});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);  // one loop, two outputs
  EXPECT_THAT(NodeNames(graph, plan.kernels[0].outputs), ElementsAre("y1", "y2"));
  EXPECT_EQ(plan.total.bytes(), 3 * 1000 * 4);

  GraphBuilder b2;
  Value x2 = b2.Input("x", DType::kF32, {1000});
  Value a2 = Exp(x2).Named("a");
  Value t = Transpose(Reshape(a2, {10, 100}), {1, 0}).Named("t");
  Value y = (a2 + 1.0).Named("y");
  const Graph graph2 = *b2.Build({t, y});
  const Plan plan2 = *PlanFusion(graph2, DeviceLimits{});
  ASSERT_EQ(plan2.kernels.size(), 2u);
  EXPECT_THAT(NodeNames(graph2, plan2.kernels[0].outputs), ElementsAre("a", "y"));
}

TEST(PlannerTest, BroadcastOperandIsReadAtItsOwnSize) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {512, 1024});
  Value bias = b.Input("bias", DType::kF32, {1024});
  Value y = Relu(x + bias).Named("y");
  const Graph graph = *b.Build({y});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.total.bytes_read, (512 * 1024 + 1024) * 4);
  EXPECT_EQ(plan.total.bytes_written, 512 * 1024 * 4);
}

TEST(PlannerTest, ReductionWithPrologueAndRowEpilogue) {
  // mean of squares, then a per-row scale: RMS-norm-like, one kernel.
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4096, 2048});
  Value ms = ReduceMean(x * x, {1}, true).Named("ms");
  Value inv = Rsqrt(ms + 1e-6).Named("inv");
  Value y = (x * inv).Named("y");
  const Graph graph = *b.Build({y});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].kind, KernelKind::kRowReduction);
  EXPECT_EQ(plan.kernels[0].row().strategy, RowStrategy::kBlockPersistent);
  EXPECT_EQ(plan.total.bytes(), 2 * 4096 * 2048 * 4);
}

TEST(PlannerTest, ReductionFeedingAMatmulOperandIsNotFused) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {256, 512});
  Value w = b.Input("w", DType::kF32, {1, 64});
  Value r = ReduceSum(x, {1}, true).Named("r");
  Value y = Matmul(r, w).Named("y");
  const Graph graph = *b.Build({y});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 2u);
  ASSERT_EQ(plan.boundaries.size(), 1u);
  EXPECT_EQ(graph.node(plan.boundaries[0].producer).name, "r");
  EXPECT_EQ(graph.node(plan.boundaries[0].consumer).name, "y");
  EXPECT_EQ(plan.boundaries[0].reason, "consumer is a matmul operand, read from memory by tiles");
}

TEST(PlannerTest, NeverFormsACycle) {
  // a -> s = sum(a) (row kernel); c = matmul(...) reads s; z = a + relu(c-ish):
  // z cannot join a's kernel because its other operand depends on that kernel.
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {64, 64});
  Value a = Exp(x).Named("a");
  Value m = Matmul(a, x).Named("m");
  Value z = (a + m).Named("z");
  const Graph graph = *b.Build({z});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  // a's kernel, the matmul (z joins it as epilogue), nothing else.
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].kind, KernelKind::kPointwise);
  EXPECT_EQ(plan.kernels[1].kind, KernelKind::kMatmul);
  EXPECT_THAT(NodeNames(graph, plan.kernels[1].nodes), ElementsAre("m", "z"));
  bool saw_cycle_reason = false;
  for (const Boundary& boundary : plan.boundaries) {
    if (graph.node(boundary.producer).name == "a" && graph.node(boundary.consumer).name == "z") {
      EXPECT_EQ(boundary.reason, "fusing would create a cycle between kernels");
      saw_cycle_reason = true;
    }
  }
  EXPECT_TRUE(saw_cycle_reason);
  // Launch order respects dependencies.
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    for (NodeId input : plan.kernels[k].inputs) {
      if (plan.kernel_of[input] >= 0) {
        EXPECT_LT(plan.kernel_of[input], static_cast<int>(k));
      }
    }
  }
}

TEST(PlannerTest, NonTrailingReductionRunsAlone) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {256, 128});
  Value e = Exp(x).Named("e");
  Value s = ReduceSum(e, {0}).Named("s");
  const Graph graph = *b.Build({s});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[1].kind, KernelKind::kReduction);
  ASSERT_EQ(plan.boundaries.size(), 1u);
  EXPECT_EQ(plan.boundaries[0].reason, "reduction over non-trailing axes [0] runs as its own kernel");
}

TEST(PlannerTest, ReshapeIsAViewWithNoKernel) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {64, 64});
  Value r = Reshape(x, {4096}).Named("r");
  Value y = Exp(r).Named("y");
  const Graph graph = *b.Build({y});
  const Plans plans = PlanBoth(graph);
  EXPECT_EQ(plans.unfused.kernels.size(), 1u);
  EXPECT_EQ(plans.fused.kernels.size(), 1u);
  EXPECT_EQ(plans.fused.total.bytes(), 2 * 4096 * 4);
  EXPECT_EQ(plans.fused.kernel_of[r.id()], -1);
}

TEST(PlannerTest, PlanIsDeterministic) {
  const Graph graph = *SoftmaxNaive(DType::kBF16, 300, 700);
  const Plan a = *PlanFusion(graph, DeviceLimits{});
  const Plan b = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].nodes, b.kernels[i].nodes);
    EXPECT_EQ(a.kernels[i].traffic.bytes(), b.kernels[i].traffic.bytes());
  }
}

}  // namespace
}  // namespace kiln
