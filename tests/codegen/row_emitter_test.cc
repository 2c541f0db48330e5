// What the row emitter writes for the loads, guards and divisions that bound
// bf16 row kernels by instructions, and that every such kernel compiles with
// NVRTC for sm_90a (no GPU needed).
#include "codegen/row_emitter.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

// The plan's one row kernel (beside any pointwise ones), after checking
// that it compiles.
GeneratedKernel RowKernel(const Graph& graph) {
  const DeviceLimits limits;
  absl::StatusOr<Plan> plan = PlanFusion(graph, limits);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  std::vector<const Kernel*> rows;
  std::string kernels;
  for (const Kernel& k : plan->kernels) {
    if (k.kind == KernelKind::kRowReduction) rows.push_back(&k);
    absl::StrAppend(&kernels, " ", k.name, " (", k.Strategy(), ")");
  }
  if (rows.size() != 1) {
    ADD_FAILURE() << "expected one row kernel, got" << kernels;
    return {};
  }
  absl::StatusOr<GeneratedKernel> generated = EmitRowKernel(graph, *rows[0], limits);
  EXPECT_TRUE(generated.ok()) << generated.status();
  if (!generated.ok()) return {};
  absl::StatusOr<std::string> cubin = CompileToCubin({generated->Source(), rows[0]->name}, limits.Arch());
  EXPECT_TRUE(cubin.ok()) << cubin.status();
  return *generated;
}

std::string RowKernelBody(const Graph& graph) { return RowKernel(graph).body; }

TEST(RowEmitterTest, ColumnOperandsLoadAsVectorsOnAlignedRows) {
  const std::string body = RowKernelBody(LayerNormWithWeights(DType::kBF16, 8192, 8192));
  EXPECT_THAT(body, HasSubstr("const KilnVec<unsigned short, kV> c_in1 = "
                              "kiln_load_vec<unsigned short, kV>(in1 + (g - row_base));"));
  EXPECT_THAT(body, HasSubstr("kiln_bf16_to_f32(c_in2.v[j])"));
  EXPECT_THAT(body, Not(HasSubstr("%")));
  // Every slot of a row of 8192 holds a whole vector: no bounds tests.
  EXPECT_THAT(body, HasSubstr("constexpr int kSlots = 4;\n  constexpr int kFullSlots = 4;"));
}

// Rows of 4093: the slots hold whole aligned vectors only (as many as for
// rows of 4096), with no per-element tests; the fewer than kV elements at
// each end take a lane apiece; the weight and bias are read as aligned
// vectors shifted in registers by a shift chosen once a row, scalar only at
// the row's ends.
TEST(RowEmitterTest, UnalignedRowsReadWholeVectorsAndTheirEndsALaneAnElement) {
  const std::string body = RowKernelBody(LayerNormWithWeights(DType::kBF16, 16396, 4093));
  EXPECT_THAT(body, HasSubstr("constexpr int kSlots = 4;"));
  // At least 509 whole vectors for 128 threads: the last slot alone is tested.
  EXPECT_THAT(body, HasSubstr("constexpr int kFullSlots = 3;"));
  EXPECT_THAT(body,
              HasSubstr("if (s < kFullSlots || g < vec_end) h_in0[s] = kiln_load_vec<unsigned short, kV>(in0 + g);"));
  EXPECT_THAT(body, HasSubstr("if (edge_live) e_in0 = in0[edge_i];"));
  EXPECT_THAT(body, HasSubstr("kiln_with_shift<kV>(static_cast<int>((vec_begin - row_base) & (kV - 1)), "
                              "[&](auto shift) {\n    constexpr int kColShift = decltype(shift)::value;"));
  EXPECT_THAT(body, HasSubstr("kiln_load_cols<unsigned short, kV, kColShift>(in1, g - row_base, kCols);"));
  EXPECT_THAT(body, HasSubstr("kiln_bf16_to_f32(in1[i - row_base])"));
  EXPECT_THAT(body, HasSubstr("out0[i] = y_out0.v[0];"));
  EXPECT_THAT(body, HasSubstr("kiln_store_vec<unsigned short, kV>(out0 + g, y_out0);"));
  EXPECT_THAT(body, Not(HasSubstr("kiln_load_span")));
  EXPECT_THAT(body, Not(HasSubstr("kiln_store_span")));
  EXPECT_THAT(body, Not(HasSubstr("i >= seg_begin")));
  EXPECT_THAT(body, Not(HasSubstr("%")));
}

