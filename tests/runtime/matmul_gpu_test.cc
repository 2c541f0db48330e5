// The matmul tiers on a GPU against the reference interpreter: every
// candidate config a tuner may pick (split K and clusters included), transposed operands read as layouts,
// broadcast and folded batches, epilogues with extra operands and outputs of
// several dtypes (staged for TMA or stored from registers), and random
// products from 1 to about 5000 on a side. Outputs are poisoned before each
// run (RunOnHost fills them with NaN). Every test skips without a device.
#include <random>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/matmul_candidates.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tests/differential.h"
#include "tests/matmul_test_graphs.h"

namespace kiln {
namespace {

class MatmulGpuTest : public SharedDeviceTest {
 protected:
  // Empty when both plans (with `config` on their matmul kernels, when
  // given) match the reference.
  static KernelCache* cache() {
    static KernelCache* kernels = new KernelCache({.use_disk = false});
    return kernels;
  }
  static std::string Check(const Graph& graph, uint64_t seed, std::optional<MatmulConfig> config = std::nullopt,
                           PlanOptions options = {}, bool fused_only = false) {
    return CheckAgainstReference(graph, device(), *cache(), seed,
                                 {.matmul_config = config, .plan = options, .fused_only = fused_only});
  }
};

TEST_F(MatmulGpuTest, EveryCandidateConfigMatchesTheReference) {
  const std::vector<std::pair<std::string, Graph>> graphs = {
      {"bf16 partial tiles", *MatmulRelu(DType::kBF16, 200, 328, 72)},
      {"f16 partial tiles, two outputs", BatchedMatmulWithEpilogue(DType::kF16, 1, 300, 264, 136)},
      {"bf16 element copies (mma.sync)", *MatmulRelu(DType::kBF16, 100, 60, 20)},
      // FFMA: cp.async rings over a K that ends in half a slice, and batches.
      {"f32 partial tiles (FFMA)", *MatmulRelu(DType::kF32, 200, 328, 76)},
      {"f32 batches, two outputs (FFMA)", BatchedMatmulWithEpilogue(DType::kF32, 2, 130, 136, 84)},
      {"f32 unaligned rows (FFMA, registers)", *MatmulRelu(DType::kF32, 70, 131, 45)},
  };
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  struct Case {
    const Graph* graph;
    MatmulConfig config;
    std::string label;
  };
  std::vector<Case> cases;
  for (const auto& [name, graph] : graphs) {
    const Plan plan = *PlanFusion(graph, limits);
    for (const MatmulConfig& config : MatmulCandidates(plan.kernels[0].matmul(), limits)) {
      cases.push_back({&graph, config, absl::StrCat(name, " ", config.ToString())});
    }
  }
  const std::vector<std::string> results = RunChecksInParallel(
      static_cast<int>(cases.size()), [&](int i) { return Check(*cases[i].graph, 11, cases[i].config); });
  for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(results[i], "") << cases[i].label;
}

TEST_F(MatmulGpuTest, TransposedOperandsAndBatchesMatchTheReference) {
  std::vector<std::pair<std::string, Graph>> graphs;
  for (bool at : {false, true}) {
    for (bool bt : {false, true}) {
      graphs.push_back({absl::StrCat("layouts A", at ? "ᵀ" : "", " B", bt ? "ᵀ" : ""),
                        LayoutGraph(DType::kBF16, 328, 264, 200, at, bt)});
    }
  }
  // Rows of the output of 37 bf16: stored from registers, not staged.
  graphs.push_back({"direct stores", LayoutGraph(DType::kF16, 300, 37, 72, false, true)});
  {
    GraphBuilder b;
    Value x = b.Input("x", DType::kBF16, {3, 100, 64});
    Value w = b.Input("w", DType::kBF16, {64, 72});
    graphs.push_back({"batch folded into rows", *b.Build({Matmul(x, w)})});
  }
  {
    GraphBuilder b;
    Value p = b.Input("p", DType::kBF16, {2, 1, 40, 64});
    Value q = b.Input("q", DType::kBF16, {3, 64, 48});
    graphs.push_back({"broadcast batches", *b.Build({Matmul(p, q)})});
  }
  {
    GraphBuilder b;
    Value q = b.Input("q", DType::kF16, {2, 4, 130, 64});
    Value key = b.Input("key", DType::kF16, {2, 4, 130, 64});
    graphs.push_back({"Q·Kᵀ over heads", *b.Build({Matmul(q, Transpose(key, {0, 1, 3, 2})) * 0.125})});
  }
  {
    GraphBuilder b;
    Value x = b.Input("x", DType::kBF16, {2, 1, 2, 3, 24, 32});
    Value w = b.Input("w", DType::kBF16, {2, 1, 1, 32, 40});
    graphs.push_back({"rank 6 with broadcasts", *b.Build({Matmul(x, w)})});
  }
  {
    // Epilogue operands [N], [M,1] and [M,N]; bf16, f32 and bool outputs.
    GraphBuilder b;
    Value x = b.Input("x", DType::kBF16, {200, 96});
    Value w = b.Input("w", DType::kBF16, {96, 136});
    Value bias = b.Input("bias", DType::kBF16, {136});
    Value scale = b.Input("scale", DType::kBF16, {200, 1});
    Value residual = b.Input("residual", DType::kBF16, {200, 136});
    Value product = Matmul(x, w);
    Value y = (Tanh(product + bias) * scale + residual).Named("y");
    graphs.push_back({"epilogue operands and three dtypes",
                      *b.Build({y, Cast(y, DType::kF32).Named("y32"),
                                // A bool computed in the epilogue from exact values: the sign of y
                                // itself flips where the fused fp32 y and the reference's rounded y
                                // straddle zero.
                                Gt(product * 0.0 + residual, b.Constant(0.0, DType::kBF16))
                                    .Named("positive")})});
  }
  for (const auto& [name, graph] : graphs) EXPECT_EQ(Check(graph, 3), "") << name;
}

// A random product: sides from 1 to about 1500, half of them multiples of 8
// (so TMA can read them), either operand possibly transposed, batches none,
// shared or broadcast, and a random epilogue.
Graph RandomMatmul(std::mt19937_64& rng) {
  const DType dtypes[] = {DType::kBF16, DType::kF16, DType::kBF16, DType::kF32};
  const DType dtype = dtypes[rng() % 4];
  auto side = [&] { return static_cast<int64_t>(rng() % 2 ? 8 * (1 + rng() % 180) : 1 + rng() % 1500); };
  const int64_t m = side(), n = side(), k = side();
  const int batching = static_cast<int>(rng() % 4);  // 0 none, 1 shared, 2 A only, 3 broadcast both ways
  const Dims a_batch = batching == 0 ? Dims{} : batching == 3 ? Dims{2, 1} : Dims{3};
  const Dims b_batch = batching == 1 ? Dims{3} : batching == 3 ? Dims{1, 2} : Dims{};
  auto with = [](Dims batch, int64_t rows, int64_t cols) {
    batch.push_back(rows);
    batch.push_back(cols);
    return batch;
  };
  GraphBuilder b;
  const bool at = rng() % 3 == 0, bt = rng() % 2 == 0;
  Dims a_perm, b_perm;
  for (size_t i = 0; i < a_batch.size() + 2; ++i) a_perm.push_back(static_cast<int64_t>(i));
  std::swap(a_perm[a_perm.size() - 1], a_perm[a_perm.size() - 2]);
  for (size_t i = 0; i < b_batch.size() + 2; ++i) b_perm.push_back(static_cast<int64_t>(i));
  std::swap(b_perm[b_perm.size() - 1], b_perm[b_perm.size() - 2]);
  Value a = at ? Transpose(b.Input("a_t", dtype, with(a_batch, k, m)), a_perm) : b.Input("a", dtype, with(a_batch, m, k));
  Value w = bt ? Transpose(b.Input("w_t", dtype, with(b_batch, n, k)), b_perm) : b.Input("w", dtype, with(b_batch, k, n));
  Value product = Matmul(a, w);
  switch (rng() % 4) {
    case 0: return *b.Build({product});
    case 1: return *b.Build({Relu(product)});
    case 2: return *b.Build({Sigmoid(product + b.Input("bias", dtype, {n})) * 2.0});
    default: return *b.Build({product, Tanh(product) * b.Input("gate", dtype, {m, 1})});
  }
}

// f32 products with tf32 allowed, at tf32's tolerance: both operand layouts
// (a row-major B swaps the operands and stores Cᵀ back transposed), odd row
// counts (the second row of a transposed pair lies past the edge), batches
// with bias and residual, an output stored from registers. Every candidate
// of the fused plan's matmul runs fused; the unfused plan, whose matmul reads
// unfolded layouts and stores other outputs, runs its own heuristic config.
TEST_F(MatmulGpuTest, Tf32ProductsMatchTheReference) {
  const PlanOptions tf32{.allow_tf32 = true};
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {300, 136});
  Value w = b.Input("w", DType::kF32, {136, 12});
  const Graph narrow_cast = *b.Build({Cast(Relu(Matmul(x, w)), DType::kBF16).Named("y")});
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"partial tiles", *MatmulRelu(DType::kF32, 200, 328, 72)},
      {"odd rows", *MatmulRelu(DType::kF32, 37, 264, 200)},
      {"batches, bias, residual", BatchedMatmulWithEpilogue(DType::kF32, 3, 133, 72, 64)},
      {"bf16 output of 24-byte rows, stored from registers", narrow_cast},
  };
  for (bool at : {false, true}) {
    for (bool bt : {false, true}) {
      graphs.push_back({absl::StrCat("layouts A", at ? "ᵀ" : "", " B", bt ? "ᵀ" : ""),
                        LayoutGraph(DType::kF32, 329, 264, 200, at, bt)});
    }
  }
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  for (const auto& [name, graph] : graphs) {
    const Plan plan = *PlanFusion(graph, limits, tf32);
    const Kernel& matmul = plan.kernels.back();
    ASSERT_EQ(matmul.matmul().tier, MatmulTier::kWgmma) << name << ": " << matmul.matmul().reason;
    for (const MatmulConfig& config : MatmulCandidates(matmul.matmul(), limits)) {
      EXPECT_EQ(Check(graph, 21, config, tf32, /*fused_only=*/true), "") << name << " " << config.ToString();
    }
    EXPECT_EQ(Check(graph, 22, std::nullopt, tf32), "") << name << ", heuristic configs";
  }
  EXPECT_EQ(Check(LayoutGraph(DType::kF32, 4999, 5000, 4096, false, false), 9, std::nullopt, tf32), "");
  EXPECT_EQ(Check(LayoutGraph(DType::kF32, 4093, 4996, 1000, false, true), 10, std::nullopt, tf32), "");
}

