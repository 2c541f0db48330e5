// Reductions over leading and middle axes on a GPU: every collapsed form,
// split over blocks and not, in f32, bf16 and f16, for each reduce op and odd
// sizes, must match the reference interpreter (fused and unfused plans, fresh
// random inputs, outputs poisoned first); and a split reduction must give
// bit-identical results run after run. Every test skips without a CUDA device.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tests/differential.h"

namespace kiln {
namespace {

class AxisReductionGpuTest : public SharedDeviceTest {};

struct Case {
  DType dtype;
  OpKind op;
  Dims shape;
  std::vector<int64_t> axes;
  bool keepdims = false;
};

std::string Describe(const Case& c) {
  return absl::StrCat(OpName(c.op), " over [", absl::StrJoin(c.axes, ","), "] of ", DimsString(c.shape), " ",
                      DTypeName(c.dtype), c.keepdims ? " keepdims" : "");
}

Graph GraphOf(const Case& c) {
  GraphBuilder b;
  Value x = b.Input("x", c.dtype, c.shape);
  Value y;
  switch (c.op) {
    case OpKind::kReduceMean: y = ReduceMean(x, c.axes, c.keepdims); break;
    case OpKind::kReduceMax: y = ReduceMax(x, c.axes, c.keepdims); break;
    case OpKind::kReduceMin: y = ReduceMin(x, c.axes, c.keepdims); break;
    default: y = ReduceSum(x, c.axes, c.keepdims); break;
  }
  return *b.Build({y.Named("y")});
}

DeviceLimits WithSms(int sm_count) {
  DeviceLimits limits;
  limits.sm_count = sm_count;
  return limits;
}

// The kernel's split on `limits`, planned without a GPU; 0 where the plan has
// no axis reduction (a reduction over axes of size 1 is a pointwise kernel).
int SplitOf(const Graph& graph, const DeviceLimits& limits) {
  absl::StatusOr<Plan> plan = PlanFusion(graph, limits);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok() || plan->kernels.front().kind != KernelKind::kReduction) return 0;
  return plan->kernels.front().axis_reduction().split;
}

// Each case on the device's own limits, then unsplit (one SM's worth of
// blocks) and split as far as the rows allow (a hundred thousand SMs' worth).
void ExpectCasesMatch(const std::vector<Case>& cases, const Device& device) {
  KernelCache cache({.use_disk = false});
  int split = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Graph graph = GraphOf(cases[i]);
    for (const std::optional<DeviceLimits>& limits :
         {std::optional<DeviceLimits>(), std::optional(WithSms(1)), std::optional(WithSms(100000))}) {
      const std::string where = limits.has_value() ? absl::StrCat(", ", limits->sm_count, " SMs") : "";
      EXPECT_EQ(CheckAgainstReference(graph, device, cache, 1000 + i, {.limits = limits}), "") << Describe(cases[i]) << where;
    }
    split += SplitOf(graph, WithSms(100000)) > 1;
  }
  EXPECT_GT(split, 0) << "no case splits its rows";
}

// Sums cancel: a single output of many rows could miss the f32 tolerance by
// chance, so sums and means get 8 columns or more and max and min the rest.
TEST_F(AxisReductionGpuTest, LeadingAxisOfOddRowCountsMatches) {
  const DType dtypes[] = {DType::kF32, DType::kBF16, DType::kF16};
  std::vector<Case> cases;
  int n = 0;
  for (int64_t rows : {1, 3, 33, 1000, 4097, 65537}) {
    for (int64_t columns : {1, 3, 8, 64, 129}) {
      const OpKind op = columns < 8 ? (n % 2 == 0 ? OpKind::kReduceMax : OpKind::kReduceMin)
                                    : (n % 2 == 0 ? OpKind::kReduceSum : OpKind::kReduceMean);
      cases.push_back({dtypes[n % 3], op, {rows, columns}, {0}, n % 4 == 1});
      ++n;
    }
  }
  ExpectCasesMatch(cases, device());
}