// The softmax's exp of a row of 4093 fits the held-value budget as that of a
// row of 4096 does (its ends are not held), so the output pass does not
// compute it again.
TEST(RowEmitterTest, UnalignedSoftmaxKeepsItsExpForTheOutputPass) {
  for (int64_t cols : {4093, 4096}) {
    SCOPED_TRACE(cols);
    const std::string body = RowKernelBody(SweepRowGraph(RowOp::kSoftmax, DType::kBF16, 16396, cols));
    EXPECT_THAT(body, HasSubstr("constexpr int kSlots = 4;"));
    EXPECT_THAT(body, HasSubstr("float held"));
    EXPECT_THAT(body, HasSubstr("(held"));
  }
}

// A block of 1024 threads' or a cluster's segment goes to shared memory
// (dynamic, past the static 48 KB where it must), not registers: each pass
// reads its vectors back, nothing is held across the barriers, and the
// launch bounds ask for as many blocks an SM as threads and shared memory
// allow.
TEST(RowEmitterTest, BigBlocksAndClustersHoldTheirSegmentInSharedMemory) {
  struct Expected {
    Graph graph;
    int threads;
    int min_blocks;
    unsigned shared_bytes;
  };
  for (const Expected& e :
       {Expected{SweepRowGraph(RowOp::kSoftmax, DType::kBF16, 523, 128256), 512, 4, 4 * 512 * 16},
        Expected{SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 16384, 32768), 1024, 2, 4 * 1024 * 16},
        Expected{SweepRowGraph(RowOp::kSoftmax, DType::kF32, 512, 131071), 512, 3, 8 * 512 * 16}}) {
    const GeneratedKernel kernel = RowKernel(e.graph);
    SCOPED_TRACE(kernel.body.substr(0, 200));
    const std::string bounded = absl::StrCat("__launch_bounds__(", e.threads, ", ", e.min_blocks, ") ");
    const std::string unbounded = absl::StrCat("__launch_bounds__(", e.threads, ") ");
    EXPECT_THAT(kernel.body, HasSubstr(bounded));
    EXPECT_EQ(kernel.min_blocks_per_sm, e.min_blocks);
    // The variants the runtime tunes where the bound spills: the same kernel,
    // its bound asking for fewer blocks, or for none.
    for (int blocks = e.min_blocks - 1; blocks >= 1; --blocks) {
      const GeneratedKernel variant = kernel.WithMinBlocks(blocks);
      std::string want = kernel.body;
      want.replace(want.find(bounded), bounded.size(),
                   blocks > 1 ? absl::StrCat("__launch_bounds__(", e.threads, ", ", blocks, ") ") : unbounded);
      EXPECT_EQ(variant.body, want);
      EXPECT_EQ(variant.min_blocks_per_sm, blocks);
      EXPECT_EQ(variant.WithMinBlocks(e.min_blocks).body, kernel.body);
    }
    EXPECT_THAT(kernel.body, HasSubstr("extern __shared__ __align__(16) unsigned char kiln_rows[];"));
    EXPECT_THAT(kernel.body, HasSubstr("kiln_copy_wait();"));
    EXPECT_THAT(kernel.body, HasSubstr("= r_in0[s * kThreads + lane];"));
    EXPECT_THAT(kernel.body, Not(HasSubstr("float held")));
    EXPECT_EQ(kernel.launch.shared_bytes, e.shared_bytes);
  }
}

