// Every kernel kiln generates for the test graphs must compile with NVRTC for
// sm_90. This runs on machines without a GPU.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/kernel_codegen.h"
#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/matmul_schedule.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/matmul_test_graphs.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void ExpectEveryKernelCompiles(const Graph& graph, const DeviceLimits& limits = DeviceLimits{}) {
  for (bool fuse : {true, false}) {
    absl::StatusOr<Plan> plan = fuse ? PlanFusion(graph, limits) : PlanUnfused(graph, limits);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (const Kernel& kernel : plan->kernels) {
      SCOPED_TRACE(kernel.name);
      absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, kernel, limits);
      ASSERT_TRUE(generated.ok()) << generated.status();
      absl::StatusOr<std::string> cubin = CompileToCubin({generated->Source(), kernel.name}, "sm_90");
      ASSERT_TRUE(cubin.ok()) << cubin.status();
      EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF");
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

TEST(NvrtcCompileTest, MatmulOnEveryPathWithEpilogues) {
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kF32, 4096, 4096, 4096));
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kBF16, 8192, 8192, 8192));
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kF16, 4096, 4096, 4096));
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kF16, 64, 64, 4096));   // smallest tile
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kBF16, 100, 64, 20));   // element copies
  ExpectEveryKernelCompiles(*MatmulRelu(DType::kF32, 33, 17, 9));      // element copies
  ExpectEveryKernelCompiles(BatchedMatmulWithEpilogue(DType::kBF16, 2, 96, 80, 64));
}

TEST(NvrtcCompileTest, EveryAcceptedMatmulTileCompiles) {
  const Graph graph = *MatmulRelu(DType::kBF16, 512, 512, 256);
  for (int block_m : {64, 128, 256}) {
    for (int block_n : {64, 128, 256}) {
      for (int block_k : {32, 64}) {
        DeviceLimits limits;
        limits.matmul_tile = MatmulTile{.block_m = block_m, .block_n = block_n, .block_k = block_k, .stages = 3};
        if (!ValidateMatmulTile(*limits.matmul_tile, limits).ok()) continue;
        SCOPED_TRACE(absl::StrCat(block_m, "x", block_n, "x", block_k));
        const Plan plan = *PlanFusion(graph, limits);
        absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, plan.kernels[0], limits);
        ASSERT_TRUE(generated.ok()) << generated.status();
        EXPECT_TRUE(CompileToCubin({generated->Source(), "tile"}, "sm_90").ok());
      }
    }
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
