// Short rows on a GPU: rows packed into warps (a group of lanes per row) and
// warps covering several rows in turn, for every op of the sweep, against the
// reference interpreter. Every test skips with a message where there is no
// CUDA device.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tests/differential.h"
#include "runtime/executable.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

class RowGpuTest : public SharedDeviceTest {
 protected:
  // Fused plan only: the unfused one has no short-row kernel to check.
  static std::string Check(const Graph& graph, KernelCache& cache, uint64_t seed, const DeviceLimits& limits) {
    return CheckAgainstReference(graph, device(), cache, seed, {.limits = limits, .fused_only = true});
  }
  // The device's limits as if it had one SM: a lane group keeps its several
  // rows (which the planner gives up where they would leave SMs short of
  // warps) on the few thousand rows a test can afford to check on the CPU.
  static DeviceLimits OneSm() {
    DeviceLimits limits = DeviceLimitsOf(device().info());
    limits.sm_count = 1;
    return limits;
  }
  static const RowSchedule& Schedule(const Graph& graph, const DeviceLimits& limits, Plan& plan) {
    plan = *PlanFusion(graph, limits);
    return plan.kernels.front().row();
  }

  // One graph to check, and how a failure names it.
  struct RowCase {
    Graph graph;
    uint64_t seed;
    std::string label;
  };
  // A case of `op` on [rows, cols], labelled with the strategy it plans to.
  static RowCase OpCase(RowOp op, DType dtype, int64_t rows, int64_t cols, uint64_t seed,
                        const DeviceLimits& limits) {
    Graph graph = SweepRowGraph(op, dtype, rows, cols);
    const std::string strategy = PlanFusion(graph, limits)->kernels[0].Strategy();
    return {std::move(graph), seed,
            absl::StrCat(RowOpName(op), " ", DTypeName(dtype), " [", rows, ", ", cols, "]: ", strategy)};
  }
  // Checks every case, their compiles overlapping on a pool of threads.
  static void ExpectEveryCaseMatches(const std::vector<RowCase>& cases, const DeviceLimits& limits) {
    KernelCache cache({.use_disk = false});
    const std::vector<std::string> results = RunChecksInParallel(
        static_cast<int>(cases.size()), [&](int i) { return Check(cases[i].graph, cache, cases[i].seed, limits); });
    for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(results[i], "") << cases[i].label;
  }
};

// Every length from 2 to 64 (the primes, the powers of two and their
// neighbours among them) in every float type: lane groups of 1 to 16 lanes,
// vectors of 1 to 8 elements, a warp per row past 16 vectors, and rows
// staged in shared memory a thread each where no vector fits. 20011 rows
// (a prime) leave the last warp and block partly filled. Rows of 1 are
// pointwise work (pointwise_gpu_test.cc).
TEST_F(RowGpuTest, ShortRowsOfEveryOpMatchTheReference) {
  const DeviceLimits limits = OneSm();
  std::vector<RowCase> cases;
  int packed = 0, staged = 0, several_rows = 0;
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
      for (int64_t cols = 2; cols <= 64; ++cols) {
        Plan plan;
        const RowSchedule& row = Schedule(SweepRowGraph(op, dtype, 20011, cols), limits, plan);
        packed += row.strategy == RowStrategy::kPackedPersistent;
        staged += row.strategy == RowStrategy::kStagedPersistent;
        several_rows += row.rows_per_group > 1;
        cases.push_back(OpCase(op, dtype, 20011, cols, 100 + cols, limits));
      }
    }
  }
  // The cases cover what they claim: lengths a vector fits packed, the others
  // (odd, and twice an odd number from 6) staged, many covering several rows.
  EXPECT_GT(packed, 6 * 3 * 12);
  EXPECT_GT(staged, 6 * 3 * 30);
  EXPECT_GT(several_rows, 6 * 3 * 8);
  ExpectEveryCaseMatches(cases, limits);
}

// A single row, a few rows in one partly filled warp, and a warp and one row.
TEST_F(RowGpuTest, FewRowsMatchTheReference) {
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  std::vector<RowCase> cases;
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16}) {
      for (int64_t cols : {1, 2, 3, 8, 13, 33, 63}) {
        for (int64_t rows : {1, 5, 33}) cases.push_back(OpCase(op, dtype, rows, cols, 7, limits));
      }
    }
  }
  ExpectEveryCaseMatches(cases, limits);
}