// Blocks of fewer threads already overlap one block's reductions with
// others' loads, and a segment that leaves room for one block an SM gains no
// blocks: their segments stay in registers.
TEST(RowEmitterTest, SmallBlocksAndOneBlockSegmentsStayInRegisters) {
  for (const Graph& graph : {SweepRowGraph(RowOp::kRmsNorm, DType::kBF16, 16396, 4093),
                             SweepRowGraph(RowOp::kLayerNorm, DType::kF32, 8193, 8191),
                             SweepRowGraph(RowOp::kSoftmax, DType::kF32, 256, 262144)}) {
    const GeneratedKernel kernel = RowKernel(graph);
    SCOPED_TRACE(kernel.body.substr(0, 200));
    EXPECT_THAT(kernel.body, HasSubstr("h_in0[s] = kiln_load_vec<"));
    EXPECT_THAT(kernel.body, Not(HasSubstr("kiln_rows")));
    EXPECT_EQ(kernel.launch.shared_bytes, 0u);
    EXPECT_EQ(kernel.min_blocks_per_sm, 0);
  }
}

// Looped and split kernels on unaligned rows: whole vectors in the loop, the
// ends loaded a lane an element in each pass.
TEST(RowEmitterTest, UnalignedLoopedAndSplitRowsLoadTheirEndsALaneAnElement) {
  for (const Graph& graph : {SweepRowGraph(RowOp::kMax, DType::kBF16, 16396, 4093),
                             SweepRowGraph(RowOp::kSoftmax, DType::kBF16, 1335, 50257),
                             SweepRowGraph(RowOp::kRmsNorm, DType::kF32, 523, 128256 - 1),
                             SweepRowGraph(RowOp::kLogSumExp, DType::kF16, 32, 2097152 - 3)}) {
    const std::string body = RowKernelBody(graph);
    EXPECT_THAT(body, HasSubstr("const bool edge_live = edge_i < seg_end;"));
    EXPECT_THAT(body, HasSubstr("if (edge_live) {"));
    EXPECT_THAT(body, Not(HasSubstr("kiln_load_span")));
    EXPECT_THAT(body, Not(HasSubstr("i >= seg_begin")));
  }
}

// The online recurrence takes a whole vector at a time (its max, then its
// exps against it), and an unaligned row's ends an element at a time. Its
// exps are the hardware's approximate ones where the result is 16-bit.
TEST(RowEmitterTest, OnlineStatisticsJoinAVectorAtATime) {
  for (DType dtype : {DType::kF16, DType::kBF16, DType::kF32}) {
    SCOPED_TRACE(DTypeName(dtype));
    const std::string approx = dtype == DType::kF32 ? "false" : "true";
    for (const Graph& graph : {SweepRowGraph(RowOp::kLogSumExp, dtype, 1335, 50257),
                               SweepRowGraph(RowOp::kLogSumExp, dtype, 32, 2097152)}) {
      const std::string body = RowKernelBody(graph);
      EXPECT_THAT(body, ContainsRegex("float t([0-9]+)\\[kV\\];"));
      EXPECT_THAT(body, ContainsRegex("t([0-9]+)\\[j\\] = "));
      EXPECT_THAT(body, HasSubstr(absl::StrCat(" = kiln_online_push_vec<", approx, ">(on")));
    }
    EXPECT_THAT(RowKernelBody(SweepRowGraph(RowOp::kLogSumExp, dtype, 1335, 50257)),
                HasSubstr(absl::StrCat(" = kiln_online_push<", approx, ">(on")));
  }
}