TEST_F(AxisReductionGpuTest, WideColumnsMatch) {
  ExpectCasesMatch({{DType::kF32, OpKind::kReduceSum, {8192, 2048}, {0}},
                    {DType::kBF16, OpKind::kReduceMean, {4097, 1000}, {0}},
                    {DType::kF16, OpKind::kReduceMax, {33, 4097}, {0}},
                    {DType::kF32, OpKind::kReduceMin, {3, 65537}, {0}, true},
                    {DType::kBF16, OpKind::kReduceSum, {7, 100000}, {0}}},
                   device());
}

TEST_F(AxisReductionGpuTest, MiddleAxisMatches) {
  ExpectCasesMatch({{DType::kF32, OpKind::kReduceSum, {5, 33, 4097}, {1}},
                    {DType::kBF16, OpKind::kReduceMax, {2, 65537, 3}, {1}},
                    {DType::kF16, OpKind::kReduceMean, {3, 1000, 64}, {1}, true},
                    {DType::kF32, OpKind::kReduceMean, {1000, 3, 64}, {1}},
                    {DType::kF32, OpKind::kReduceSum, {20000, 4, 8}, {1}},
                    {DType::kBF16, OpKind::kReduceMin, {64, 4097, 1}, {1}},
                    {DType::kF32, OpKind::kReduceSum, {128, 33, 1023}, {1}}},
                   device());
}

TEST_F(AxisReductionGpuTest, MergedAndGatheredAxesMatch) {
  ExpectCasesMatch({{DType::kF32, OpKind::kReduceSum, {33, 1000, 8}, {0, 1}},
                    {DType::kBF16, OpKind::kReduceMean, {3, 4097, 64}, {0, 1}, true},
                    {DType::kF16, OpKind::kReduceMax, {5, 7, 11, 13}, {1, 2}},
                    {DType::kF32, OpKind::kReduceSum, {33, 64, 1000}, {0, 2}},
                    {DType::kBF16, OpKind::kReduceMax, {3, 4, 5, 6}, {1, 3}},
                    {DType::kF32, OpKind::kReduceMean, {5, 1000, 3, 8}, {0, 2}, true},
                    {DType::kF16, OpKind::kReduceSum, {1, 4097, 1, 64}, {0, 1}}},
                   device());
}

// The same inputs through one executable twice and through a second
// executable of the same plan: split reductions combine in a fixed order.
TEST_F(AxisReductionGpuTest, SplitReductionsAreBitIdenticalRunToRun) {
  KernelCache cache({.use_disk = false});
  for (const Case& c : {Case{DType::kF32, OpKind::kReduceSum, {65537, 64}, {0}},
                        Case{DType::kBF16, OpKind::kReduceMean, {8192, 2048}, {0}},
                        Case{DType::kF32, OpKind::kReduceSum, {2, 65537, 3}, {1}}}) {
    const Graph graph = GraphOf(c);
    ASSERT_GT(SplitOf(graph, DeviceLimitsOf(device().info())), 1) << Describe(c);
    const std::vector<HostTensor> inputs = {RandomTensor(c.dtype, c.shape, 7)};
    std::vector<std::vector<double>> results;
    for (int compile = 0; compile < 2; ++compile) {
      absl::StatusOr<std::unique_ptr<Executable>> exe =
          Executable::Compile(graph, device(), cache, {.fuse = true, .autotune = false});
      ASSERT_TRUE(exe.ok()) << exe.status();
      for (int run = 0; run < 3; ++run) {
        absl::StatusOr<std::vector<HostTensor>> out = (*exe)->RunOnHost(inputs);
        ASSERT_TRUE(out.ok()) << out.status();
        results.push_back((*out)[0].data);
      }
    }
    for (size_t r = 1; r < results.size(); ++r) EXPECT_EQ(results[r], results[0]) << Describe(c) << ", run " << r;
  }
}

}  // namespace
}  // namespace kiln
