// Every kernel kiln generates for the test graphs must compile with NVRTC for
// the architecture its limits name (sm_90a for an H200, sm_80 for an A100).
// This runs on machines without a GPU.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/kernel_codegen.h"
#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/matmul_candidates.h"
#include "fusion/matmul_schedule.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/kernel_resources.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/constant_test_graphs.h"
#include "tests/matmul_test_graphs.h"
#include "tests/onnx_models.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Compiles `kernel`'s source for `arch`: a cubin, and no note from ptxas
// that it had to give up speed (such as serializing wgmma groups, C7513).
void ExpectCompilesCleanly(const GeneratedKernel& kernel, const std::string& name, const std::string& arch) {
  absl::StatusOr<CompiledCubin> compiled = Compile({kernel.Source(), name}, arch);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(compiled->cubin.substr(0, 4), "\x7f" "ELF");
  EXPECT_THAT(compiled->log, Not(HasSubstr("Performance Loss")));
}

void ExpectEveryKernelCompiles(const Graph& graph, const DeviceLimits& limits = DeviceLimits{},
                               const PlanOptions& options = {}) {
  for (bool fuse : {true, false}) {
    absl::StatusOr<Plan> plan = fuse ? PlanFusion(graph, limits, options) : PlanUnfused(graph, limits, options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (const Kernel& kernel : plan->kernels) {
      SCOPED_TRACE(kernel.name);
      absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, kernel, limits);
      ASSERT_TRUE(generated.ok()) << generated.status();
      ExpectCompilesCleanly(*generated, kernel.name, limits.Arch());
    }
  }
}

TEST(NvrtcCompileTest, SeedWorkloadsAtBenchmarkShapes) {
  ExpectEveryKernelCompiles(*GeluNaive(DType::kF32, {16384, 16384}));
  ExpectEveryKernelCompiles(*GeluNaive(DType::kBF16, {16384, 16384}));
  for (auto [m, n] : {std::pair{65536, 1024}, {16384, 4096}, {4096, 16384}, {512, 131072}}) {
    ExpectEveryKernelCompiles(*SoftmaxNaive(DType::kF32, m, n));
  }
  ExpectEveryKernelCompiles(*RowSum(DType::kF32, 16384, 16384));
  ExpectEveryKernelCompiles(*RowSum(DType::kF32, 256, 1048576));
}

TEST(NvrtcCompileTest, LoopedSoftmaxAndHalfPrecision) {
  DeviceLimits no_clusters;
  no_clusters.supports_clusters = false;
  ExpectEveryKernelCompiles(*SoftmaxNaive(DType::kF32, 512, 131072), no_clusters);
  ExpectEveryKernelCompiles(*SoftmaxNaive(DType::kF16, 300, 1000));
  ExpectEveryKernelCompiles(*SoftmaxNaive(DType::kBF16, 7, 33));
}

TEST(NvrtcCompileTest, EveryElementwiseOpAndLayoutKernel) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {33, 65});
  Value bias = b.Input("bias", DType::kF32, {65});
  Value flag = b.Input("flag", DType::kBool, {33, 1});
  Value k = b.Input("k", DType::kI32, {33, 65});
  Value p = Abs(x) + 0.5;
  Value u = Neg(Exp(x)) + Log(p) + Tanh(x) + Erf(x) + Sqrt(p) + Rsqrt(p) + Sigmoid(x) + Relu(x) +
            Reciprocal(p) + Max(x, bias) + Min(x, bias) + Pow(p, bias * 0.1) - x / p;
  Value c = Select(flag, u, Cast(k, DType::kF32));
  Value cmp = Cast(Lt(x, bias), DType::kF32) + Cast(Ge(x, bias), DType::kF32) + Cast(Eq(k, k), DType::kF32);
  Value half = Cast(Cast(c + cmp, DType::kBF16), DType::kF32);
  Value ints = Cast(Max(k, Relu(-k)) + Abs(k), DType::kF32);
  Value col = ReduceSum(half + ints, {0}).Named("col");
  Value t = Transpose(half, {1, 0}).Named("t");
  Value rmean = ReduceMean(half, {1}, true).Named("rmean");
  ExpectEveryKernelCompiles(*b.Build({col, t, rmean}));
}

