// What the row emitter writes for the loads, guards and divisions that bound
// bf16 row kernels by instructions, and that every such kernel compiles with
// NVRTC for sm_90a (no GPU needed).
#include "codegen/row_emitter.h"

#include <string>

#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The body of the plan's one row kernel, after checking that it compiles.
std::string RowKernelBody(const Graph& graph) {
  const DeviceLimits limits;
  absl::StatusOr<Plan> plan = PlanFusion(graph, limits);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok() || plan->kernels.size() != 1 || plan->kernels[0].kind != KernelKind::kRowReduction) {
    ADD_FAILURE() << "expected one row kernel";
    return "";
  }
  absl::StatusOr<GeneratedKernel> generated = EmitRowKernel(graph, plan->kernels[0], limits);
  EXPECT_TRUE(generated.ok()) << generated.status();
  if (!generated.ok()) return "";
  absl::StatusOr<std::string> cubin = CompileToCubin({generated->Source(), plan->kernels[0].name}, limits.Arch());
  EXPECT_TRUE(cubin.ok()) << cubin.status();
  return generated->body;
}

TEST(RowEmitterTest, ColumnOperandsLoadAsVectorsOnAlignedRows) {
  const std::string body = RowKernelBody(LayerNormWithWeights(DType::kBF16, 8192, 8192));
  EXPECT_THAT(body, HasSubstr("const KilnVec<unsigned short, kV> c_in1 = "
                              "kiln_load_vec<unsigned short, kV>(in1 + (g - row_base));"));
  EXPECT_THAT(body, HasSubstr("kiln_bf16_to_f32(c_in2.v[j])"));
  EXPECT_THAT(body, Not(HasSubstr("%")));
  // Every slot of a row of 8192 holds a whole vector: no bounds tests.
  EXPECT_THAT(body, HasSubstr("constexpr bool kExact = true;"));
}

TEST(RowEmitterTest, UnalignedRowsTestOnlyTheVectorsAtTheirEnds) {
  const std::string body = RowKernelBody(LayerNormWithWeights(DType::kBF16, 16396, 4093));
  EXPECT_THAT(body, HasSubstr("if (g >= seg_begin && g + kV <= seg_end) {"));
  EXPECT_THAT(body, HasSubstr("kiln_bf16_to_f32(in1[i - row_base])"));
  EXPECT_THAT(body, HasSubstr("constexpr bool kExact = false;"));
  EXPECT_THAT(body, Not(HasSubstr("%")));
}

TEST(RowEmitterTest, DivisionByARowsSumIsAProductWithItsReciprocal) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{65536, 1024}, {8192, 8192}, {1335, 50257}, {16, 1 << 19}}) {
    SCOPED_TRACE(cols);
    const std::string body = RowKernelBody(*SoftmaxNaive(DType::kBF16, rows, cols));
    EXPECT_THAT(body, HasSubstr("= 1.0f / v"));
    EXPECT_THAT(body, HasSubstr(" * rcp"));
  }
}

TEST(RowEmitterTest, SixteenBitOutputsRoundOnceInTheStore) {
  const std::string body = RowKernelBody(*SoftmaxNaive(DType::kBF16, 8192, 8192));
  EXPECT_THAT(body, Not(HasSubstr("kiln_round_bf16")));
  EXPECT_THAT(body, HasSubstr("= kiln_f32_to_bf16(v"));
}

}  // namespace
}  // namespace kiln