// Split K on few tiles with a long K: every split candidate of partial
// tiles, a K that ends in part of a step, both operand layouts, batches with
// two outputs and tf32's swapped operands, each run twice (the arrival
// counters must be reset, and the slices' sum is in a fixed order, so the
// second run repeats the first bit for bit); then the heuristic's choice.
// The block-per-tile tiers too: exact f32 on FFMA (cp.async and register
// stages, transposed operands, which it reads through their own transpose
// kernels, batches with a bias and a residual) and f16 on mma.sync (rows TMA
// cannot read) or, with less shared memory than any wgmma tile needs, bf16.
TEST_F(MatmulGpuTest, SplitKProductsMatchTheReference) {
  const PlanOptions tf32{.allow_tf32 = true};
  DeviceLimits no_wgmma = DeviceLimitsOf(device().info());
  no_wgmma.shared_bytes_per_block = 48 * 1024;
  const struct {
    std::string name;
    Graph graph;
    PlanOptions options;
    std::optional<DeviceLimits> limits;
  } graphs[] = {
      {"bf16 partial tiles, K in part steps", *MatmulRelu(DType::kBF16, 200, 136, 4104), {}},
      {"f16 batches, two outputs", BatchedMatmulWithEpilogue(DType::kF16, 2, 130, 136, 3000), {}},
      {"bf16 layouts Aᵀ Bᵀ", LayoutGraph(DType::kBF16, 264, 200, 5000, true, true), {}},
      {"bf16 layout Aᵀ, one tile", LayoutGraph(DType::kBF16, 64, 64, 8192, true, false), {}},
      {"tf32, operands swapped", *MatmulRelu(DType::kF32, 136, 264, 4096), tf32},
      {"f32 partial tiles, K in part steps (FFMA)", *MatmulRelu(DType::kF32, 200, 136, 4100), {}},
      {"f32 unaligned rows, register stages (FFMA)", *MatmulRelu(DType::kF32, 70, 131, 4099), {}},
      {"f32 batches, two outputs (FFMA)", BatchedMatmulWithEpilogue(DType::kF32, 2, 130, 136, 3000), {}},
      {"f32 layouts Aᵀ Bᵀ (FFMA)", LayoutGraph(DType::kF32, 264, 200, 5000, true, true), {}},
      {"f16 element copies (mma.sync)", *MatmulRelu(DType::kF16, 100, 60, 4100), {}},
      {"bf16 batches, two outputs (mma.sync)", BatchedMatmulWithEpilogue(DType::kBF16, 2, 130, 136, 3000), {}, no_wgmma},
  };
  struct Case {
    size_t graph;
    MatmulConfig config;
  };
  std::vector<Case> cases;
  for (size_t g = 0; g < std::size(graphs); ++g) {
    const DeviceLimits limits = graphs[g].limits.value_or(DeviceLimitsOf(device().info()));
    const Plan plan = *PlanFusion(graphs[g].graph, limits, graphs[g].options);
    const MatmulSchedule& heuristic = plan.kernels.back().matmul();
    EXPECT_GT(heuristic.config.split_k, 1) << graphs[g].name << ": " << heuristic.reason;
    for (const MatmulConfig& config : MatmulCandidates(heuristic, limits)) {
      if (config.split_k > 1) cases.push_back({g, config});
    }
  }
  EXPECT_GE(cases.size(), 2 * std::size(graphs));
  const std::vector<std::string> results = RunChecksInParallel(static_cast<int>(cases.size()), [&](int i) {
    const auto& [name, graph, options, limits] = graphs[cases[i].graph];
    return CheckAgainstReference(graph, device(), *cache(), 31,
                                 {.limits = limits, .matmul_config = cases[i].config, .plan = options,
                                  .fused_only = true, .runs = 2});
  });
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(results[i], "") << graphs[cases[i].graph].name << " " << cases[i].config.ToString();
  }
  for (const auto& [name, graph, options, limits] : graphs) {
    EXPECT_EQ(CheckAgainstReference(graph, device(), *cache(), 32, {.limits = limits, .plan = options, .runs = 2}), "")
        << name << ", heuristic configs";
  }
}

