// Transpose kernels of every strategy, dtype and edge compile with NVRTC for
// sm_90a (no GPU needed), and launch a block per tile or chunk, the grid
// capped and looped over rather than truncated.
#include "codegen/transpose_emitter.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/launch_grid.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

struct Case {
  Dims dims;
  std::vector<int64_t> perm;
};

// 2-D, batched last two, 3-D and 4-D perms, odd and power-of-two sizes,
// dims of size 1, a kept last dim, and nothing moving at all.
const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {{64, 64}, {1, 0}},           {{33, 65}, {1, 0}},          {{1000, 3}, {1, 0}},
      {{3, 1000}, {1, 0}},          {{4097, 31}, {1, 0}},        {{130, 200}, {1, 0}},
      {{7, 33, 1000}, {0, 2, 1}},   {{5, 6, 7}, {2, 1, 0}},      {{5, 6, 7}, {1, 2, 0}},
      {{5, 6, 7}, {2, 0, 1}},       {{3, 64, 17}, {2, 1, 0}},    {{4, 12, 33, 64}, {0, 2, 1, 3}},
      {{4, 12, 33, 63}, {0, 2, 1, 3}}, {{2, 3, 5, 7}, {3, 1, 2, 0}}, {{8, 16, 32, 16}, {0, 2, 3, 1}},
      {{7, 1, 9}, {2, 1, 0}},       {{3, 1, 5}, {0, 1, 2}},      {{1, 4099}, {1, 0}},
      {{1, 1}, {1, 0}},             {{2, 2, 3000}, {1, 0, 2}},
      // Several row tiles whose writes straddle vector boundaries (a halo of
      // the next tile's rows), with reads aligned, straddling or contiguous.
      {{333, 257}, {1, 0}},         {{4093, 8191}, {1, 0}},      {{129, 64}, {1, 0}},
      {{3, 333, 777}, {0, 2, 1}},   {{2, 4097, 3}, {0, 2, 1}},   {{2, 129, 3, 65}, {0, 2, 3, 1}},
  };
  return cases;
}

GeneratedKernel EmitOnly(const Graph& graph) {
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  EXPECT_EQ(plan.kernels.size(), 1u);
  absl::StatusOr<GeneratedKernel> generated = EmitTranspose(graph, plan.kernels.front());
  EXPECT_TRUE(generated.ok()) << generated.status();
  return generated.ok() ? *generated : GeneratedKernel{};
}

void ExpectCompiles(const Graph& graph) {
  const GeneratedKernel generated = EmitOnly(graph);
  absl::StatusOr<std::string> cubin = CompileToCubin({generated.Source(), generated.name}, DeviceLimits{}.Arch());
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF");
}

Graph TransposeGraph(DType dtype, const Dims& dims, const std::vector<int64_t>& perm) {
  GraphBuilder b;
  return *b.Build({Transpose(b.Input("x", dtype, dims), perm).Named("t")});
}

TEST(TransposeEmitterTest, EveryCaseCompilesInEveryFloatType) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
    for (const Case& c : Cases()) {
      SCOPED_TRACE(absl::StrCat(DTypeName(dtype), DimsString(c.dims), " perm ", DimsString(c.perm)));
      ExpectCompiles(TransposeGraph(dtype, c.dims, c.perm));
    }
  }
}

TEST(TransposeEmitterTest, IntegerAndBoolTransposesCompile) {
  for (DType dtype : {DType::kI32, DType::kBool}) {
    // The last three write straddling rows over several tiles, with batches
    // on vector boundaries and off them.
    for (const Case& c : {Case{{33, 65}, {1, 0}}, Case{{3, 17, 5}, {1, 0, 2}}, Case{{64, 32, 3}, {2, 0, 1}},
                          Case{{333, 257}, {1, 0}}, Case{{4093, 8191}, {1, 0}}, Case{{3, 333, 777}, {0, 2, 1}}}) {
      SCOPED_TRACE(absl::StrCat(DTypeName(dtype), DimsString(c.dims), " perm ", DimsString(c.perm)));
      ExpectCompiles(TransposeGraph(dtype, c.dims, c.perm));
    }
  }
}

