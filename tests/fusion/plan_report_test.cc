// The plan reports, pinned as text on a small graph with two kernels (a row
// kernel and a transpose): the table of both plans with the target, JSON,
// DOT with its edge bytes, the explanation, and the edges between kernels.
#include "fusion/plan_report.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

class PlanReportTest : public testing::Test {
 protected:
  void SetUp() override {
    GraphBuilder b;
    Value x = b.Input("x", DType::kF32, {2048, 512});
    Value e = Exp(x).Named("e");
    Value s = ReduceSum(e, {1}, true).Named("s");
    Value y = (e / s).Named("y");
    Value t = Transpose(y, {1, 0}).Named("t");
    graph_ = *b.Build({t});
    target_.limits.supports_clusters = false;
    fused_ = *PlanFusion(graph_, target_.limits);
    unfused_ = *PlanUnfused(graph_, target_.limits);
  }

  Graph graph_;
  PlanTarget target_{.gpu = "a \"test\" GPU"};
  Plan fused_, unfused_;
};

TEST_F(PlanReportTest, TableShowsTheTargetAndBothPlans) {
  EXPECT_EQ(PlanTable(graph_, fused_, unfused_, target_),
            "target: a \"test\" GPU: 132 SMs, 4220 GB/s HBM, 67 TFLOP/s f32, 790 TFLOP/s tensor cores, no clusters\n"
            "\n"
            "fused plan: 2 kernels\n"
            "kernel             kind           strategy                                           bytes read    bytes written     roofline\n"
            "f0_row_reduction   row_reduction  persistent (warp per row)                           4,194,304        4,194,304       2.0 us\n"
            "    ops: e s y\n"
            "f1_transpose       transpose      tiled 64x64 (16-byte vectors)                       4,194,304        4,194,304       2.0 us\n"
            "    ops: t\n"
            "\n"
            "unfused plan: 4 kernels\n"
            "kernel             kind           strategy                                           bytes read    bytes written     roofline\n"
            "u0_exp             pointwise      vectorized tiles                                    4,194,304        4,194,304       2.0 us\n"
            "    ops: e\n"
            "u1_reduce_sum      row_reduction  persistent (warp per row)                           4,194,304            8,192       1.0 us\n"
            "    ops: s\n"
            "u2_div             pointwise      vectorized tiles                                    4,202,496        4,194,304       2.0 us\n"
            "    ops: y\n"
            "u3_transpose       transpose      tiled 64x64 (16-byte vectors)                       4,194,304        4,194,304       2.0 us\n"
            "    ops: t\n"
            "\n"
            "unfused: 4 kernels, 29,376,512 bytes, roofline 7.0 us\n"
            "fused:   2 kernels, 16,777,216 bytes, roofline 4.0 us\n"
            "fused moves 1.75x fewer bytes than unfused\n");
}