// Reductions over axes of size 1 are pointwise work: the sweep's row ops
// over rows of 1 in every float type, rows of 1 in three dims, the row
// epilogue graphs (two full inputs, two outputs), a unit reduction of a row
// kernel's per-row value, and one that drops its axis.
TEST(NvrtcCompileTest, UnitReductionsCompileAsPointwise) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    for (RowOp op : kRowOps) ExpectEveryKernelCompiles(SweepRowGraph(op, dtype, 67108864, 1));
    ExpectEveryKernelCompiles(RowOpGraph(RowOp::kLayerNorm, dtype, {8, 4096, 1}));
    ExpectEveryKernelCompiles(ResidualNormSilu(dtype, 100003, 1));
    ExpectEveryKernelCompiles(BiasedSoftmaxWithLogSumExp(dtype, 100003, 1));
  }
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {4096, 1000});
  Value e = Exp(Cast(x, DType::kF32));
  Value top = ReduceMax(ReduceSum(e, {1}, true), {1}, true);
  Value column = b.Input("column", DType::kF16, {4096, 1});
  ExpectEveryKernelCompiles(*b.Build({Cast(e / top, DType::kBF16), ReduceMin(column * 2.0, {1})}));
}

// Rows held in shared memory fit the registers their launch bound's ask
// leaves a thread: the sweep's long normalizations, on aligned and unaligned
// rows, in blocks and in clusters, compile for the H200 without a spill. The
// output pass writes its edge element first and keeps its slots in a loop
// for this; unrolled, with the edge last, each of these spilled 8 to 28 bytes
// a thread (layernorm [1335, 50257] bf16: 28 at 4 blocks of 512 an SM).
TEST(NvrtcCompileTest, HeldRowsFitTheirLaunchBound) {
  struct Case {
    RowOp op;
    DType dtype;
    int64_t rows, cols;
  };
  const DeviceLimits limits;
  for (const Case& c :
       {Case{RowOp::kLayerNorm, DType::kBF16, 1335, 50257}, Case{RowOp::kLayerNorm, DType::kF16, 1335, 50257},
        Case{RowOp::kLayerNorm, DType::kBF16, 523, 128256}, Case{RowOp::kLayerNorm, DType::kBF16, 1000, 32768},
        Case{RowOp::kLayerNorm, DType::kF32, 1024, 65536}, Case{RowOp::kRmsNorm, DType::kBF16, 1000, 32768}}) {
    SCOPED_TRACE(absl::StrCat(RowOpName(c.op), " [", c.rows, ", ", c.cols, "] ", DTypeName(c.dtype)));
    const Graph graph = SweepRowGraph(c.op, c.dtype, c.rows, c.cols);
    absl::StatusOr<Plan> plan = PlanFusion(graph, limits);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_EQ(plan->kernels.size(), 1u);
    absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, plan->kernels[0], limits);
    ASSERT_TRUE(generated.ok()) << generated.status();
    EXPECT_GT(generated->min_blocks_per_sm, 1);
    absl::StatusOr<KernelResources> resources =
        CompiledResources({generated->Source(), generated->name}, limits.Arch());
    ASSERT_TRUE(resources.ok()) << resources.status();
    EXPECT_FALSE(resources->Spills()) << resources->spill_store_bytes << " bytes spilled a thread at "
                                      << generated->min_blocks_per_sm << " blocks per SM";
  }
}

TEST(NvrtcCompileTest, MatmulOnEveryPathWithEpilogues) {
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kF32, 4096, 4096, 4096));
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kBF16, 8192, 8192, 8192));
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kF16, 4096, 4096, 4096));
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kF16, 64, 64, 4096));   // smallest tile
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kBF16, 100, 64, 20));   // element copies
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kF32, 33, 17, 9));      // element copies
  ExpectEveryKernelCompiles(BatchedMatmulWithEpilogue(DType::kBF16, 2, 96, 80, 64));
}