// Held in shared memory, a max and its sum of exp, or a mean and its
// variance, reduce as one statistic: one cluster exchange or block barrier a
// row. A thread's max comes first, then its exps against it; its moments
// take one pass, shifted by its first value.
TEST(RowEmitterTest, HeldRowsReduceTheirPairsAsOneStatistic) {
  struct Expected {
    Graph graph;
    std::string reduction, declaration;
  };
  for (const Expected& e :
       {Expected{SweepRowGraph(RowOp::kSoftmax, DType::kBF16, 523, 128256), "kiln_cluster_stat<KilnOnline>(",
                 "KilnClusterExchange<8, 2> kiln_partials;"},
        Expected{SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 1335, 50257), "kiln_cluster_stat<KilnMoments>(",
                 "KilnClusterExchange<4, 3> kiln_partials;"},
        Expected{SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 16384, 32768), "kiln_block_stat<KilnMoments>(",
                 "float kiln_scratch[2][96];"}}) {
    const std::string body = RowKernelBody(e.graph);
    SCOPED_TRACE(body.substr(0, 200));
    EXPECT_THAT(body, HasSubstr(e.reduction));
    EXPECT_THAT(body, HasSubstr(e.declaration));
    EXPECT_THAT(body, Not(HasSubstr("_reduce<")));
    const bool moments = absl::StrContains(e.reduction, "KilnMoments");
    EXPECT_EQ(absl::StrContains(body, "kiln_reread_shared();"), !moments);
    if (moments) {
      EXPECT_THAT(body, ContainsRegex("if \\(s == 0 && j == 0\\) lshift[0-9]+ = [^;]+;"));
      EXPECT_THAT(body, ContainsRegex("= kiln_moments_shifted\\(lcount[0-9]+, lshift[0-9]+, lsum[0-9]+, lsq[0-9]+\\);"));
    }
  }
  // The held softmax's second pass takes each term against the thread's
  // max through kiln_online_term, for f32 outputs as for bf16.
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    const std::string softmax = RowKernelBody(SweepRowGraph(RowOp::kSoftmax, dtype, 523, 128256));
    EXPECT_THAT(softmax, ContainsRegex("lexp[0-9]+ \\+= kiln_online_term\\([^,]+, lbase[0-9]+\\);"));
  }
}

// An entropy's online softmax pair and then its plain sum reduce over one
// block scratch of two halves as wide as the pair (kiln_scratch_half; the
// halves' layout is tested on the host in row_scratch_host_test.cc).
TEST(RowEmitterTest, AnOnlinePairAndAPlainSumShareOneBlockScratch) {
  GraphBuilder b;
  const Value x = b.Input("x", DType::kF32, {256, 524288});
  const Value e = Exp(x - ReduceMax(x, {1}, true));
  const Value p = e / ReduceSum(e, {1}, true);
  const Graph entropy = *b.Build({ReduceSum(p * Log(p), {1}, true).Named("h")});
  const std::string body = RowKernelBody(entropy);
  EXPECT_THAT(body, HasSubstr("float kiln_scratch[2][64];"));
  EXPECT_THAT(body, HasSubstr("kiln_block_stat<KilnOnline>(on"));
  EXPECT_THAT(body, HasSubstr("kiln_block_reduce<KilnSum>(acc"));
}

// A softmax whose result is stored as bf16 takes the approximate exp in its
// output pass; in f32 it keeps expf there (the online sum's terms are
// approximate in every type: kiln_online_term).
TEST(RowEmitterTest, ExpsThatReachOnlySixteenBitOutputsAreApproximate) {
  const std::string bf16 = RowKernelBody(SweepRowGraph(RowOp::kSoftmax, DType::kBF16, 523, 128256));
  EXPECT_THAT(bf16, HasSubstr("= __expf("));
  EXPECT_THAT(bf16, Not(HasSubstr(" expf(")));
  const std::string f32 = RowKernelBody(SweepRowGraph(RowOp::kSoftmax, DType::kF32, 523, 128256));
  EXPECT_THAT(f32, HasSubstr("= expf("));
  EXPECT_THAT(f32, Not(HasSubstr("__expf(")));
}

