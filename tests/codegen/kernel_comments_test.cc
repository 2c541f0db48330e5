// The comment `kiln emit` puts before each kernel: its launch configuration
// and, for each parameter, the graph value it carries and where it comes
// from or goes.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_codegen.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(KernelCommentsTest, ParametersNameTheirValuesAndNeighbours) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {64, 32});
  Value y = (Exp(x) / ReduceSum(Exp(x), {1}, true)).Named("y");
  Value t = Transpose(y, {1, 0}).Named("t");
  Value flat = Reshape(t, {2048}).Named("flat");
  Value z = Transpose(Reshape(flat, {32, 64}).Named("back"), {1, 0}).Named("z");
  const Graph graph = *b.Build({y, z});
  DeviceLimits limits;
  const Plan plan = *PlanFusion(graph, limits);
  absl::StatusOr<std::vector<GeneratedKernel>> kernels = GeneratePlan(graph, plan, limits);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  const std::vector<std::string> comments = KernelComments(graph, plan, *kernels);
  ASSERT_EQ(comments.size(), 3u);
  EXPECT_EQ(comments[0],
            "// ---- kernel f0_row_reduction: row_reduction, persistent (rows packed in warps), 8 lanes per row, 4 "
            "rows per warp\n"
            "// launch: grid 2, block 256, cluster 1, dynamic shared memory 0 bytes\n"
            "// parameters:\n"
            "//   in0   x  f32[64,32]  graph input\n"
            "//   out0  y  f32[64,32]  graph output; read by f1_transpose\n");
  EXPECT_EQ(comments[1],
            "// ---- kernel f1_transpose: transpose, tiled 64x32 (16-byte vectors)\n"
            "// launch: grid 1, block 128, cluster 1, dynamic shared memory 0 bytes\n"
            "// parameters:\n"
            "//   in0   y  f32[64,32]  written by f0_row_reduction\n"
            "//   out0  t  f32[32,64]  read by f2_transpose\n");
  EXPECT_EQ(comments[2],
            "// ---- kernel f2_transpose: transpose, tiled 32x64 (16-byte vectors)\n"
            "// launch: grid 1, block 128, cluster 1, dynamic shared memory 0 bytes\n"
            "// parameters:\n"
            "//   in0   back  f32[32,64]  a reshape of t\n"
            "//   out0  z     f32[64,32]  graph output\n");
}

TEST(KernelCommentsTest, ClusterAndSharedMemoryAreShown) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {512, 131072});
  Value y = (Exp(x) / ReduceSum(Exp(x), {1}, true)).Named("y");  // split over a cluster of 8, 64 KB a block
  Value a = b.Input("a", DType::kBF16, {1024, 1024});
  Value w = b.Input("w", DType::kBF16, {1024, 1024});
  Value c = Relu(Matmul(a, w)).Named("c");
  const Graph graph = *b.Build({y, c});
  DeviceLimits limits;
  const Plan plan = *PlanFusion(graph, limits);
  absl::StatusOr<std::vector<GeneratedKernel>> kernels = GeneratePlan(graph, plan, limits);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  const std::vector<std::string> comments = KernelComments(graph, plan, *kernels);
  ASSERT_EQ(comments.size(), 2u);
  for (size_t k = 0; k < comments.size(); ++k) {
    const LaunchShape& launch = (*kernels)[k].launch;
    EXPECT_NE(comments[k].find(absl::StrCat("// launch: grid ", launch.grid, ", block ", launch.block, ", cluster ",
                                            launch.cluster, ", dynamic shared memory ")),
              std::string::npos)
        << comments[k];
  }
  EXPECT_NE(comments[0].find("cluster 8, dynamic shared memory 65,536 bytes"), std::string::npos) << comments[0];
  // The matmul reads and writes through TMA descriptors of its tensors' memory.
  EXPECT_EQ(comments[1],
            "// ---- kernel f1_matmul: matmul, wgmma, 128x64x64 tiles, 8 stages, epilogue warps\n"
            "// launch: grid 128, block 384, cluster 1, dynamic shared memory 214,160 bytes\n"
            "// parameters:\n"
            "//   map0  a  bf16[1024,1024]  TMA descriptor of its memory, read; graph input\n"
            "//   map1  w  bf16[1024,1024]  TMA descriptor of its memory, read; graph input\n"
            "//   map2  c  bf16[1024,1024]  TMA descriptor of its memory, written; graph output\n");
}

}  // namespace
}  // namespace kiln