// 2-block clusters sharing B (2x1) or A (1x2) through TMA multicast, on
// every tile, ping-pong and epilogue warps: a count of tiles that leaves the
// last cluster's second block past M or N, K ending in part of a step, each
// operand K-major (shared in bands of rows) and MN-major (shared box by
// box), batches with two outputs, broadcast batches, tf32's swapped operands
// (C's cluster is the kernel's transposed), and epilogue operands with
// outputs stored from registers. Each runs twice: the barriers' phases must
// come out the same after a launch.
TEST_F(MatmulGpuTest, ClusterProductsMatchTheReference) {
  const PlanOptions tf32{.allow_tf32 = true};
  GraphBuilder broadcast;
  Value p = broadcast.Input("p", DType::kBF16, {2, 1, 136, 64});
  Value q = broadcast.Input("q", DType::kBF16, {3, 64, 200});
  GraphBuilder operands;
  Value x = operands.Input("x", DType::kBF16, {300, 96});
  Value w = operands.Input("w", DType::kBF16, {96, 264});
  Value bias = operands.Input("bias", DType::kBF16, {264});
  Value scale = operands.Input("scale", DType::kBF16, {300, 1});
  Value y = (Tanh(Matmul(x, w) + bias) * scale).Named("y");
  const struct {
    std::string name;
    Graph graph;
    PlanOptions options;
  } graphs[] = {
      {"bf16, 3 tile rows, K in part steps", *MatmulRelu(DType::kBF16, 300, 328, 136), {}},
      {"bf16 layouts Aᵀ Bᵀ", LayoutGraph(DType::kBF16, 328, 264, 200, true, true), {}},
      {"f16 batches, two outputs", BatchedMatmulWithEpilogue(DType::kF16, 3, 130, 136, 200), {}},
      {"bf16 broadcast batches", *broadcast.Build({Matmul(p, q)}), {}},
      {"tf32, operands swapped", *MatmulRelu(DType::kF32, 136, 264, 256), tf32},
      {"epilogue operands, bf16 and f32 outputs", *operands.Build({y, Cast(y, DType::kF32).Named("y32")}), {}},
  };
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  struct Case {
    size_t graph;
    MatmulConfig config;
  };
  std::vector<Case> cases;
  for (size_t g = 0; g < std::size(graphs); ++g) {
    const Plan plan = *PlanFusion(graphs[g].graph, limits, graphs[g].options);
    for (const MatmulConfig& config : ClusteredCandidates(plan.kernels.back().matmul(), limits)) {
      cases.push_back({g, config});
    }
  }
  EXPECT_GE(cases.size(), 8 * std::size(graphs));
  const std::vector<std::string> results = RunChecksInParallel(static_cast<int>(cases.size()), [&](int i) {
    const auto& [name, graph, options] = graphs[cases[i].graph];
    return CheckAgainstReference(graph, device(), *cache(), 41,
                                 {.matmul_config = cases[i].config, .plan = options, .fused_only = true, .runs = 2});
  });
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(results[i], "") << graphs[cases[i].graph].name << " " << cases[i].config.ToString();
  }
}

TEST_F(MatmulGpuTest, HundredRandomProductsMatchTheReference) {
  std::mt19937_64 rng(1122026);
  std::vector<Graph> graphs;
  for (int i = 0; i < 100; ++i) graphs.push_back(RandomMatmul(rng));
  const std::vector<std::string> results =
      RunChecksInParallel(static_cast<int>(graphs.size()), [&](int i) { return Check(graphs[i], 500 + i); });
  for (size_t i = 0; i < graphs.size(); ++i) {
    const Node& out = graphs[i].node(graphs[i].outputs()[0]);
    EXPECT_EQ(results[i], "") << "graph " << i << " " << DTypeName(out.dtype) << DimsString(out.shape);
  }
}

TEST_F(MatmulGpuTest, ProductsNearFiveThousandMatchTheReference) {
  EXPECT_EQ(Check(LayoutGraph(DType::kBF16, 4999, 5000, 4096, false, false), 7), "");
  EXPECT_EQ(Check(LayoutGraph(DType::kF16, 4096, 4993, 4104, true, true), 8), "");
}

}  // namespace
}  // namespace kiln
