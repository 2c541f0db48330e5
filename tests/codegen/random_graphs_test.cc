// The GPU differential suite's graphs, on a machine without a GPU: every one
// of them plans, fused and unfused, and every kernel generates; a sample of
// them compiles with NVRTC. So a generator change that yields graphs kiln
// refuses is caught in CI, not on the GPU machine.
#include "tests/random_graphs.h"

#include <map>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_codegen.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

TEST(RandomGraphsTest, EveryDifferentialGraphPlansAndGenerates) {
  std::mt19937_64 rng(kDifferentialSeed);
  std::map<GraphFamily, int> families;
  std::map<DType, int> dtypes;
  std::map<KernelKind, int> kinds;
  for (int i = 0; i < kDifferentialGraphs; ++i) {
    const RandomCase c = RandomDifferentialGraph(rng, i);
    ++families[c.family];
    for (NodeId input : c.graph.inputs()) ++dtypes[c.graph.node(input).dtype];
    for (bool fuse : {true, false}) {
      absl::StatusOr<Plan> plan = fuse ? PlanFusion(c.graph, DeviceLimits{}) : PlanUnfused(c.graph, DeviceLimits{});
      ASSERT_TRUE(plan.ok()) << "graph " << i << ": " << plan.status();
      for (const Kernel& kernel : plan->kernels) {
        ++kinds[kernel.kind];
        absl::StatusOr<GeneratedKernel> generated = GenerateKernel(c.graph, kernel, DeviceLimits{});
        ASSERT_TRUE(generated.ok()) << "graph " << i << " " << kernel.name << ": " << generated.status();
      }
      // A sample compiles: one translation unit per plan.
      if (i % 100 == 0) {
        absl::StatusOr<std::string> source = EmitTranslationUnit(c.graph, *plan, DeviceLimits{});
        ASSERT_TRUE(source.ok()) << source.status();
        EXPECT_TRUE(CompileToCubin({*source, absl::StrCat("graph", i)}, "sm_90").ok()) << "graph " << i;
      }
    }
  }
  EXPECT_EQ(families[GraphFamily::kPointwise], 350);
  EXPECT_EQ(families[GraphFamily::kMatmul], 200);
  EXPECT_EQ(families[GraphFamily::kInteger], 200);
  EXPECT_EQ(families[GraphFamily::kLayout], 250);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kBool}) {
    EXPECT_GT(dtypes[dtype], 50) << DTypeName(dtype);
  }
  for (KernelKind kind : {KernelKind::kPointwise, KernelKind::kRowReduction, KernelKind::kReduction,
                          KernelKind::kMatmul, KernelKind::kTranspose}) {
    EXPECT_GT(kinds[kind], 50) << KernelKindName(kind);
  }
}

}  // namespace
}  // namespace kiln