// An unaligned row of at most 4 elements a lane (rows of 127 for a warp)
// reads lane-strided scalars: no ends a lane an element, and the weight and
// bias at the row's own offsets. Longer rows keep their vectors.
TEST(RowEmitterTest, ShortUnalignedRowsReadLaneStridedScalars) {
  const std::string body = RowKernelBody(LayerNormWithWeights(DType::kF32, 528416, 127));
  EXPECT_THAT(body, HasSubstr("constexpr int kV = 1;"));
  EXPECT_THAT(body, HasSubstr("constexpr int kSlots = 4;\n  constexpr int kFullSlots = 3;"));
  EXPECT_THAT(body, HasSubstr("if (s < kFullSlots || g < vec_end) h_in0[p][s] = kiln_load_vec<float, kV>(in0 + g);"));
  EXPECT_THAT(body, Not(HasSubstr("edge_live")));
  EXPECT_THAT(body, Not(HasSubstr("kiln_load_cols")));
  const std::string longer = RowKernelBody(SweepRowGraph(RowOp::kSum, DType::kF32, 528416, 131));
  EXPECT_THAT(longer, HasSubstr("constexpr int kV = 4;"));
  EXPECT_THAT(longer, HasSubstr("if (edge_live)"));
}

// Indices are 32-bit unless one could overflow an int: the last element's,
// plus a row and a block's vectors (2^20) past it.
TEST(RowEmitterTest, IndicesAre32BitWhereNoneCanOverflow) {
  EXPECT_THAT(RowKernelBody(SweepRowGraph(RowOp::kSum, DType::kF32, 528416, 127)), HasSubstr("using kiln_index = int;"));
  // 1048062 x 2048 + 2048 + 2^20 = 2^31 - 2048.
  EXPECT_THAT(RowKernelBody(SweepRowGraph(RowOp::kSum, DType::kF32, 1048062, 2048)),
              HasSubstr("using kiln_index = int;"));
  EXPECT_THAT(RowKernelBody(SweepRowGraph(RowOp::kSum, DType::kF32, 1048063, 2048)),
              HasSubstr("using kiln_index = long long;"));
}

TEST(RowEmitterTest, DivisionByARowsSumIsAProductWithItsReciprocal) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{65536, 1024}, {8192, 8192}, {1335, 50257}, {16, 1 << 19}}) {
    SCOPED_TRACE(cols);
    const std::string body = RowKernelBody(*SoftmaxNaive(DType::kBF16, rows, cols));
    EXPECT_THAT(body, HasSubstr("= 1.0f / v"));
    EXPECT_THAT(body, HasSubstr(" * rcp"));
  }
}

TEST(RowEmitterTest, SixteenBitOutputsRoundOnceInTheStore) {
  const std::string body = RowKernelBody(*SoftmaxNaive(DType::kBF16, 8192, 8192));
  EXPECT_THAT(body, Not(HasSubstr("kiln_round_bf16")));
  EXPECT_THAT(body, HasSubstr("= kiln_f32_to_bf16(v"));
}

// Packed rows: each group of kLanes lanes shuffles within itself, loads all
// kGroupRows rows before computing any, and rows past the end (the last
// warp's) repeat the last row with their stores skipped.
TEST(RowEmitterTest, PackedRowsReduceWithinTheirLaneGroup) {
  const GeneratedKernel kernel = RowKernel(SweepRowGraph(RowOp::kSoftmax, DType::kF32, 5592405, 12));
  EXPECT_THAT(kernel.body, HasSubstr("constexpr int kThreads = 4;"));
  EXPECT_THAT(kernel.body, HasSubstr("constexpr int kGroupRows = 4;"));
  EXPECT_THAT(kernel.body, HasSubstr("constexpr int kV = 4;"));
  EXPECT_THAT(kernel.body, HasSubstr("h_in0[p][s] = kiln_load_vec<float, kV>(in0 + g);"));
  EXPECT_THAT(kernel.body, HasSubstr("kiln_group_reduce<KilnMax, kLanes>(acc"));
  EXPECT_THAT(kernel.body, HasSubstr("kiln_group_reduce<KilnSum, kLanes>(acc"));
  EXPECT_THAT(kernel.body, HasSubstr("const kiln_index row = row_live ? row_raw : kRows - 1;"));
  EXPECT_THAT(kernel.body, HasSubstr("if (row_live) {"));
  EXPECT_THAT(kernel.body, Not(HasSubstr("return;")));
  // 32 rows a warp, 8 warps a block.
  EXPECT_EQ(kernel.launch.block, 256u);
  EXPECT_EQ(kernel.launch.grid, (5592405u + 255) / 256);
}