// The sweep's short-row cliff, on the device's own limits at the most rows a
// group covers, with millions of rows (smaller than the sweep's so that the
// reference stays quick).
TEST_F(RowGpuTest, SweepShapesMatchTheReference) {
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  struct Shape {
    RowOp op;
    DType dtype;
    int64_t rows, cols;
  };
  std::vector<RowCase> cases;
  for (const Shape& c :
       {Shape{RowOp::kSum, DType::kF32, 2097169, 2}, Shape{RowOp::kRmsNorm, DType::kF32, 2097169, 2},
        Shape{RowOp::kSoftmax, DType::kF32, 1398107, 3}, Shape{RowOp::kLogSumExp, DType::kF32, 262147, 32},
        Shape{RowOp::kSum, DType::kBF16, 254201, 33}, Shape{RowOp::kLogSumExp, DType::kF16, 254201, 33},
        Shape{RowOp::kLayerNorm, DType::kF32, 254201, 33}, Shape{RowOp::kMax, DType::kF32, 254201, 33},
        Shape{RowOp::kRmsNorm, DType::kBF16, 1000003, 5}, Shape{RowOp::kSoftmax, DType::kF16, 300007, 63}}) {
    Plan plan;
    const RowSchedule& row = Schedule(SweepRowGraph(c.op, c.dtype, c.rows, c.cols), limits, plan);
    EXPECT_TRUE(row.rows_per_group > 1 || row.strategy == RowStrategy::kStagedPersistent)
        << plan.kernels[0].Strategy();
    cases.push_back(OpCase(c.op, c.dtype, c.rows, c.cols, 3, limits));
  }
  ExpectEveryCaseMatches(cases, limits);
}

// The ask a launch-bound tuning note says it kept ("launch bound tuned to 3
// blocks per SM: 4 146.2 us (spilled 72 B a thread), 3 143.1 us, 2 168.0
// us"), and the ask of the least time among those it timed; -1 where the
// note does not read so.
std::pair<int, int> KeptAndFastestAsk(const std::string& note) {
  const std::vector<absl::string_view> head = absl::StrSplit(note, absl::MaxSplits(" blocks per SM: ", 1));
  int kept = -1;
  if (head.size() != 2 || !absl::SimpleAtoi(absl::StripPrefix(head[0], "launch bound tuned to "), &kept)) {
    return {-1, -1};
  }
  int fastest = -1;
  double least = 0;
  for (absl::string_view timed : absl::StrSplit(head[1], ", ")) {
    const std::vector<absl::string_view> words = absl::StrSplit(timed, ' ');
    int ask = 0;
    double us = 0;
    if (words.size() < 3 || words[2] != "us" || !absl::SimpleAtoi(words[0], &ask) ||
        !absl::SimpleAtod(words[1], &us)) {
      return {kept, -1};
    }
    if (fastest < 0 || us < least) {
      fastest = ask;
      least = us;
    }
  }
  return {kept, fastest};
}

// A gated layernorm on rows of 50257 f16, each block's segment in shared
// memory: the bound's ask for 4 blocks per SM leaves ptxas 32 registers a
// thread, and the output pass's three shifted column operands spill. Tuning
// times the asks and keeps the fastest; which one that is depends on the
// kernel (with cluster barriers the spilling ask took 1.4x the time of 3
// blocks, with the st.async exchange it was kept). The kernel matches the
// reference either way. Without tuning the plan's ask stays. Either way the
// note ends with how many of its clusters of 4 fit on the GPU at once.
TEST_F(RowGpuTest, ALaunchBoundThatSpillsIsTuned) {
  const Graph graph = GatedLayerNorm(DType::kF16, 1335, 50257);
  KernelCache cache({.use_disk = false});
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, device(), cache, {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->compile_notes().size(), 1u);
  const std::vector<std::string> notes = absl::StrSplit((*exe)->compile_notes()[0], "; ");
  ASSERT_EQ(notes.size(), 2u) << (*exe)->compile_notes()[0];
  const std::string& note = notes[0];
  EXPECT_TRUE(absl::StartsWith(notes[1], "clusters of 4 blocks: ")) << notes[1];
  EXPECT_TRUE(absl::StartsWith(note, "launch bound tuned to ")) << note;
  EXPECT_TRUE(absl::StrContains(note, ": 4 ")) << note;
  EXPECT_TRUE(absl::StrContains(note, "(spilled ")) << note;
  EXPECT_TRUE(absl::StrContains(note, ", 3 ")) << note;
  const auto [kept, fastest] = KeptAndFastestAsk(note);
  EXPECT_EQ(kept, fastest) << note;
  EXPECT_EQ((*exe)->kernels()[0].min_blocks_per_sm, kept) << note;
  EXPECT_EQ(Check(graph, cache, 5, DeviceLimitsOf(device().info())), "");

  absl::StatusOr<std::unique_ptr<Executable>> untuned =
      Executable::Compile(graph, device(), cache, {.autotune = false});
  ASSERT_TRUE(untuned.ok()) << untuned.status();
  const std::string& untuned_note = (*untuned)->compile_notes()[0];
  EXPECT_TRUE(absl::StartsWith(untuned_note, "clusters of 4 blocks: ")) << untuned_note;
  EXPECT_EQ((*untuned)->kernels()[0].min_blocks_per_sm, 4);
}