TEST_F(PlanReportTest, JsonHoldsBothPlansEdgesAndTheExplanation) {
  EXPECT_EQ(PlanJson(graph_, "tiny", fused_, unfused_, target_, /*explain=*/true),
            "{\n"
            "  \"graph\": \"tiny\",\n"
            "  \"target\": {\"gpu\": \"a \\\"test\\\" GPU\", \"sm_count\": 132, \"bandwidth_gbps\": 4220.0, \"f32_tflops\": 67.0, \"tensor_tflops\": 790.0, \"clusters\": false, \"max_cluster_blocks\": 8},\n"
            "  \"unfused\": {\"kernels\": 4, \"bytes\": 29376512, \"bytes_read\": 16785408, \"bytes_written\": 12591104, \"flops\": 3145728, \"roofline_us\": 6.961},\n"
            "  \"fused\": {\"kernels\": 2, \"bytes\": 16777216, \"bytes_read\": 8388608, \"bytes_written\": 8388608, \"flops\": 3145728, \"roofline_us\": 3.976},\n"
            "  \"kernels\": [\n"
            "    {\"name\": \"f0_row_reduction\", \"kind\": \"row_reduction\", \"strategy\": \"persistent (warp per row)\", \"nodes\": [\"e\", \"s\", \"y\"], \"bytes_read\": 4194304, \"bytes_written\": 4194304, \"flops\": 3145728, \"arithmetic_intensity\": 0.3750, \"roofline_us\": 1.988, \"why\": \"row of 512 f32 = 2 KiB fits one warp's registers: a warp per row\"},\n"
            "    {\"name\": \"f1_transpose\", \"kind\": \"transpose\", \"strategy\": \"tiled 64x64 (16-byte vectors)\", \"nodes\": [\"t\"], \"bytes_read\": 4194304, \"bytes_written\": 4194304, \"flops\": 0, \"arithmetic_intensity\": 0.0000, \"roofline_us\": 1.988, \"why\": \"perm [1,0] of [2048,512] moves the last dim: 256 tiles of 64x64, staged in shared memory, read along the input's last dim (512) and written along the output's last dim (2048)\"}\n"
            "  ],\n"
            "  \"edges\": [\n"
            "    {\"tensor\": \"x\", \"kernel\": \"f0_row_reduction\", \"consumers\": [\"e\"], \"bytes\": 4194304},\n"
            "    {\"tensor\": \"y\", \"kernel\": \"f1_transpose\", \"consumers\": [\"t\"], \"bytes\": 4194304}\n"
            "  ],\n"
            "  \"unfused_kernels\": [\n"
            "    {\"name\": \"u0_exp\", \"kind\": \"pointwise\", \"strategy\": \"vectorized tiles\", \"nodes\": [\"e\"], \"bytes_read\": 4194304, \"bytes_written\": 4194304, \"flops\": 1048576, \"arithmetic_intensity\": 0.1250, \"roofline_us\": 1.988, \"why\": null},\n"
            "    {\"name\": \"u1_reduce_sum\", \"kind\": \"row_reduction\", \"strategy\": \"persistent (warp per row)\", \"nodes\": [\"s\"], \"bytes_read\": 4194304, \"bytes_written\": 8192, \"flops\": 1048576, \"arithmetic_intensity\": 0.2495, \"roofline_us\": 0.996, \"why\": \"row of 512 f32 = 2 KiB fits one warp: a warp per row, one pass\"},\n"
            "    {\"name\": \"u2_div\", \"kind\": \"pointwise\", \"strategy\": \"vectorized tiles\", \"nodes\": [\"y\"], \"bytes_read\": 4202496, \"bytes_written\": 4194304, \"flops\": 1048576, \"arithmetic_intensity\": 0.1249, \"roofline_us\": 1.990, \"why\": null},\n"
            "    {\"name\": \"u3_transpose\", \"kind\": \"transpose\", \"strategy\": \"tiled 64x64 (16-byte vectors)\", \"nodes\": [\"t\"], \"bytes_read\": 4194304, \"bytes_written\": 4194304, \"flops\": 0, \"arithmetic_intensity\": 0.0000, \"roofline_us\": 1.988, \"why\": \"perm [1,0] of [2048,512] moves the last dim: 256 tiles of 64x64, staged in shared memory, read along the input's last dim (512) and written along the output's last dim (2048)\"}\n"
            "  ],\n"
            "  \"unfused_edges\": [\n"
            "    {\"tensor\": \"x\", \"kernel\": \"u0_exp\", \"consumers\": [\"e\"], \"bytes\": 4194304},\n"
            "    {\"tensor\": \"e\", \"kernel\": \"u1_reduce_sum\", \"consumers\": [\"s\"], \"bytes\": 4194304},\n"
            "    {\"tensor\": \"e\", \"kernel\": \"u2_div\", \"consumers\": [\"y\"], \"bytes\": 4194304},\n"
            "    {\"tensor\": \"s\", \"kernel\": \"u2_div\", \"consumers\": [\"y\"], \"bytes\": 8192},\n"
            "    {\"tensor\": \"y\", \"kernel\": \"u3_transpose\", \"consumers\": [\"t\"], \"bytes\": 4194304}\n"
            "  ],\n"
            "  \"boundaries\": [\n"
            "    {\"producer\": \"y\", \"consumer\": \"t\", \"reason\": \"a transpose runs as its own kernel\"}\n"
            "  ],\n"
            "  \"attention_refusals\": [],\n"
            "  \"unit_reductions\": []\n"
            "}\n");
}

TEST_F(PlanReportTest, DotEscapesLabelsOnceAndLabelsEdgesBetweenKernels) {
  EXPECT_EQ(PlanDot(graph_, fused_),
            "digraph kiln {\n"
            "  rankdir=TB;\n"
            "  node [shape=box, fontname=\"monospace\"];\n"
            "  subgraph cluster_0 {\n"
            "    label=\"f0_row_reduction: persistent (warp per row)\";\n"
            "    style=rounded;\n"
            "    n1 [label=\"e\\n"
            "exp f32[2048,512]\"];\n"
            "    n2 [label=\"s\\n"
            "reduce_sum f32[2048,1]\"];\n"
            "    n3 [label=\"y\\n"
            "div f32[2048,512]\"];\n"
            "  }\n"
            "  subgraph cluster_1 {\n"
            "    label=\"f1_transpose: tiled 64x64 (16-byte vectors)\";\n"
            "    style=rounded;\n"
            "    n4 [label=\"t\\n"
            "transpose f32[512,2048]\"];\n"
            "  }\n"
            "  n0 [label=\"x\\n"
            "input f32[2048,512]\", style=\"filled\", fillcolor=\"#eeeeee\"];\n"
            "  n0 -> n1 [label=\"4,194,304 B\"];\n"
            "  n1 -> n2;\n"
            "  n1 -> n3;\n"
            "  n2 -> n3;\n"
            "  n3 -> n4 [label=\"4,194,304 B\"];\n"
            "}\n");
}

