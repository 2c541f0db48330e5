// Attention derived by fusion: the naive chain plans as one kernel whose
// traffic is Q, K, V and O alone; what does not qualify is explained.
#include <cmath>

#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/plan_report.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

TEST(AttentionTest, TheNaiveChainIsOneKernelMovingOnlyQKVAndO) {
  for (bool causal : {false, true}) {
    const Graph graph = *AttentionNaive(DType::kBF16, 4, 16, 4096, 128, causal);
    const Plan fused = *PlanFusion(graph, DeviceLimits{});
    ASSERT_EQ(fused.kernels.size(), 1u) << causal;
    const Kernel& k = fused.kernels[0];
    EXPECT_EQ(k.kind, KernelKind::kAttention);
    EXPECT_EQ(k.name, "f0_attention");
    const int64_t tensor = int64_t{4} * 16 * 4096 * 128 * 2;
    EXPECT_EQ(k.traffic.bytes_read, 3 * tensor);
    EXPECT_EQ(k.traffic.bytes_written, tensor);
    EXPECT_TRUE(k.attention().k.transposed);  // Kᵀ is a layout, not a kernel
    EXPECT_EQ(k.attention().causal, causal);
    EXPECT_EQ(k.attention().grid, 4 * 16 * 4096 / 128);
    EXPECT_EQ(k.Strategy(), causal ? "flash, 128 query rows x 128 keys, 3 stages, causal"
                                   : "flash, 128 query rows x 128 keys, 3 stages");
    EXPECT_THAT(k.attention().reason, HasSubstr("S and P stay on chip, K and V are re-read by each block of query rows"));
    // Two matmuls of 2·S²·D each, halved where the diagonal skips half the
    // keys; the softmax's elementwise ops add about 1%.
    const double flops = 4.0 * 4 * 16 * 4096.0 * 4096.0 * 128;
    EXPECT_NEAR(k.traffic.flops, causal ? flops / 2 : flops, flops * 0.02);
    // Unfused, S and P travel through memory: 4 + 4 more bytes per score.
    const Plan unfused = *PlanUnfused(graph, DeviceLimits{});
    EXPECT_GT(unfused.total.bytes(), 10 * fused.total.bytes());
  }
}

TEST(AttentionTest, SoftmaxFormsAndMasksAreRecognizedByStructure) {
  // No max subtraction, a reciprocal, an additive bias tensor and f16.
  GraphBuilder b;
  Value q = b.Input("q", DType::kF16, {8, 200, 64});
  Value kt = b.Input("kt", DType::kF16, {8, 64, 328});  // Kᵀ stored, keys contiguous
  Value v = b.Input("v", DType::kF16, {8, 328, 64});
  Value bias = b.Input("bias", DType::kF16, {200, 328});
  Value e = Exp(Matmul(q, kt) * 0.125 + bias);
  Value p = e * Reciprocal(ReduceSum(e, {2}, true));
  const Graph graph = *b.Build({Matmul(p, v).Named("o")});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].kind, KernelKind::kAttention);
  EXPECT_FALSE(plan.kernels[0].attention().k.transposed);
  EXPECT_FALSE(plan.kernels[0].attention().causal);
  EXPECT_EQ(plan.kernels[0].traffic.bytes_read, (8 * 200 * 64 + 8 * 64 * 328 + 8 * 328 * 64 + 200 * 328) * 2);
}

// PyTorch's masked_fill writes the dtype's lowest value, not -inf: with the
// diagonal unmasked, its exp underflows to 0 just the same. Any other fill
// keeps the masked keys in the softmax, so the key blocks must be computed.
TEST(AttentionTest, CausalMasksFillWithMinusInfinityOrTheLowestValue) {
  for (const auto& [fill, causal] : {std::pair{-double{INFINITY}, true}, std::pair{-3.3895313892515355e38, true},
                                     std::pair{-1e4, false}}) {
    GraphBuilder b;
    Value q = b.Input("q", DType::kBF16, {2, 256, 64});
    Value k = b.Input("k", DType::kBF16, {2, 256, 64});
    Value v = b.Input("v", DType::kBF16, {2, 256, 64});
    Value mask = Ge(b.Iota(DType::kI32, {1, 256, 256}, 1), b.Iota(DType::kI32, {1, 256, 256}, 2));
    Value x = Select(mask, Matmul(q, Transpose(k, {0, 2, 1})) * 0.125, b.Constant(fill, DType::kBF16));
    Value e = Exp(x - ReduceMax(x, {2}, true));
    const Graph graph = *b.Build({Matmul(e / ReduceSum(e, {2}, true), v).Named("o")});
    const Plan plan = *PlanFusion(graph, DeviceLimits{});
    ASSERT_EQ(plan.kernels.size(), 1u) << fill;
    EXPECT_EQ(plan.kernels[0].attention().causal, causal) << fill;
  }
}

TEST(AttentionTest, ChainsThatDoNotQualifyStayUnfusedAndSayWhy) {
  struct Case {
    std::string what;
    std::function<Graph()> build;
    std::string reason;
  };
  auto chain = [](DType dtype, int64_t d, bool scores_out) {
    GraphBuilder b;
    Value q = b.Input("q", dtype, {2, 64, d});
    Value k = b.Input("k", dtype, {2, 64, d});
    Value v = b.Input("v", dtype, {2, 64, d});
    Value s = Matmul(q, Transpose(k, {0, 2, 1})).Named("s");
    Value e = Exp(s - ReduceMax(s, {2}, true));
    Value o = Matmul(e / ReduceSum(e, {2}, true), v).Named("o");
    return scores_out ? *b.Build({o, s}) : *b.Build({o});
  };
  const Case cases[] = {
      {"scores also an output", [&] { return chain(DType::kBF16, 64, true); },
       "matmul \"o\" reads a softmax but is no attention kernel: \"s\" is a graph output, so it is stored"},
      {"head dim 96", [&] { return chain(DType::kBF16, 96, false); },
       "matmul \"o\" reads a softmax but is no attention kernel: head dims 96 (Q, K) and 96 (V) must be 64 or 128"},
      {"f32", [&] { return chain(DType::kF32, 64, false); },
       "matmul \"o\" reads a softmax but is no attention kernel: Q, K and V are f32; the attention kernel takes f16 "
       "or bf16"},
  };
  for (const Case& c : cases) {
    const Graph graph = c.build();
    const Plan plan = *PlanFusion(graph, DeviceLimits{});
    for (const Kernel& k : plan.kernels) EXPECT_NE(k.kind, KernelKind::kAttention) << c.what;
    ASSERT_EQ(plan.attention_refusals.size(), 1u) << c.what;
    EXPECT_EQ(plan.attention_refusals[0].reason, c.reason);
    // --explain says it.
    EXPECT_THAT(PlanExplain(graph, plan), ::testing::HasSubstr("\nnot attention: " + c.reason + "\n")) << c.what;
  }
  // A plain matmul reads no softmax: nothing to explain.
  EXPECT_TRUE(PlanFusion(*MatmulRelu(DType::kBF16, 256, 256, 256), DeviceLimits{})->attention_refusals.empty());
}

}  // namespace
}  // namespace kiln