// The cluster sizes a row-cluster tuning note says it timed, with their
// times, and the size it kept ("clusters tuned to 4 blocks for 100 rows: of
// 8 blocks 30 fit on the GPU at once (4 waves) 96.2 us, of 4 blocks 62 (2
// waves) 88.0 us"); kept -1 where the note does not read so.
struct TimedClusters {
  int kept = -1;
  std::vector<std::pair<int, double>> timed;
};
TimedClusters ReadClusterTuning(absl::string_view note) {
  TimedClusters r;
  const std::vector<absl::string_view> head = absl::StrSplit(note, absl::MaxSplits(" blocks for ", 1));
  if (head.size() != 2 || !absl::SimpleAtoi(absl::StripPrefix(head[0], "clusters tuned to "), &r.kept)) return {};
  const std::vector<absl::string_view> list = absl::StrSplit(head[1], absl::MaxSplits(" rows: ", 1));
  if (list.size() != 2) return {};
  for (absl::string_view timed : absl::StrSplit(list[1], ", ")) {
    const std::vector<absl::string_view> words = absl::StrSplit(timed, ' ');
    int size = 0;
    double us = 0;
    if (words.size() < 4 || words[0] != "of" || words.back() != "us" || !absl::SimpleAtoi(words[1], &size) ||
        !absl::SimpleAtod(words[words.size() - 2], &us)) {
      return {};
    }
    r.timed.push_back({size, us});
  }
  return r;
}

// Held rows too long for a cluster loop over tiles in clusters of 8 blocks
// of 512 threads. 100 of them need more than one wave of such clusters on any
// GPU of 132 SMs (at most 66 fit at four blocks an SM), so tuning times the
// halved sizes that save a wave and keeps the fastest: the plan and the
// generated kernel take its size, and the kernel matches the reference.
// Without tuning the planned 8 stays.
TEST_F(RowGpuTest, ClustersOfHeldRowsThatRunInWavesAreTuned) {
  const Graph graph = SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 100, 262147);
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  Plan plan;
  ASSERT_EQ(Schedule(graph, limits, plan).strategy, RowStrategy::kClusterLooped) << plan.kernels[0].Strategy();
  ASSERT_EQ(plan.kernels[0].row().cluster_blocks, 8);
  KernelCache cache({.use_disk = false});
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, device(), cache, {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::string& notes = (*exe)->compile_notes()[0];
  std::string tuning;
  for (absl::string_view note : absl::StrSplit(notes, "; ")) {
    if (absl::StartsWith(note, "clusters tuned to ")) tuning = std::string(note);
  }
  const TimedClusters read = ReadClusterTuning(tuning);
  ASSERT_GE(read.timed.size(), 2u) << notes;
  EXPECT_EQ(read.timed[0].first, 8) << notes;
  std::pair<int, double> fastest = read.timed[0];
  for (const auto& t : read.timed) {
    if (t.second < fastest.second) fastest = t;
  }
  EXPECT_EQ(read.kept, fastest.first) << notes;
  EXPECT_EQ((*exe)->plan().kernels[0].row().cluster_blocks, read.kept);
  EXPECT_EQ((*exe)->kernels()[0].launch.cluster, static_cast<unsigned>(read.kept));
  EXPECT_TRUE(absl::StrContains(notes, absl::StrCat("clusters of ", read.kept, " blocks: "))) << notes;
  EXPECT_EQ(Check(graph, cache, 11, limits), "");

  absl::StatusOr<std::unique_ptr<Executable>> untuned =
      Executable::Compile(graph, device(), cache, {.autotune = false});
  ASSERT_TRUE(untuned.ok()) << untuned.status();
  EXPECT_EQ((*untuned)->plan().kernels[0].row().cluster_blocks, 8);
  EXPECT_FALSE(absl::StrContains((*untuned)->compile_notes()[0], "clusters tuned")) << (*untuned)->compile_notes()[0];
}

// Rows whose length is not a multiple of the vector width: every residue
// of 8 around 4096 (each of the 37 rows starts at another offset into its
// first vector), in every float type and sweep op, on the device's own
// limits (a block per row).
TEST_F(RowGpuTest, UnalignedRowsOfEveryOpMatchTheReference) {
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  std::vector<RowCase> cases;
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
      for (int64_t cols = 4089; cols <= 4099; ++cols) cases.push_back(OpCase(op, dtype, 37, cols, 200 + cols, limits));
    }
  }
  ExpectEveryCaseMatches(cases, limits);
}