TEST_F(PlanReportTest, ExplainGivesReasonsAndBoundaries) {
  EXPECT_EQ(PlanExplain(graph_, fused_),
            "f0_row_reduction: persistent (warp per row) over 3 ops\n"
            "  why: row of 512 f32 = 2 KiB fits one warp's registers: a warp per row\n"
            "f1_transpose: tiled 64x64 (16-byte vectors) over 1 op\n"
            "  why: perm [1,0] of [2048,512] moves the last dim: 256 tiles of 64x64, staged in shared memory, read "
            "along the input's last dim (512) and written along the output's last dim (2048)\n"
            "boundary node \"y\" (div) -> node \"t\" (transpose): a transpose runs as its own kernel\n");
}

TEST(PlanReportPartsTest, CountsAndNumbers) {
  EXPECT_EQ(KernelCount(0), "0 kernels");
  EXPECT_EQ(KernelCount(1), "1 kernel");
  EXPECT_EQ(KernelCount(9), "9 kernels");
  EXPECT_EQ(GroupedNumber(22548578304), "22,548,578,304");
  EXPECT_EQ(GroupedNumber(-1234), "-1,234");
  EXPECT_EQ(GroupedNumber(999), "999");
  EXPECT_EQ(TargetLine({.gpu = "H200 (the default)"}),
            "target: H200 (the default): 132 SMs, 4220 GB/s HBM, 67 TFLOP/s f32, 790 TFLOP/s tensor cores, "
            "clusters of up to 8 blocks");
}

// A looped row kernel reads its input once per pass: the edge carries both.
TEST(PlanReportPartsTest, EdgeBytesCountEveryPass) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {512, 131072});
  Value m = ReduceMax(x, {1}, true).Named("m");
  Value e = Exp(x - m).Named("e");
  Value y = (e / ReduceSum(e, {1}, true)).Named("y");
  const Graph graph = *b.Build({y});
  DeviceLimits limits;
  limits.supports_clusters = false;
  const Plan plan = *PlanFusion(graph, limits);
  ASSERT_EQ(plan.kernels.size(), 1u);
  ASSERT_EQ(plan.kernels[0].row().passes, 2);
  const std::vector<KernelEdge> edges = KernelEdges(graph, plan);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(graph.node(edges[0].tensor).name, "x");
  EXPECT_EQ(edges[0].bytes, 2 * int64_t{512} * 131072 * 4);
  EXPECT_EQ(edges[0].consumers.size(), 2u);  // m and the subtraction
  EXPECT_EQ(edges[0].bytes, plan.kernels[0].traffic.bytes_read);
  EXPECT_NE(PlanDot(graph, plan).find("[label=\"536,870,912 B\"]"), std::string::npos);
}

// A transpose folded into a matmul runs in no kernel: the matmul reads its
// source, and the edge into the transpose carries the bytes (attention's
// q @ transpose(k) crashed the DOT when the edge named no reader).
TEST(PlanReportPartsTest, AFoldedTransposeReadsItsSourceForTheKernel) {
  GraphBuilder b;
  Value a = b.Input("a", DType::kBF16, {256, 128});
  Value w = b.Input("w", DType::kBF16, {512, 128});
  Value wt = Transpose(w, {1, 0}).Named("wt");
  Value y = Matmul(a, wt).Named("y");
  const Graph graph = *b.Build({y});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  ASSERT_EQ(plan.kernels.size(), 1u);
  ASSERT_EQ(plan.layout_folds.size(), 1u);
  const std::vector<KernelEdge> edges = KernelEdges(graph, plan);
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(graph.node(edges[1].tensor).name, "w");
  ASSERT_EQ(edges[1].consumers.size(), 1u);
  EXPECT_EQ(graph.node(edges[1].consumers[0]).name, "wt");
  const std::string dot = PlanDot(graph, plan);
  const NodeId w_id = edges[1].tensor, wt_id = edges[1].consumers[0];
  EXPECT_NE(dot.find(absl::StrCat("n", w_id, " -> n", wt_id, " [label=\"131,072 B\"];")), std::string::npos) << dot;
}

}  // namespace
}  // namespace kiln
