// Pointwise kernels with broadcast operands compile with NVRTC for sm_90a
// (no GPU needed) and read a broadcast row as one vector and a broadcast
// column as one element per vector where every vector lies in one row; a
// whole tile (all but the last block's) loads without bounds checks.
#include "codegen/pointwise_emitter.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

GeneratedKernel EmitOnly(const Graph& graph) {
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  EXPECT_EQ(plan.kernels.size(), 1u);
  absl::StatusOr<GeneratedKernel> generated = EmitPointwiseKernel(graph, plan.kernels.front(), DeviceLimits{});
  EXPECT_TRUE(generated.ok()) << generated.status();
  return generated.ok() ? *generated : GeneratedKernel{};
}

void ExpectCompiles(const GeneratedKernel& generated) {
  absl::StatusOr<std::string> cubin = CompileToCubin({generated.Source(), generated.name}, DeviceLimits{}.Arch());
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_EQ(cubin->substr(0, 4), "\x7f" "ELF");
}

// (a * b + c) * d: a and d full, b a row [cols], c a column [rows, 1].
Graph FourInputs(DType dtype, int64_t rows, int64_t cols) {
  GraphBuilder g;
  Value a = g.Input("a", dtype, {rows, cols});
  Value b = g.Input("b", dtype, {cols});
  Value c = g.Input("c", dtype, {rows, 1});
  Value d = g.Input("d", dtype, {rows, cols});
  return *g.Build({((a * b + c) * d).Named("y")});
}

TEST(PointwiseEmitterTest, BroadcastRowsAndColumnsLoadOncePerVector) {
  const GeneratedKernel k = EmitOnly(FourInputs(DType::kBF16, 32768, 16384));
  EXPECT_THAT(k.body, HasSubstr("x_in1[u] = kiln_load_vec<unsigned short, kV>(in1 + (((v * kV) % 16384LL)));"));
  EXPECT_THAT(k.body, HasSubstr("s_in2[u] = in2[(((v * kV) / 16384LL))];"));
  EXPECT_THAT(k.body, HasSubstr("kiln_bf16_to_f32(x_in1[u].v[j])"));
  EXPECT_THAT(k.body, HasSubstr("kiln_bf16_to_f32(s_in2[u])"));
  ExpectCompiles(k);
}

TEST(PointwiseEmitterTest, WholeTilesLoadWithoutBoundsChecks) {
  const GeneratedKernel k = EmitOnly(FourInputs(DType::kF16, 333, 12344));
  EXPECT_THAT(k.body, HasSubstr("  constexpr long long stride = 256;\n"));
  EXPECT_THAT(k.body, HasSubstr("  if ((static_cast<long long>(blockIdx.x) + 1) * stride * kUnroll <= kVectors) {\n"));
  EXPECT_THAT(k.body, HasSubstr("      if (v >= kVectors) continue;\n"));
  ExpectCompiles(k);
}

// A last dim that is no multiple of the vector puts vectors across rows:
// broadcast operands are read element by element there.
TEST(PointwiseEmitterTest, OddRowsReadBroadcastsPerElement) {
  const GeneratedKernel k = EmitOnly(FourInputs(DType::kBF16, 333, 12345));
  EXPECT_THAT(k.body, Not(HasSubstr("x_in1[u]")));
  EXPECT_THAT(k.body, Not(HasSubstr("s_in2[u]")));
  EXPECT_THAT(k.body, HasSubstr("in1[((i % 12345LL))]"));
  ExpectCompiles(k);
}

// Broadcasts over three dims (a plane, a row per batch, a column per batch,
// one element): every variant compiles in every float type.
TEST(PointwiseEmitterTest, EveryBroadcastVariantCompiles) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    GraphBuilder g;
    Value x = g.Input("x", dtype, {4, 24, 64});
    Value plane = g.Input("plane", dtype, {24, 64});
    Value row = g.Input("row", dtype, {4, 1, 64});
    Value column = g.Input("column", dtype, {4, 24, 1});
    Value scalar = g.Input("scalar", dtype, {1});
    const GeneratedKernel k = EmitOnly(*g.Build({(x * plane + row + column + scalar).Named("y")}));
    EXPECT_THAT(k.body, HasSubstr("s_in4[u] = in4[0LL];"));
    EXPECT_THAT(k.body, HasSubstr("x_in2[u] = kiln_load_vec<"));
    ExpectCompiles(k);
  }
}

}  // namespace
}  // namespace kiln
