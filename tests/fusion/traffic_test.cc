// The traffic model's arithmetic on hostile sizes: every tensor is within the
// element limit, but kernels and plans that would move more than 2^62 bytes
// are refused with a message naming the kernel, never overflowed.
#include "fusion/traffic.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

constexpr int64_t kLargest = int64_t{1} << 48;  // elements: 2^50 bytes of f32

// y_1 = neg(x), y_i = neg(y_{i-1}): one fused kernel, `count` unfused ones.
Graph NegChain(int count) {
  GraphBuilder b;
  Value v = b.Input("x", DType::kF32, {kLargest});
  for (int i = 1; i <= count; ++i) v = Neg(v).Named(absl::StrCat("n", i));
  return *b.Build({v});
}

TEST(TrafficTest, TenThousandKernelsOverALargeTensorAreRefused) {
  const Graph graph = NegChain(10000);
  absl::StatusOr<Plan> fused = PlanFusion(graph, DeviceLimits{});
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(fused->total.bytes(), 2 * 4 * kLargest);
  // Each unfused kernel moves 2^51 bytes: 2048 of them reach 2^62 exactly.
  ExpectInvalid(PlanUnfused(graph, DeviceLimits{}).status(),
                "the unfused plan moves more than 2^62 bytes: the total passes the limit at kernel "
                "u2048_neg (first node \"n2049\" (neg))");
  absl::StatusOr<Plan> at_limit = PlanUnfused(NegChain(2048), DeviceLimits{});
  ASSERT_TRUE(at_limit.ok()) << at_limit.status();
  EXPECT_EQ(at_limit->total.bytes(), kMaxPlanBytes);
}

TEST(TrafficTest, TwentyThousandLargeInputsIntoOneKernelAreRefused) {
  GraphBuilder b;
  Value sum = b.Input("x0", DType::kF32, {kLargest});
  for (int i = 1; i < 20000; ++i) {
    sum = (sum + b.Input(absl::StrCat("x", i), DType::kF32, {kLargest})).Named(absl::StrCat("s", i));
  }
  const Graph graph = *b.Build({sum});
  ExpectInvalid(PlanFusion(graph, DeviceLimits{}).status(),
                "kernel f0_pointwise (first node \"s1\" (add)) moves more than 2^62 bytes");
}

TEST(TrafficTest, ReadsAndWritesTogetherCountAgainstTheLimit) {
  // 4096 outputs of 2^50 bytes are exactly 2^62 written; reading x as well
  // takes the kernel past the limit.
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {kLargest});
  std::vector<Value> outputs;
  for (int i = 0; i < 4096; ++i) outputs.push_back(Neg(x).Named(absl::StrCat("y", i)));
  const Graph graph = *b.Build(outputs);
  ExpectInvalid(PlanFusion(graph, DeviceLimits{}).status(),
                "kernel f0_pointwise (first node \"y0\" (neg)) moves more than 2^62 bytes");
}

// Row kernels weigh the bytes of every full-shape input a row holds; with
// thousands of rows as long as the element limit, that product passes int64.
TEST(TrafficTest, HeldRowsPastInt64AreRefusedByTheirTraffic) {
  GraphBuilder b;
  Value sum = b.Input("x0", DType::kF32, {1, kLargest});
  for (int i = 1; i < 9000; ++i) {
    sum = (sum + b.Input(absl::StrCat("x", i), DType::kF32, {1, kLargest})).Named(absl::StrCat("s", i));
  }
  Value row = ReduceSum(sum, {1}).Named("row");
  Value y = (sum / row).Named("y");
  const Graph graph = *b.Build({y});
  ExpectInvalid(PlanFusion(graph, DeviceLimits{}).status(),
                "kernel f0_row_reduction (first node \"s1\" (add)) moves more than 2^62 bytes");
}

}  // namespace
}  // namespace kiln
