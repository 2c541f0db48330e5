// Pointwise kernels with broadcast operands compile with NVRTC for sm_90a
// (no GPU needed) and read a broadcast row as one vector and a broadcast
// column as one element per vector where every vector lies in one row; a
// whole tile (all but the last block's) loads without bounds checks. A
// reduction over axes of size 1 streams its operand and copies its value.
#include "codegen/pointwise_emitter.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/pointwise_test_graphs.h"
#include "tests/row_test_graphs.h"

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
  EXPECT_THAT(k.body, HasSubstr("x_in1[u] = kiln_load_vec<unsigned short, kV>(in1 + (col[u]));"));
  EXPECT_THAT(k.body, HasSubstr("s_in2[u] = in2[row[u]];"));
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

// A thread divides once to find its first vector's column and row; each
// further vector steps them by the block's 2048 elements, in 32 bits where
// they fit.
TEST(PointwiseEmitterTest, ColumnsAndRowsStepFromOneDivision) {
  const GeneratedKernel k = EmitOnly(FourInputs(DType::kBF16, 333, 12345));
  EXPECT_THAT(k.body, HasSubstr("    int col[kUnroll];\n    int row[kUnroll];\n"));
  EXPECT_THAT(k.body, HasSubstr("const int e = static_cast<int>(v0 * kV), r = e / 12345;"));
  EXPECT_THAT(k.body, HasSubstr("        col[u] = col[u - 1] + 2048;\n        row[u] = row[u - 1];\n"
                                "        if (col[u] >= 12345) {\n          col[u] -= 12345;\n          ++row[u];\n"));
  EXPECT_THAT(k.body, Not(HasSubstr("(v * kV) % 12345")));
  ExpectCompiles(k);
  const GeneratedKernel short_rows = EmitOnly(FourInputs(DType::kBF16, 3000000000, 8));
  EXPECT_THAT(short_rows.body, HasSubstr("    int col[kUnroll];\n    long long row[kUnroll];\n"));
  EXPECT_THAT(short_rows.body, HasSubstr("const long long e = static_cast<long long>(v0 * kV), r = e / 8;"));
  EXPECT_THAT(short_rows.body, HasSubstr("        col[u] = col[u - 1] + 0;\n        row[u] = row[u - 1] + 256;\n"));
  ExpectCompiles(short_rows);
  const GeneratedKernel long_rows = EmitOnly(FourInputs(DType::kBF16, 2, 2147483647));
  EXPECT_THAT(long_rows.body, HasSubstr("    long long col[kUnroll];\n"));
  ExpectCompiles(long_rows);
}

// A last dim that is no multiple of the vector puts vectors across two
// rows. A vector within one row reads a row's elements as the aligned
// vectors covering them, shifted, and a column's one element; the others
// (about one in cols / kV) read the row element by element and the column's
// two elements.
TEST(PointwiseEmitterTest, OddRowsReadWholeVectorsWithinARow) {
  const GeneratedKernel k = EmitOnly(FourInputs(DType::kBF16, 333, 12345));
  // Whole vectors of the row load as words, predicated, beside the streams...
  EXPECT_THAT(k.body, HasSubstr("const long long a = (col[u]) & ~static_cast<long long>(kV - 1);"));
  EXPECT_THAT(k.body, HasSubstr("if (a + kV <= 12345) x_in1[u] = *reinterpret_cast<const KilnVec<unsigned, 4>*>(in1 "
                                "+ a);"));
  EXPECT_THAT(k.body, HasSubstr("if (a + 2 * kV <= 12345) h_in1[u] = *reinterpret_cast<const KilnVec<unsigned, 4>*>("
                                "in1 + a + kV);"));
  // ...and are shifted where the vector lies within a row...
  EXPECT_THAT(k.body, HasSubstr("if (col[u] + kV <= 12345 && ((col[u]) & ~static_cast<long long>(kV - 1)) + 2 * kV "
                                "<= 12345) {"));
  EXPECT_THAT(k.body, HasSubstr("kiln_shift_dispatch<unsigned short, kV, 1>(lo_in1, hi_in1, m_in1);"));
  EXPECT_THAT(k.body, HasSubstr("kiln_bf16_to_f32(s_in2[u])"));
  // ...and read element by element where it is not.
  EXPECT_THAT(k.body, HasSubstr("r_in1.v[j] = in1[(col[u] + j < 12345 ? (col[u]) : (col[u] - 12345)) + j];"));
  EXPECT_THAT(k.body, HasSubstr("const unsigned short s2_in2 = col[u] + kV > 12345 ? in2[(row[u] + 1)] : s_in2[u];"));
  EXPECT_THAT(k.body, HasSubstr("kiln_bf16_to_f32((col[u] + j < 12345 ? s_in2[u] : s2_in2))"));
  ExpectCompiles(k);
}