// Staged rows: the block's span of rows goes to shared memory and back as
// 16-byte copies, each thread reads its rows there one at a time (no lane
// groups, no shuffles), and rows past the end repeat the last row with
// their stores skipped.
TEST(RowEmitterTest, StagedRowsReduceAThreadARowFromSharedMemory) {
  const GeneratedKernel kernel = RowKernel(SweepRowGraph(RowOp::kSoftmax, DType::kF32, 22369621, 3));
  for (const char* line : {"constexpr int kV = 1;", "constexpr int kSlots = 3;", "constexpr int kBlockThreads = 256;",
                           "constexpr int kGroupRows = 4;",
                           "__shared__ __align__(16) float kiln_stage_in0[kTileRows * kCols];",
                           "__shared__ __align__(16) float kiln_stage_out0[kTileRows * kCols];",
                           "kiln_stage_load(kiln_stage_in0, in0 + tile_base, tile_count);\n  kiln_stage_wait();",
                           "#pragma unroll 1\n  for (int p = 0; p < kGroupRows; ++p) {",
                           "h_in0[s] = kiln_load_vec<float, kV>(kiln_stage_in0 + (g - tile_base));",
                           "kiln_store_vec<float, kV>(kiln_stage_out0 + (g - tile_base), y_out0);",
                           "const kiln_index row = row_live ? row_raw : kRows - 1;", "if (row_live) {",
                           "kiln_stage_store(out0 + tile_base, kiln_stage_out0, tile_count);\n}"}) {
    EXPECT_THAT(kernel.body, HasSubstr(line));
  }
  EXPECT_THAT(kernel.body, Not(HasSubstr("kiln_group_")));
  EXPECT_THAT(kernel.body, Not(HasSubstr("in0 + g")));
  EXPECT_THAT(kernel.body, Not(HasSubstr("return;")));
  EXPECT_EQ(kernel.launch.block, 256u);
  EXPECT_EQ(kernel.launch.grid, (22369621u + 1023) / 1024);
  // A row output is written straight from the thread; 16-bit rows of 33.
  const GeneratedKernel sum = RowKernel(SweepRowGraph(RowOp::kSum, DType::kBF16, 2033601, 33));
  EXPECT_THAT(sum.body, HasSubstr("__shared__ __align__(16) unsigned short kiln_stage_in0[kTileRows * kCols];"));
  EXPECT_THAT(sum.body, HasSubstr("if (lane == 0 && row_live) {\n      out0[row] = "));
  EXPECT_THAT(sum.body, Not(HasSubstr("kiln_stage_store")));
  EXPECT_EQ(sum.launch.grid, (2033601u + 511) / 512);
  // A layernorm's weight and bias are read from global memory, the same
  // column by every thread of a warp at once.
  const GeneratedKernel norm = RowKernel(SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 22369621, 3));
  EXPECT_THAT(norm.body, HasSubstr("constexpr int kGroupRows = 8;"));
  EXPECT_THAT(norm.body, HasSubstr("c_in1 = kiln_load_vec<unsigned short, kV>(in1 + (g - row_base));"));
  EXPECT_THAT(norm.body, HasSubstr("kiln_stage_load(kiln_stage_in0, in0 + tile_base, tile_count);"));
  EXPECT_THAT(norm.body, Not(HasSubstr("kiln_stage_in1")));
}