// Positions computed from indices in pointwise, row and matmul kernels.
TEST(NvrtcCompileTest, IotaMasksCompile) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {3, 96, 96});
  Value w = b.Input("w", DType::kBF16, {96, 64});
  Value causal = Ge(b.Iota(DType::kI32, {96, 96}, 0), b.Iota(DType::kI32, {96, 96}, 1));
  Value masked = Select(causal, x, b.Constant(-INFINITY, DType::kBF16));
  Value e = Exp(masked - ReduceMax(masked, {2}, true));
  Value p = e / ReduceSum(e, {2}, true);
  Value positions = Matmul(x, w) + b.Iota(DType::kBF16, {96, 64}, 0);
  ExpectEveryKernelCompiles(*b.Build({p, Relu(positions), b.Iota(DType::kI32, {3, 96, 96}, 2) + Cast(causal, DType::kI32)}));
}

TEST(NvrtcCompileTest, AttentionKernelsCompile) {
  ExpectEveryKernelCompiles(*AttentionNaive(DType::kBF16, 2, 4, 384, 128, /*causal=*/false));
  ExpectEveryKernelCompiles(*AttentionNaive(DType::kF16, 2, 4, 200, 64, /*causal=*/true));
  // A stored Kᵀ (keys contiguous), an additive bias, odd lengths, no max.
  GraphBuilder b;
  Value q = b.Input("q", DType::kBF16, {3, 200, 64});
  Value kt = b.Input("kt", DType::kBF16, {3, 64, 328});
  Value v = b.Input("v", DType::kBF16, {3, 328, 128});
  Value bias = b.Input("bias", DType::kBF16, {3, 200, 328});
  Value e = Exp(Matmul(q, kt) * 0.125 + bias);
  ExpectEveryKernelCompiles(*b.Build({Matmul(e / ReduceSum(e, {2}, true), v)}));
}

TEST(NvrtcCompileTest, MatmulBeforeHopperUsesMmaSync) {
  DeviceLimits ampere;
  ampere.compute_capability = 80;
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kBF16, 1024, 1024, 1024), ampere);
  ExpectEveryKernelCompiles(BatchedMatmulWithEpilogue(DType::kF16, 2, 96, 80, 64), ampere);
}

// Operand layouts, broadcast batches and outputs stored from registers (rows
// of 37 bf16 are no multiple of 16 bytes) on the wgmma tier.
TEST(NvrtcCompileTest, WgmmaLayoutsBatchesAndEpilogues) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {2, 1, 96, 64});
  Value w = b.Input("w", DType::kBF16, {3, 48, 64});
  Value a_t = b.Input("a_t", DType::kBF16, {64, 96});
  Value narrow = b.Input("narrow", DType::kBF16, {37, 64});
  Value scale = b.Input("scale", DType::kBF16, {96, 1});
  Value both = Matmul(Transpose(a_t, {1, 0}), Transpose(narrow, {1, 0}));            // [96,37]
  Value heads = Matmul(x, Transpose(w, {0, 2, 1})) * scale;                         // [2,3,96,48]
  Value flags = Gt(heads, b.Constant(0.0, DType::kBF16));
  ExpectEveryKernelCompiles(*b.Build({Relu(both), heads, flags, Cast(heads, DType::kF32)}));
}

