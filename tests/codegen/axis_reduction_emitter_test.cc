// The column-tile kernels of reductions over leading and middle axes: every
// collapsed form, split and unsplit, in each float dtype and reduce op,
// compiles with NVRTC for an H200 and an A100 (no GPU needed); the launch
// follows the schedule, and a split kernel declares its partials and counters.
#include "codegen/axis_reduction_emitter.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_codegen.h"
#include "codegen/launch_grid.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Form {
  Dims shape;
  std::vector<int64_t> axes;
};

// Leading, middle, merged and separated axes; narrow, wide, odd and
// single columns; tiles that split and tiles that do not.
const std::vector<Form>& Forms() {
  static const std::vector<Form> forms = {
      {{65536, 4096}, {0}},      {{1000000, 8}, {0}},   {{100000, 7}, {0}},        {{7, 100000}, {0}},
      {{4097, 3}, {0}},          {{65537, 1}, {0}},     {{8, 4096, 1024}, {1}},    {{128, 33, 4093}, {1}},
      {{2, 1000000, 3}, {1}},    {{20000, 4, 8}, {1}},  {{1000000, 4, 8}, {1}},    {{64, 512, 96}, {0, 1}},
      {{64, 128, 256}, {0, 2}},  {{3, 4, 5, 6}, {1, 3}}, {{1, 7, 1, 5}, {0, 1}},   {{4, 1, 8}, {0, 1}},
  };
  return forms;
}

// One graph reducing an input of each form, each op in turn (every fourth keeps its dims).
Graph ReductionsOf(DType dtype) {
  GraphBuilder b;
  std::vector<Value> outputs;
  for (size_t i = 0; i < Forms().size(); ++i) {
    const Form& form = Forms()[i];
    Value x = b.Input(absl::StrCat("x", i), dtype, form.shape);
    const bool keepdims = i % 4 == 3;
    Value y;
    switch (i % 4) {
      case 0: y = ReduceSum(x, form.axes, keepdims); break;
      case 1: y = ReduceMean(x, form.axes, keepdims); break;
      case 2: y = ReduceMax(x, form.axes, keepdims); break;
      default: y = ReduceMin(x, form.axes, keepdims); break;
    }
    outputs.push_back(y.Named(absl::StrCat("y", i)));
  }
  return *b.Build(outputs);
}

void ExpectThePlanCompiles(const Graph& graph, const DeviceLimits& limits) {
  for (bool fuse : {true, false}) {
    absl::StatusOr<Plan> plan = fuse ? PlanFusion(graph, limits) : PlanUnfused(graph, limits);
    ASSERT_TRUE(plan.ok()) << plan.status();
    int reductions = 0;
    for (const Kernel& k : plan->kernels) reductions += k.kind == KernelKind::kReduction;
    EXPECT_EQ(reductions, static_cast<int>(Forms().size()));
    absl::StatusOr<std::string> source = EmitTranslationUnit(graph, *plan, limits);
    ASSERT_TRUE(source.ok()) << source.status();
    absl::StatusOr<std::string> cubin = CompileToCubin({*source, "axis_reductions"}, limits.Arch());
    EXPECT_TRUE(cubin.ok()) << (fuse ? "fused: " : "unfused: ") << cubin.status();
  }
}

DeviceLimits A100() {
  DeviceLimits limits;
  limits.sm_count = 108;
  limits.compute_capability = 80;
  limits.supports_clusters = false;
  return limits;
}

TEST(AxisReductionEmitterTest, EveryFormDtypeAndOpCompilesForHopper) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    ExpectThePlanCompiles(ReductionsOf(dtype), DeviceLimits{});
  }
}

TEST(AxisReductionEmitterTest, EveryFormCompilesForAnA100) {
  ExpectThePlanCompiles(ReductionsOf(DType::kBF16), A100());
}

GeneratedKernel FirstKernel(const Graph& graph) {
  absl::StatusOr<Plan> plan = PlanFusion(graph, DeviceLimits{});
  EXPECT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<GeneratedKernel> kernel = GenerateKernel(graph, plan->kernels.front(), DeviceLimits{});
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  return *kernel;
}

TEST(AxisReductionEmitterTest, SplitKernelsHoldTheirPartialsAndCountersInTheModule) {
  GraphBuilder b;
  const Graph graph = *b.Build({ReduceSum(b.Input("x", DType::kF32, {65536, 4096}), {0}).Named("y")});
  const GeneratedKernel k = FirstKernel(graph);
  EXPECT_EQ(k.launch.grid, 32u * 33);
  EXPECT_EQ(k.launch.block, 256u);
  EXPECT_EQ(k.launch.cluster, 1u);
  // A 4-float partial for each of the 32 lanes of 1056 blocks; a counter per tile, zero at load.
  EXPECT_THAT(k.body, HasSubstr("__device__ KilnVec<float, 4> kiln_f0_reduction_partials[33792];"));
  EXPECT_THAT(k.body, HasSubstr("__device__ unsigned kiln_f0_reduction_arrivals[32] = {};"));
  EXPECT_THAT(k.body, HasSubstr("__launch_bounds__(256, 4)"));
}

TEST(AxisReductionEmitterTest, UnsplitKernelsWriteOutputsStraightAway) {
  GraphBuilder b;
  const Graph graph = *b.Build({ReduceMax(b.Input("x", DType::kBF16, {1000, 1000, 32}), {1}).Named("y")});
  const GeneratedKernel k = FirstKernel(graph);
  EXPECT_EQ(k.launch.grid, 1000u);
  EXPECT_THAT(k.body, Not(HasSubstr("_partials")));
  EXPECT_THAT(k.body, Not(HasSubstr("kiln_split_arrive")));
}

TEST(AxisReductionEmitterTest, TilesPastTheGridLimitLoopOverACappedGrid) {
  GraphBuilder b;
  const Graph graph =
      *b.Build({ReduceSum(b.Input("x", DType::kF32, {2, int64_t{1} << 44}), {0}).Named("y")});
  const GeneratedKernel k = FirstKernel(graph);
  EXPECT_EQ(k.launch.grid, static_cast<unsigned>(kMaxGridBlocks));
  EXPECT_THAT(k.body, HasSubstr("kBlocks = 17179869184LL"));
  EXPECT_THAT(k.body, HasSubstr("block += gridDim.x"));
}

}  // namespace
}  // namespace kiln
