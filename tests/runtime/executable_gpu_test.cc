// End-to-end on a GPU: fused and unfused plans of the seed graphs and of
// matmuls on every tile path must match the reference interpreter. The random
// differential suite is tests/gpu/differential_test.cc.
// Every test skips with a message where there is no CUDA device.
#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/matmul_schedule.h"
#include "gtest/gtest.h"
#include "tests/differential.h"
#include "tests/matmul_test_graphs.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

class ExecutableGpuTest : public SharedDeviceTest {
 protected:
  static std::string CheckGraph(const Graph& graph, KernelCache& cache, uint64_t seed,
                                std::optional<DeviceLimits> limits = std::nullopt) {
    return CheckAgainstReference(graph, device(), cache, seed, {.limits = limits});
  }
};

TEST_F(ExecutableGpuTest, SeedGraphsMatchTheReference) {
  KernelCache cache({.use_disk = false});
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"gelu f32", *GeluNaive(DType::kF32, {1000, 999})},
      {"gelu bf16", *GeluNaive(DType::kBF16, {1024, 4096})},
      {"gelu f16", *GeluNaive(DType::kF16, {3, 5, 7})},
      {"softmax warp", *SoftmaxNaive(DType::kF32, 1000, 1000)},
      {"softmax block", *SoftmaxNaive(DType::kF32, 300, 4100)},
      {"softmax long block", *SoftmaxNaive(DType::kF32, 64, 16384)},
      {"softmax cluster", *SoftmaxNaive(DType::kF32, 32, 131072)},
      {"softmax bf16", *SoftmaxNaive(DType::kBF16, 257, 2000)},
      {"row_sum", *RowSum(DType::kF32, 999, 5000)},
      {"row_sum split", *RowSum(DType::kF32, 8, 1 << 20)},
      {"row_sum warp f16", *RowSum(DType::kF16, 333, 100)},
  };
  for (const auto& [name, graph] : graphs) {
    EXPECT_EQ(CheckGraph(graph, cache, 42), "") << name;
  }
}

// Causal masks from iota in a row softmax and positions in a matmul
// epilogue and a pointwise kernel: computed from indices, checked like data.
TEST_F(ExecutableGpuTest, IotaMasksMatchTheReference) {
  KernelCache cache({.use_disk = false});
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {3, 200, 200});
  Value w = b.Input("w", DType::kF32, {200, 72});
  Value causal = Ge(b.Iota(DType::kI32, {200, 200}, 0), b.Iota(DType::kI32, {200, 200}, 1));
  Value masked = Select(causal, x, b.Constant(-INFINITY, DType::kF32));
  Value e = Exp(masked - ReduceMax(masked, {2}, true));
  Value p = (e / ReduceSum(e, {2}, true)).Named("p");
  Value positions = (Matmul(x, w) + b.Iota(DType::kF32, {200, 72}, 0)).Named("positions");
  Value counts = (b.Iota(DType::kI32, {3, 200, 200}, 0) + Cast(causal, DType::kI32)).Named("counts");
  EXPECT_EQ(CheckGraph(*b.Build({p, positions, counts}), cache, 9), "");
}

TEST_F(ExecutableGpuTest, LoopedSoftmaxWithOnlineRecurrenceMatches) {
  // Force the looped strategy by planning a softmax without clusters on a row
  // that exceeds one block: the device's own limits decide, so use a row far
  // beyond the cluster budget instead.
  KernelCache cache({.use_disk = false});
  EXPECT_EQ(CheckGraph(*SoftmaxNaive(DType::kF32, 16, 1 << 19), cache, 7), "");
}

// Rows whose length is no multiple of the vector width start anywhere within
// a 16-byte vector: each strategy reads and writes them by aligned vectors,
// the ones that straddle a row's ends element by element.
Graph LayerNorm(DType dtype, int64_t rows, int64_t cols) {
  GraphBuilder b;
  Value x = Cast(b.Input("x", dtype, {rows, cols}), DType::kF32);
  Value w = b.Input("w", DType::kF32, {cols});
  Value d = x - ReduceMean(x, {1}, true);
  Value y = d * Rsqrt(ReduceMean(d * d, {1}, true) + b.Constant(1e-5, DType::kF32)) * w;
  return *b.Build({Cast(y, dtype).Named("y")});
}