// tf32: operands swapped for a row-major B, or not for a K-major one; A's
// fragments loaded from either layout; staged and register-stored outputs;
// every candidate of the swapped product.
TEST(NvrtcCompileTest, Tf32MatmulsCompile) {
  const PlanOptions tf32{.allow_tf32 = true};
  GraphBuilder b;
  Value a_t = b.Input("a_t", DType::kF32, {64, 96});
  Value w_t = b.Input("w_t", DType::kF32, {40, 64});
  Value x = b.Input("x", DType::kF32, {96, 64});
  Value w = b.Input("w", DType::kF32, {64, 12});
  Value both = Matmul(Transpose(a_t, {1, 0}), Transpose(w_t, {1, 0}));  // A M-major, B K-major
  Value narrow = Cast(Relu(Matmul(x, w)), DType::kBF16);                // 24-byte bf16 rows: from registers
  ExpectEveryKernelCompiles(*b.Build({Relu(both), narrow}), DeviceLimits{}, tf32);
  ExpectEveryKernelCompiles(BatchedMatmulWithEpilogue(DType::kF32, 3, 133, 72, 64), DeviceLimits{}, tf32);

  const Graph graph = *MatmulRelu(DType::kF32, 512, 512, 256);
  const Plan plan = *PlanFusion(graph, DeviceLimits{}, tf32);
  ASSERT_TRUE(plan.kernels[0].matmul().swap_operands);
  const std::vector<MatmulConfig> candidates = MatmulCandidates(plan.kernels[0].matmul(), DeviceLimits{});
  EXPECT_GE(candidates.size(), 4u);
  for (const MatmulConfig& config : candidates) {
    SCOPED_TRACE(config.ToString());
    EXPECT_EQ(config.block_k, 32);
    Plan tuned = plan;
    ASSERT_TRUE(ApplyMatmulConfig(config, "candidate", DeviceLimits{}, tuned.kernels[0].matmul()).ok());
    absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, tuned.kernels[0], DeviceLimits{});
    ASSERT_TRUE(generated.ok()) << generated.status();
    EXPECT_THAT(generated->body, HasSubstr("wgmma.mma_async.sync.aligned.m64n"));
    EXPECT_THAT(generated->body, HasSubstr("k8.f32.tf32.tf32"));
    ExpectCompilesCleanly(*generated, "candidate", "sm_90a");
  }
}

// A consumer's tile of a bool output is 64 bytes wide where the consumer owns
// 64 of C's columns (tf32's transposed tiles, or 16-bit tiles 64 wide): less
// than one 128-byte TMA box row, so it is stored from registers. f32 outputs
// always are; bf16 ones are staged.
TEST(NvrtcCompileTest, NarrowOutputTilesAreStoredFromRegisters) {
  const auto pointer_output = [](const Graph& graph, const Kernel& kernel, NodeId output) {
    absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, kernel, DeviceLimits{});
    EXPECT_TRUE(generated.ok()) << generated.status();
    if (!generated.ok()) return false;
    EXPECT_TRUE(CompileToCubin({generated->Source(), kernel.name}, "sm_90a").ok());
    for (const KernelParam& param : generated->params) {
      if (param.node == output) return param.kind == KernelParam::Kind::kPointer;
    }
    return false;
  };
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    GraphBuilder b;
    Value x = b.Input("x", dtype, {256, 64});
    Value w = b.Input("w", dtype, {64, 256});
    Value product = Matmul(x, w);
    const Graph graph = *b.Build({product.Named("c"), Gt(product, b.Constant(0.0, dtype)).Named("positive")});
    Plan plan = *PlanFusion(graph, DeviceLimits{}, {.allow_tf32 = true});
    Kernel& kernel = plan.kernels[0];
    ASSERT_EQ(kernel.matmul().tier, MatmulTier::kWgmma);
    if (dtype == DType::kBF16) {
      ASSERT_TRUE(ApplyMatmulConfig({.block_m = 128, .block_n = 64, .block_k = 64, .stages = 4, .group_m = 8}, "test",
                                    DeviceLimits{}, kernel.matmul())
                      .ok());
    }
    const NodeId c = graph.outputs()[0], positive = graph.outputs()[1];
    EXPECT_EQ(pointer_output(graph, kernel, c), dtype == DType::kF32);  // bf16: staged, a tensor map
    EXPECT_TRUE(pointer_output(graph, kernel, positive));
  }
}