// Unaligned rows under every strategy: a warp per row (odd lengths up to
// 1023; up to 128 as lane-strided scalars), a block per row, looped passes, split over a cluster (persistent
// and looped, where each block's segment has its own ends), and lengths
// shorter than two vectors; primes and vocabulary sizes among them.
TEST_F(RowGpuTest, UnalignedRowsOfEveryStrategyMatchTheReference) {
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  struct Shape {
    int64_t rows, cols;
  };
  std::vector<RowCase> cases;
  for (const Shape& c : {Shape{67, 9}, Shape{67, 15}, Shape{67, 41}, Shape{67, 67}, Shape{67, 127}, Shape{67, 257},
                         Shape{67, 999}, Shape{67, 1021}, Shape{67, 1025}, Shape{37, 2053}, Shape{37, 4093},
                         Shape{37, 4095}, Shape{37, 4097}, Shape{19, 8191}, Shape{11, 32749}, Shape{7, 50257},
                         Shape{5, 65521}, Shape{3, 128255}, Shape{2, 131071}, Shape{1, 262139}}) {
    for (RowOp op : {RowOp::kSum, RowOp::kSoftmax, RowOp::kLayerNorm, RowOp::kRmsNorm}) {
      for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
        cases.push_back(OpCase(op, dtype, c.rows, c.cols, 17 + c.cols, limits));
      }
    }
  }
  ExpectEveryCaseMatches(cases, limits);
}

// Fused epilogues, a second full-shape input and output, a column bias of
// another type than the rows, and a row output beside a full one, on
// unaligned rows of each strategy.
TEST_F(RowGpuTest, UnalignedRowsWithEpiloguesAndOperandsMatchTheReference) {
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  std::vector<RowCase> cases;
  // Rows of 1 to 63 are staged in shared memory (the residual's two inputs
  // of 33 and more are not); 20011 rows leave the last block's span partial.
  for (int64_t cols : {1, 2, 3, 5, 6, 17, 31, 33, 45, 63, 127, 1023, 4093, 4097, 50257}) {
    const int64_t rows = cols > 10000 ? 5 : cols < 64 ? 20011 : 41;
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
      for (const Graph& graph : {ResidualNormSilu(dtype, rows, cols), BiasedSoftmaxWithLogSumExp(dtype, rows, cols)}) {
        cases.push_back({graph, static_cast<uint64_t>(5 + cols),
                         absl::StrCat(graph.node(graph.outputs()[0]).name, " ", DTypeName(dtype), " [", rows, ", ",
                                      cols, "]")});
      }
    }
  }
  ExpectEveryCaseMatches(cases, limits);
}

// Rows far from zero (logits near a million) through the online pair's
// approximate exps, held in a block (16-bit), held in a cluster and
// streamed, in every float type: softmax and logsumexp stay within each
// type's tolerance of the reference. An exp folded into
// x log2(e) - max log2(e) would be 6% off here (kiln_online_term).
TEST_F(RowGpuTest, OnlineExpsOfRowsFarFromZeroMatchTheReference) {
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  std::vector<RowCase> cases;
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
    for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{64, 32768}, {8, 131072}, {2, 2097152}}) {
      // f32 rows of 32768 are held in registers, where the pair is not joined.
      if (dtype == DType::kF32 && cols == 32768) continue;
      for (bool softmax : {true, false}) {
        GraphBuilder b;
        auto cast = [](Value v, DType to) { return v.dtype() == to ? v : Cast(v, to); };
        const Value x = cast(b.Input("x", dtype, {rows, cols}), DType::kF32) + 1.0e6;
        const Value m = ReduceMax(x, {1}, true);
        const Value e = Exp(x - m);
        // logsumexp less the offset, so that its 16-bit result keeps the
        // sum's digits (and f16 does not overflow).
        const Value y = softmax ? e / ReduceSum(e, {1}, true) : Log(ReduceSum(e, {1}, true)) + (m - 1.0e6);
        Graph graph = *b.Build({cast(y, dtype).Named("y")});
        const std::string strategy = PlanFusion(graph, limits)->kernels[0].Strategy();
        EXPECT_TRUE(absl::StrContains(strategy, "online softmax")) << strategy;
        cases.push_back({std::move(graph), static_cast<uint64_t>(cols + rows),
                         absl::StrCat(softmax ? "softmax " : "logsumexp ", DTypeName(dtype), " [", rows, ", ", cols,
                                      "] + 1e6: ", strategy)});
      }
    }
  }
  ExpectEveryCaseMatches(cases, limits);
}

}  // namespace
}  // namespace kiln