// Rows shorter than a vector put a vector across several rows: broadcast
// operands are read element by element there.
TEST(PointwiseEmitterTest, RowsShorterThanAVectorReadBroadcastsPerElement) {
  const GeneratedKernel k = EmitOnly(FourInputs(DType::kBF16, 1000, 3));
  EXPECT_THAT(k.body, Not(HasSubstr("col[u]")));
  EXPECT_THAT(k.body, Not(HasSubstr("x_in1[u]")));
  EXPECT_THAT(k.body, HasSubstr("in1[((i % 3))]"));
  ExpectCompiles(k);
}

// Broadcasts over three dims (a plane, a row per batch, a column per batch,
// one element): every variant compiles in every float type.
TEST(PointwiseEmitterTest, EveryBroadcastVariantCompiles) {
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
    for (const Dims& dims : {Dims{4, 24, 64}, Dims{3, 7, 9}, Dims{4, 5, 1001}}) {
      SCOPED_TRACE(absl::StrCat(DTypeName(dtype), DimsString(dims)));
      const GeneratedKernel k = EmitOnly(BroadcastsOverThreeDims(dtype, dims));
      EXPECT_THAT(k.body, HasSubstr("s_in4[u] = in4[0];"));
      EXPECT_THAT(k.body, HasSubstr(dims[2] % 8 == 0 ? "x_in2[u] = kiln_load_vec<" : "h_in2[u] = *reinterpret_cast<"));
      ExpectCompiles(k);
    }
  }
}

// A sum over rows of 1 that drops the axis: its operand [N,1] streams as
// vectors at the result's flat index, and the sum of one value is that
// value plus 0 (the reference's -0 + 0 = +0), with no index arithmetic.
TEST(PointwiseEmitterTest, UnitReductionsStreamTheirOperand) {
  const GeneratedKernel k = EmitOnly(SweepRowGraph(RowOp::kSum, DType::kBF16, 67108864, 1));
  EXPECT_THAT(k.body, HasSubstr("x_in0[u] = kiln_load_vec<unsigned short, kV>(in0 + v * kV);"));
  EXPECT_THAT(k.body, HasSubstr("const float v1 = (kiln_bf16_to_f32(x_in0[u].v[j]) + 0.0f);"));
  EXPECT_THAT(k.body, Not(HasSubstr("%")));
  ExpectCompiles(k);
}

// A layernorm over rows of 1 in bf16: x streams, the weight and bias casts
// are computed per element from their one element, and the reductions copy.
TEST(PointwiseEmitterTest, NormalizationOverRowsOfOneIsOneKernel) {
  const GeneratedKernel k = EmitOnly(SweepRowGraph(RowOp::kLayerNorm, DType::kBF16, 67108864, 1));
  EXPECT_THAT(k.body, HasSubstr("x_in0[u] = kiln_load_vec<unsigned short, kV>(in0 + v * kV);"));
  EXPECT_THAT(k.body, HasSubstr("kiln_bf16_to_f32(in1[0])"));
  EXPECT_THAT(k.body, HasSubstr("kiln_bf16_to_f32(in2[0])"));
  ExpectCompiles(k);
}

}  // namespace
}  // namespace kiln