TEST(NvrtcCompileTest, EveryMatmulCandidateCompiles) {
  for (const DeviceLimits& limits : {DeviceLimits{}, [] {
         DeviceLimits ampere;
         ampere.compute_capability = 80;
         return ampere;
       }()}) {
    // bf16 on tensor cores; f32 on FFMA, both of its stage kinds.
    for (DType dtype : {DType::kBF16, DType::kF32}) {
      SCOPED_TRACE(DTypeName(dtype));
      const Graph graph = *MatmulRelu(dtype, 512, 512, 256);
      const Plan plan = *PlanFusion(graph, limits);
      const std::vector<MatmulConfig> candidates = MatmulCandidates(plan.kernels[0].matmul(), limits);
      EXPECT_GE(candidates.size(), 6u);
      for (const MatmulConfig& config : candidates) {
        SCOPED_TRACE(config.ToString());
        Plan tuned = plan;
        ASSERT_TRUE(ApplyMatmulConfig(config, "candidate", limits, tuned.kernels[0].matmul()).ok());
        absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, tuned.kernels[0], limits);
        ASSERT_TRUE(generated.ok()) << generated.status();
        ExpectCompilesCleanly(*generated, "candidate", limits.Arch());
      }
    }
  }
}

// Compiles every split-K candidate of `graph`'s one matmul kernel for
// `limits`' architecture, each calling `sum` on its partial slots and
// arrival counters (module globals); returns how many there were.
int CompileSplitCandidates(const Graph& graph, const DeviceLimits& limits, const PlanOptions& options,
                           const std::string& sum) {
  const Plan plan = *PlanFusion(graph, limits, options);
  int compiled = 0;
  for (const MatmulConfig& config : MatmulCandidates(plan.kernels[0].matmul(), limits)) {
    if (config.split_k == 1) continue;
    SCOPED_TRACE(config.ToString());
    Plan tuned = plan;
    EXPECT_TRUE(ApplyMatmulConfig(config, "candidate", limits, tuned.kernels[0].matmul()).ok());
    absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, tuned.kernels[0], limits);
    EXPECT_TRUE(generated.ok()) << generated.status();
    if (!generated.ok()) continue;
    EXPECT_THAT(generated->body, HasSubstr(sum));
    ExpectCompilesCleanly(*generated, "candidate", limits.Arch());
    ++compiled;
  }
  return compiled;
}

// Split K: every split candidate of few partial tiles with a long K (a last
// step cut short, slices of unequal length), 16-bit and tf32, compiles for
// sm_90a with its partial slots and arrival counters as module globals.
TEST(NvrtcCompileTest, SplitKCandidatesCompile) {
  for (const DType dtype : {DType::kBF16, DType::kF32}) {
    SCOPED_TRACE(DTypeName(dtype));
    // K ends 8 elements (16-bit) or 4 (f32) into a step.
    const Graph graph = *MatmulRelu(dtype, 200, 136, dtype == DType::kF32 ? 4100 : 4104);
    EXPECT_GE(CompileSplitCandidates(graph, DeviceLimits{}, {.allow_tf32 = true},
                                     "consumer.sum_split(t, f0_matmul_partials, f0_matmul_arrivals)"),
              4);
  }
}

// Split K on the block-per-tile tiers: every split candidate of exact f32
// (FFMA: cp.async stages, and register stages for rows not 16-byte aligned;
// batches with an epilogue that reads a bias and a residual) and of mma.sync
// (on Hopper where TMA cannot read the rows), K ending part way into a step.
TEST(NvrtcCompileTest, FfmaAndMmaSyncSplitKCandidatesCompile) {
  const std::pair<std::string, Graph> cases[] = {
      {"f32 cp.async stages", *MatmulRelu(DType::kF32, 200, 136, 4100)},
      {"f32 register stages", *MatmulRelu(DType::kF32, 70, 131, 4099)},
      {"f32 batches, bias, residual", BatchedMatmulWithEpilogue(DType::kF32, 2, 130, 136, 3000)},
      {"f16 mma.sync, element copies", *MatmulRelu(DType::kF16, 100, 60, 4100)},
  };
  for (const auto& [name, graph] : cases) {
    SCOPED_TRACE(name);
    EXPECT_GE(CompileSplitCandidates(graph, DeviceLimits{}, {},
                                     "unit.sum(mainloop, f0_matmul_partials, f0_matmul_arrivals, &kiln_last)"),
              4);
  }
}