TEST_F(ExecutableGpuTest, OddRowLengthsMatchTheReference) {
  KernelCache cache({.use_disk = false});
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"softmax warp bf16", *SoftmaxNaive(DType::kBF16, 37, 1001)},
      {"softmax warp f16, shorter than a vector", *SoftmaxNaive(DType::kF16, 19, 5)},
      {"softmax block bf16", *SoftmaxNaive(DType::kBF16, 67, 4093)},
      {"softmax block f32", *SoftmaxNaive(DType::kF32, 41, 4099)},
      {"softmax cluster bf16", *SoftmaxNaive(DType::kBF16, 9, 50257)},
      {"softmax looped f16", *SoftmaxNaive(DType::kF16, 3, 300007)},
      {"row_sum cluster-looped f16", *RowSum(DType::kF16, 5, 1000003)},
      {"row_sum block bf16", *RowSum(DType::kBF16, 300, 7777)},
      {"layernorm warp bf16", LayerNorm(DType::kBF16, 129, 771)},
      {"layernorm block bf16", LayerNorm(DType::kBF16, 33, 12289)},
      {"layernorm cluster f16", LayerNorm(DType::kF16, 5, 70001)},
  };
  for (const auto& [name, graph] : graphs) {
    EXPECT_EQ(CheckGraph(graph, cache, 11), "") << name;
  }
}

// Layernorms whose 16-bit weight and bias casts fold into the row kernel
// (read by column, as vectors on aligned rows, element by element on odd
// ones) and softmaxes whose division is a product with the row's reciprocal,
// on every row strategy: warp, block, exact and unaligned, cluster split and
// looped.
TEST_F(ExecutableGpuTest, RowKernelsWithFoldedWeightsMatchTheReference) {
  KernelCache cache({.use_disk = false});
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"layernorm warp bf16", LayerNormWithWeights(DType::kBF16, 129, 1024)},
      {"layernorm warp bf16, odd", LayerNormWithWeights(DType::kBF16, 77, 771)},
      {"layernorm block bf16, exact slots", LayerNormWithWeights(DType::kBF16, 33, 8192)},
      {"layernorm block bf16, odd", LayerNormWithWeights(DType::kBF16, 67, 4093)},
      {"layernorm block f16, odd", LayerNormWithWeights(DType::kF16, 41, 12289)},
      {"layernorm cluster bf16, odd", LayerNormWithWeights(DType::kBF16, 5, 50257)},
      {"layernorm cluster f32", LayerNormWithWeights(DType::kF32, 7, 128256)},
      {"layernorm looped bf16, odd", LayerNormWithWeights(DType::kBF16, 3, 300007)},
      {"softmax block bf16, exact slots", *SoftmaxNaive(DType::kBF16, 37, 8192)},
      {"softmax cluster bf16, odd", *SoftmaxNaive(DType::kBF16, 9, 50257)},
      {"softmax cluster f32", *SoftmaxNaive(DType::kF32, 13, 128256)},
  };
  for (const auto& [name, graph] : graphs) {
    EXPECT_EQ(CheckGraph(graph, cache, 23), "") << name;
  }
}

TEST_F(ExecutableGpuTest, MatmulOnEveryPathMatchesTheReference) {
  KernelCache cache({.use_disk = false});
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"bf16 128x256 tiles", *MatmulRelu(DType::kBF16, 1024, 2048, 512)},
      {"f16 128x256 tiles, partial tiles", *MatmulRelu(DType::kF16, 1000, 1000, 1000)},
      {"f16 smallest tile, long K", *MatmulRelu(DType::kF16, 64, 64, 4096)},
      {"bf16 element copies", *MatmulRelu(DType::kBF16, 100, 64, 20)},
      {"f32 vector copies", *MatmulRelu(DType::kF32, 300, 260, 516)},
      {"f32 element copies", *MatmulRelu(DType::kF32, 33, 17, 9)},
      {"batched bf16 with bias, residual, two outputs", BatchedMatmulWithEpilogue(DType::kBF16, 3, 200, 72, 64)},
  };
  for (const auto& [name, graph] : graphs) {
    EXPECT_EQ(CheckGraph(graph, cache, 5), "") << name;
  }
}


}  // namespace
}  // namespace kiln