TEST(TransposeEmitterTest, ComputedOperandsCompileWithoutAnInput) {
  GraphBuilder b;
  const Graph iota = *b.Build({Transpose(b.Iota(DType::kF32, {33, 65}, 1), {1, 0}).Named("t")});
  EXPECT_THAT(EmitOnly(iota).body, HasSubstr("(float* __restrict__ out0)"));
  ExpectCompiles(iota);
  GraphBuilder c;
  ExpectCompiles(*c.Build({Transpose(c.Constant(2.5, DType::kBF16), {}).Named("t")}));
}

TEST(TransposeEmitterTest, ABlockPerTileOrChunk) {
  const GeneratedKernel tiled = EmitOnly(TransposeGraph(DType::kF32, {16384, 8192}, {1, 0}));
  EXPECT_EQ(tiled.launch.grid, 32768u);
  EXPECT_EQ(tiled.launch.block, 256u);
  EXPECT_EQ(tiled.launch.shared_bytes, 0u);
  EXPECT_THAT(tiled.body, HasSubstr("struct f0_transpose_tile {"));
  EXPECT_THAT(tiled.body, HasSubstr("kiln_transpose_tile<T, Tile>(in0, out0, in_base + r0 * Tile::kInRowStride + c0, "
                                    "out_base + c0 * Tile::kOutColStride + r0, r0, c0);"));
  const GeneratedKernel half = EmitOnly(TransposeGraph(DType::kBF16, {16384, 8192}, {1, 0}));
  EXPECT_EQ(half.launch.grid, 16384u);
  EXPECT_EQ(half.launch.block, 128u);
  EXPECT_THAT(half.body, HasSubstr("static constexpr int kTileR = 128;"));
  const GeneratedKernel runs = EmitOnly(TransposeGraph(DType::kBF16, {8, 16, 1024, 128}, {0, 2, 1, 3}));
  EXPECT_EQ(runs.launch.grid, 2048u);
  // 1024 vectors of a chunk touch at most 1024 / 16 + 2 runs.
  EXPECT_THAT(runs.body, HasSubstr("__shared__ long long run_offset[66];"));
  EXPECT_EQ(EmitOnly(TransposeGraph(DType::kF32, {3, 1, 5}, {0, 1, 2})).launch.grid, 1u);
}

// Where every batch starts on a vector boundary in both tensors the leads
// of a tile's rows are constants of the kernel; elsewhere each tile computes
// them. Straddling writes over several row tiles take 120 rows a tile.
TEST(TransposeEmitterTest, BatchesOnVectorBoundariesMakeTheLeadsConstants) {
  const GeneratedKernel two = EmitOnly(TransposeGraph(DType::kBF16, {4093, 8191}, {1, 0}));
  EXPECT_THAT(two.body, HasSubstr("static constexpr bool kAlignedBatches = true;"));
  EXPECT_THAT(two.body, HasSubstr("static constexpr int kTileR = 120;"));
  EXPECT_EQ(two.launch.grid, 35u * 128u);
  EXPECT_THAT(EmitOnly(TransposeGraph(DType::kBF16, {4, 1024, 1022}, {0, 2, 1})).body,
              HasSubstr("static constexpr bool kAlignedBatches = true;"));
  EXPECT_THAT(EmitOnly(TransposeGraph(DType::kBF16, {3, 333, 777}, {0, 2, 1})).body,
              HasSubstr("static constexpr bool kAlignedBatches = false;"));
}

TEST(TransposeEmitterTest, TilesPastTheGridLimitLoopOverACappedGrid) {
  const GeneratedKernel k = EmitOnly(TransposeGraph(DType::kF32, {int64_t{1} << 24, int64_t{1} << 24}, {1, 0}));
  EXPECT_EQ(k.launch.grid, static_cast<unsigned>(kMaxGridBlocks));
  EXPECT_THAT(k.body, HasSubstr("constexpr long long kItems = 68719476736LL;"));
  EXPECT_THAT(k.body, HasSubstr("for (long long item = blockIdx.x; item < kItems; item += gridDim.x)"));
}

}  // namespace
}  // namespace kiln