// Clusters: every clustered candidate of a product whose operands are both
// MN-major or both K-major (shared box by box, or in bands of rows) declares
// its cluster and compiles for sm_90a; under tf32's swapped operands C's
// 2x1 cluster is the kernel's 1x2.
TEST(NvrtcCompileTest, ClusterCandidatesCompile) {
  for (const bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "Aᵀ Bᵀ" : "A B");
    const Graph graph = LayoutGraph(DType::kBF16, 328, 264, 200, transposed, transposed);
    const Plan plan = *PlanFusion(graph, DeviceLimits{});
    const std::vector<MatmulConfig> candidates = ClusteredCandidates(plan.kernels[0].matmul(), DeviceLimits{});
    EXPECT_GE(candidates.size(), 12u);
    for (const MatmulConfig& config : candidates) {
      SCOPED_TRACE(config.ToString());
      Plan tuned = plan;
      ASSERT_TRUE(ApplyMatmulConfig(config, "candidate", DeviceLimits{}, tuned.kernels[0].matmul()).ok());
      absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, tuned.kernels[0], DeviceLimits{});
      ASSERT_TRUE(generated.ok()) << generated.status();
      EXPECT_THAT(generated->body, HasSubstr("__cluster_dims__(2, 1, 1) f0_matmul("));
      EXPECT_EQ(generated->launch.cluster, 2u);
      EXPECT_EQ(generated->launch.grid % 2, 0u);
      ExpectCompilesCleanly(*generated, "candidate", "sm_90a");
    }
  }
  const Graph graph = *MatmulRelu(DType::kF32, 136, 264, 256);
  Plan plan = *PlanFusion(graph, DeviceLimits{}, {.allow_tf32 = true});
  ASSERT_TRUE(plan.kernels[0].matmul().swap_operands);
  ASSERT_TRUE(ApplyMatmulConfig({.block_m = 128, .block_n = 128, .block_k = 32, .stages = 4, .group_m = 8,
                                 .cluster_m = 2},
                                "test", DeviceLimits{}, plan.kernels[0].matmul())
                  .ok());
  absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, plan.kernels[0], DeviceLimits{});
  ASSERT_TRUE(generated.ok()) << generated.status();
  // ... kSplitK, kClusterM, kClusterN, kOperandBytes, kTransposedOutput: the kernel's cluster is 1x2.
  EXPECT_THAT(generated->body, HasSubstr(", 1, 1, 2, 4, true, f0_matmul_mma"));
  ExpectCompilesCleanly(*generated, "tf32", "sm_90a");
}