// Every sweep op and the epilogue graphs (residual, weight, bias, an f32
// column bias beside 16-bit rows, a second row output) on the lengths that
// are staged compile with NVRTC for sm_90a in every float type.
TEST(RowEmitterTest, StagedRowKernelsOfEveryOpCompile) {
  const DeviceLimits limits;
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
    for (int64_t cols : {3, 5, 6, 33, 45, 63}) {
      std::vector<std::pair<std::string, Graph>> graphs;
      for (RowOp op : kRowOps) graphs.push_back({RowOpName(op), SweepRowGraph(op, dtype, 100003, cols)});
      graphs.push_back({"residual norm silu", ResidualNormSilu(dtype, 100003, cols)});
      graphs.push_back({"biased softmax", BiasedSoftmaxWithLogSumExp(dtype, 100003, cols)});
      for (const auto& [name, graph] : graphs) {
        SCOPED_TRACE(absl::StrCat(name, " ", DTypeName(dtype), " ", cols));
        absl::StatusOr<Plan> plan = PlanFusion(graph, limits);
        ASSERT_TRUE(plan.ok()) << plan.status();
        // The residual's two full inputs of 33 and more exceed 64 values a thread.
        const bool staged = !(name == "residual norm silu" && cols > 32);
        bool has_staged = false;
        for (const Kernel& k : plan->kernels) {
          has_staged |= k.kind == KernelKind::kRowReduction && k.row().strategy == RowStrategy::kStagedPersistent;
        }
        EXPECT_EQ(has_staged, staged);
        if (staged) {
          EXPECT_THAT(RowKernelBody(graph), HasSubstr("kiln_stage_wait();"));
        }
      }
    }
  }
}

TEST(RowEmitterTest, PackedRowsReadVectorsThatDivideTheRow) {
  const GeneratedKernel sum = RowKernel(SweepRowGraph(RowOp::kSum, DType::kF32, 33554432, 2));
  EXPECT_THAT(sum.body, HasSubstr("constexpr int kV = 2;"));
  EXPECT_THAT(sum.body, HasSubstr("constexpr int kThreads = 1;"));
  EXPECT_THAT(sum.body, HasSubstr("constexpr int kFullSlots = 1;"));
  EXPECT_THAT(sum.body, HasSubstr("if (lane == 0 && row_live) {"));
  EXPECT_EQ(sum.launch.grid, 33554432u / 1024);
  // bf16 rows of 12: vectors of 4 (not 8, which would straddle rows) on 4 lanes.
  const GeneratedKernel norm = RowKernel(SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 100003, 12));
  EXPECT_THAT(norm.body, HasSubstr("constexpr int kV = 4;"));
  EXPECT_THAT(norm.body, HasSubstr("constexpr int kThreads = 4;"));
  EXPECT_THAT(norm.body, HasSubstr("kiln_load_vec<unsigned short, kV>(in1 + (g - row_base))"));
}

// Every sweep op on short rows (packed, and a warp per row covering several
// rows) compiles in every float type, at lengths on both sides of the
// lane-group boundaries.
TEST(RowEmitterTest, ShortRowKernelsOfEveryOpCompile) {
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
      for (int64_t cols : {2, 4, 16, 48}) {
        SCOPED_TRACE(absl::StrCat(RowOpName(op), " ", DTypeName(dtype), " ", cols));
        EXPECT_THAT(RowKernelBody(SweepRowGraph(op, dtype, 100003, cols)), HasSubstr("kiln_group_"));
      }
    }
  }
}

// The GPU suite's unaligned rows (tests/runtime/row_gpu_test.cc) under each
// strategy, and its epilogue graphs, compile with NVRTC for sm_90a with
// their ends a lane an element (rows of 67, 3 elements a lane, as scalars).
TEST(RowEmitterTest, UnalignedKernelsOfEveryStrategyCompile) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{67, 67}, {67, 1021}, {37, 4097}, {7, 50257}, {1, 262139}}) {
    for (DType dtype : {DType::kF32, DType::kBF16}) {
      SCOPED_TRACE(absl::StrCat(DTypeName(dtype), " [", rows, ", ", cols, "]"));
      for (const Graph& graph : {SweepRowGraph(RowOp::kSoftmax, dtype, rows, cols),
                                 SweepRowGraph(RowOp::kRmsNorm, dtype, rows, cols),
                                 ResidualNormSilu(dtype, rows, cols), BiasedSoftmaxWithLogSumExp(dtype, rows, cols)}) {
        EXPECT_THAT(RowKernelBody(graph), HasSubstr(cols == 67 ? "constexpr int kV = 1;" : "if (edge_live) {"));
      }
    }
  }
}

}  // namespace
}  // namespace kiln