// Unsupported dtypes are refused when a graph is built or loaded, not at code
// generation: every op the graph accepts, in every dtype it accepts, plans,
// generates and compiles, fused and unfused (one translation unit each).
TEST(NvrtcCompileTest, EveryOpInEveryDtypeTheGraphAcceptsCompiles) {
  const DType dtypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kBool};
  for (DType dtype : dtypes) {
    SCOPED_TRACE(DTypeName(dtype));
    Graph graph;
    auto add = [&](NodeSpec spec) -> NodeId {
      absl::StatusOr<NodeId> id = graph.AddNode(std::move(spec));
      return id.value_or(-1);
    };
    const NodeId a = add({.name = "a", .op = OpKind::kInput, .dtype = dtype, .shape = {33, 65}});
    const NodeId b = add({.name = "b", .op = OpKind::kInput, .dtype = dtype, .shape = {65}});
    const NodeId w = add({.name = "w", .op = OpKind::kInput, .dtype = dtype, .shape = {65, 17}});
    const NodeId c = add({.name = "c", .op = OpKind::kInput, .dtype = DType::kBool, .shape = {33, 1}});
    std::vector<NodeId> outputs;
    int counter = 0;
    auto try_add = [&](NodeSpec spec) {
      spec.name = absl::StrCat("n", counter++);
      if (const NodeId id = add(std::move(spec)); id >= 0) outputs.push_back(id);
    };
    for (int op = 0; op < kNumOpKinds; ++op) {
      const OpKind kind = static_cast<OpKind>(op);
      switch (OpFamilyOf(kind)) {
        case OpFamily::kUnary: try_add({.op = kind, .operands = {a}}); break;
        case OpFamily::kBinary:
        case OpFamily::kCompare: try_add({.op = kind, .operands = {a, b}}); break;
        case OpFamily::kSelect: try_add({.op = kind, .operands = {c, a, b}}); break;
        case OpFamily::kCast:
          for (DType to : dtypes) try_add({.op = kind, .operands = {a}, .dtype = to});
          break;
        case OpFamily::kReduce:
          try_add({.op = kind, .operands = {a}, .axes = {1}});
          try_add({.op = kind, .operands = {a}, .axes = {1}, .keepdims = true});
          try_add({.op = kind, .operands = {a}, .axes = {0}});
          break;
        case OpFamily::kMatmul: try_add({.op = kind, .operands = {a, w}}); break;
        case OpFamily::kTranspose: try_add({.op = kind, .operands = {a}, .perm = {1, 0}}); break;
        default: break;
      }
    }
    const NodeId view = add({.name = "view", .op = OpKind::kReshape, .operands = {a}, .shape = {65, 33}});
    try_add({.op = OpKind::kSelect, .operands = {c, view, view}});
    ASSERT_TRUE(graph.SetOutputs(outputs).ok());
    for (bool fuse : {true, false}) {
      absl::StatusOr<Plan> plan = fuse ? PlanFusion(graph, DeviceLimits{}) : PlanUnfused(graph, DeviceLimits{});
      ASSERT_TRUE(plan.ok()) << plan.status();
      absl::StatusOr<std::string> source = EmitTranslationUnit(graph, *plan, DeviceLimits{});
      ASSERT_TRUE(source.ok()) << source.status();
      absl::StatusOr<std::string> cubin = CompileToCubin({*source, "dtypes"}, DeviceLimits{}.Arch());
      EXPECT_TRUE(cubin.ok()) << (fuse ? "fused: " : "unfused: ") << cubin.status();
    }
  }
}

TEST(NvrtcCompileTest, TensorConstantsAndSlices) {
  ExpectEveryKernelCompiles(DenseLayerWithWeights(DType::kBF16, 128, 96, 64));
  ExpectEveryKernelCompiles(DenseLayerWithWeights(DType::kF32, 33, 17, 9));
  ExpectEveryKernelCompiles(ReshapedConstants());
  ExpectEveryKernelCompiles(SplitAndBroadcast(DType::kBF16, 100, 64));
}

TEST(NvrtcCompileTest, OnnxTestModels) {
  for (const char* model : {"mlp", "gpt2_block_opset17", "elementwise_ops", "layout_ops"}) {
    SCOPED_TRACE(model);
    ExpectEveryKernelCompiles(LoadOnnxCase(model).graph);
  }
}

// The code NVRTC compiles uses generated identifiers only; `kiln emit` names
// the graph's values in comments, on lines of their own.
TEST(NvrtcCompileTest, UserNamesReachOnlyComments) {
  GraphBuilder b;
  Value x = b.Input("secret/input.name", DType::kF32, {16, 16});
  Value y = Exp(x).Named("secret:output-name");
  const Graph graph = *b.Build({y});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, plan.kernels[0], DeviceLimits{});
  ASSERT_TRUE(generated.ok()) << generated.status();
  EXPECT_THAT(generated->Source(), Not(HasSubstr("secret")));
  EXPECT_THAT(generated->Source(), HasSubstr("f0_pointwise("));

  const std::string source = *EmitTranslationUnit(graph, plan, DeviceLimits{});
  int naming_lines = 0;
  for (absl::string_view line : absl::StrSplit(source, '\n')) {
    if (!absl::StrContains(line, "secret")) continue;
    ++naming_lines;
    EXPECT_TRUE(absl::StartsWith(line, "//   ")) << line;
  }
  EXPECT_EQ(naming_lines, 2);
  EXPECT_TRUE(CompileToCubin({source, "emitted"}, "sm_90").ok());
}

}  // namespace
}  // namespace kiln
