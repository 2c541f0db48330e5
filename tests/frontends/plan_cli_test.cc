// `kiln plan`, `emit` and `run` through the built binary: the docs/design.md traffic
// numbers for every bundled graph, the JSON/DOT/explain views, emitted CUDA
// that NVRTC compiles as it is, and clear failures.
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "codegen/kernel_codegen.h"
#include "frontends/graph_file.h"
#include "fusion/device_limits.h"
#include "fusion/planner.h"
#include "fusion/plan_report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cuda_driver.h"
#include "runtime/kernel_resources.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using PlanCliTest = KilnBinaryTest;
using Output = CliResult;

std::string Bundled(const std::string& name) { return BundledGraph(name); }

struct Expected {
  const char* graph;
  int unfused_kernels;
  int64_t unfused_bytes;
  int64_t fused_bytes;
};

// docs/design.md's traffic table evaluated at every benchmark shape.
constexpr int64_t kE = int64_t{16384} * 16384;
const Expected kExpected[] = {
    {"gelu_naive_16384x16384_f32", 9, 21 * kE * 4, 2 * kE * 4},
    {"gelu_naive_16384x16384_bf16", 9, 21 * kE * 2, 2 * kE * 2},
    {"softmax_naive_65536x1024_f32", 5, (8 * kE / 4 + 4 * 65536) * 4, 2 * kE / 4 * 4},
    {"softmax_naive_16384x4096_f32", 5, (8 * kE / 4 + 4 * 16384) * 4, 2 * kE / 4 * 4},
    {"softmax_naive_4096x16384_f32", 5, (8 * kE / 4 + 4 * 4096) * 4, 2 * kE / 4 * 4},
    {"softmax_naive_512x131072_f32", 5, (8 * kE / 4 + 4 * 512) * 4, 2 * kE / 4 * 4},
    {"row_sum_16384x16384_f32", 1, (kE + 16384) * 4, (kE + 16384) * 4},
    {"row_sum_256x1048576_f32", 1, (kE + 256) * 4, (kE + 256) * 4},
    {"matmul_relu_4096x4096x4096_f32", 2, 5 * (kE / 16) * 4, 3 * (kE / 16) * 4},
    {"matmul_relu_8192x8192x8192_bf16", 2, 5 * (kE / 4) * 2, 3 * (kE / 4) * 2},
    {"matmul_relu_4096x4096x4096_f16", 2, 5 * (kE / 16) * 2, 3 * (kE / 16) * 2},
};

TEST_F(PlanCliTest, PlanPrintsDesignNumbersForEveryBundledGraph) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.graph);
    const Output result = Kiln(absl::StrCat("plan ", Bundled(e.graph)));
    ASSERT_EQ(result.status, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr(absl::StrCat("unfused: ", KernelCount(e.unfused_kernels), ", ",
                                                   GroupedNumber(e.unfused_bytes), " bytes")));
    EXPECT_THAT(result.out, HasSubstr(absl::StrCat("fused:   1 kernel, ", GroupedNumber(e.fused_bytes), " bytes")));
  }
  // The headline figure of docs/design.md, spelled out.
  EXPECT_EQ(GroupedNumber(21 * kE * 4), "22,548,578,304");
}

TEST_F(PlanCliTest, JsonDotAndExplain) {
  Output json = Kiln("plan --json " + Bundled("gelu_naive_16384x16384_f32"));
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr(R"("unfused": {"kernels": 9, "bytes": 22548578304,)"));
  EXPECT_THAT(json.out, HasSubstr(R"("fused": {"kernels": 1, "bytes": 2147483648,)"));
  EXPECT_THAT(json.out, HasSubstr(R"({"name": "f0_pointwise", "kind": "pointwise", "strategy": "vectorized tiles", )"
                                  R"("nodes": ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "y"], )"
                                  R"("bytes_read": 1073741824, "bytes_written": 1073741824,)"));
  EXPECT_THAT(json.out, HasSubstr(R"({"name": "u5_tanh", "kind": "pointwise")"));

  Output dot = Kiln("plan --dot " + Bundled("softmax_naive_65536x1024_f32"));
  ASSERT_EQ(dot.status, 0) << dot.err;
  EXPECT_THAT(dot.out, HasSubstr("subgraph cluster_0 {"));
  EXPECT_THAT(dot.out, HasSubstr("label=\"f0_row_reduction: persistent (warp per row)\";"));

  Output explain = Kiln("plan --explain " + Bundled("softmax_naive_512x131072_f32"));
  ASSERT_EQ(explain.status, 0) << explain.err;
  EXPECT_THAT(explain.out,
              HasSubstr("  why: row of 131072 f32 = 512 KiB exceeds one block's on-chip budget of 128 KiB; "
                        "split over a cluster of 8 blocks, each block's segment held in shared memory, max and sum of "
                        "exp in one reduction\n"));
  Output looped = Kiln("plan --explain --no-clusters " + Bundled("softmax_naive_512x131072_f32"));
  EXPECT_THAT(looped.out, HasSubstr("fused:   1 kernel, 805,306,368 bytes"));  // x read twice

  Output tile = Kiln("plan --explain --matmul-tile=128x128x64:4:16 " + Bundled("matmul_relu_8192x8192x8192_bf16"));
  EXPECT_THAT(tile.out, HasSubstr("f0_matmul: wgmma, 128x128x64 tiles, 4 stages, --matmul-tile over 2 ops\n"
                                  "  why: bf16 on tensor cores (wgmma + TMA, producer and consumer warpgroups, "
                                  "persistent grid, fp32 accumulators); 128x128 tiles: 4096 tiles, 31.03 waves of "
                                  "132 SMs (--matmul-tile)\n"));
  for (const auto& [flag, message] : std::vector<std::pair<std::string, std::string>>{
           {"128x256", "--matmul-tile=128x256 is not MxNxK:STAGES[:GROUP][:FLAGS], e.g. 128x256x64:3"},
           {"96x128x64:3", "--matmul-tile=96x128x64:3:16 cannot run kernel f0_matmul (wgmma): matmul tile "
                           "96x128x64 with 3 stages: wgmma tiles are 128 x (64, 128, 192 or 256), or 256 x (64 or "
                           "128)"},
           {"128x256x32:3", "--matmul-tile=128x256x32:3:16 cannot run kernel f0_matmul (wgmma): matmul tile "
                            "128x256x32 with 3 stages: the wgmma K step for 2-byte operands is 64 (one 128-byte swizzle row)"},
           {"128x256x64:4", "--matmul-tile=128x256x64:4:16 cannot run kernel f0_matmul (wgmma): matmul tile "
                            "128x256x64 with 4 stages needs 263232 bytes of shared memory; a block may have 232448"},
       }) {
    Output rejected = Kiln("plan --matmul-tile=" + flag + " " + Bundled("matmul_relu_8192x8192x8192_bf16"));
    EXPECT_EQ(rejected.status, 2) << flag;
    EXPECT_EQ(rejected.err, "kiln: " + message + "\n");
  }

  Output bad = Kiln("plan --max-cluster-blocks=9 " + Bundled("row_sum_16384x16384_f32"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "kiln: --max-cluster-blocks=9 is outside 1..8\n");
}

// A bf16 layernorm over rows of `cols`, with a weight and a bias, in kiln's
// text graph format.
std::string LayerNormBf16(int64_t rows, int64_t cols) {
  return absl::Substitute(R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: BF16 shape: [$0, $1] }
    node { name: "w" op: "input" dtype: BF16 shape: [$1] }
    node { name: "b" op: "input" dtype: BF16 shape: [$1] }
    node { name: "x32" op: "cast" operand: ["x"] dtype: F32 }
    node { name: "w32" op: "cast" operand: ["w"] dtype: F32 }
    node { name: "b32" op: "cast" operand: ["b"] dtype: F32 }
    node { name: "mean" op: "reduce_mean" operand: ["x32"] axes: [1] keepdims: true }
    node { name: "d" op: "sub" operand: ["x32", "mean"] }
    node { name: "dd" op: "mul" operand: ["d", "d"] }
    node { name: "var" op: "reduce_mean" operand: ["dd"] axes: [1] keepdims: true }
    node { name: "eps" op: "constant" dtype: F32 value: 1e-05 }
    node { name: "ve" op: "add" operand: ["var", "eps"] }
    node { name: "r" op: "rsqrt" operand: ["ve"] }
    node { name: "n" op: "mul" operand: ["d", "r"] }
    node { name: "nw" op: "mul" operand: ["n", "w32"] }
    node { name: "y32" op: "add" operand: ["nw", "b32"] }
    node { name: "y" op: "cast" operand: ["y32"] dtype: BF16 }
    output: "y"
)pb",
                          rows, cols);
}

// --resources compiles the fused kernels with NVRTC on this GPU-less machine:
// ptxas's registers for each, and for a layernorm whose launch bound asks for
// four blocks of 512 threads an SM, the asks the runtime would time. Its
// clusters of 4 get a line on how many fit at once.
TEST_F(PlanCliTest, ResourcesComeFromPtxasWithoutAGpu) {
  const std::string layernorm = Write("layernorm.textproto", LayerNormBf16(1335, 50257));
  absl::StatusOr<Graph> graph = LoadGraphFile(layernorm);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Plan> plan = PlanFusion(*graph, DeviceLimits{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::vector<GeneratedKernel>> generated = GeneratePlan(*graph, *plan, DeviceLimits{});
  ASSERT_TRUE(generated.ok()) << generated.status();
  ASSERT_EQ(generated->size(), 1u);
  const GeneratedKernel& kernel = generated->front();
  ASSERT_EQ(kernel.min_blocks_per_sm, 4);
  absl::StatusOr<KernelResources> planned = CompiledResources({kernel.Source(), kernel.name}, "sm_90a");
  ASSERT_TRUE(planned.ok()) << planned.status();

  const Output table = Kiln("plan --resources " + layernorm);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("\nkernel resources: ptxas's report for sm_90a through NVRTC, and the occupancy "
                                   "it allows on 132 SMs\nkernel              ask  threads  cluster  registers"));
  EXPECT_THAT(table.out, ::testing::ContainsRegex(absl::StrCat("\nf0_row_reduction +4 +512 +4 +",
                                                               planned->registers, " +", planned->stack_bytes, " B +",
                                                               planned->spill_store_bytes, "/",
                                                               planned->spill_load_bytes, " B +36,880 B +")));
  // 1335 rows over clusters of 4: at 4 blocks an SM an H100 (the counts
  // planning takes with no GPU) holds 124 of them at once.
  EXPECT_THAT(table.out, HasSubstr("\nf0_row_reduction runs in clusters of 4 blocks, which share one GPC each, so "
                                   "fewer may fit at once than the SMs' block slots suggest: 124 at 4 blocks an SM by "
                                   "the counts planning takes, so its 1335 clusters take 11 waves; kiln run counts the "
                                   "GPU's\n"));
  if (planned->stack_bytes > 0) {
    EXPECT_THAT(table.out, HasSubstr(absl::StrCat("f0_row_reduction keeps ", planned->stack_bytes,
                                                  " B a thread in local memory at the 4 blocks an SM its launch bound "
                                                  "asks for: on the GPU the runtime times asks 4 to ")));
    EXPECT_THAT(table.out, ::testing::ContainsRegex("\n +3 +[0-9]+ "));
  }

  const Output json = Kiln("plan --json --resources " + layernorm);
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr(absl::StrCat(
                            R"("resources": [)", "\n", R"(    {"kernel": "f0_row_reduction", "launch_bound_blocks": 4, )",
                            R"("tuned_ask": false, "grid": 5340, "threads": 512, "cluster": 4, "registers": )",
                            planned->registers, ",")));

  const Output dot = Kiln("plan --dot --resources " + layernorm);
  EXPECT_EQ(dot.status, 2);
  EXPECT_EQ(dot.err, "kiln: --dot and --resources cannot be combined: the drawing holds no resources; use the "
                     "table or --json\n");
}

// Held rows too long for a cluster loop over tiles in clusters of 8, whose
// size kiln run tunes where the rows need more than one wave of them: the
// cluster line counts the clusters that fit at the blocks an SM ptxas's
// registers allow, by the counts planning takes, and says so where they do;
// the JSON holds the same counts.
TEST_F(PlanCliTest, ResourcesSayWhenRowClustersNeedWaves) {
  const std::string rows = Write("rows.textproto", LayerNormBf16(32, 2097152));
  const Output table = Kiln("plan --resources " + rows);
  ASSERT_EQ(table.status, 0) << table.err;
  const std::regex line(
      "\nf0_row_reduction runs in clusters of 8 blocks, which share one GPC each, so fewer may fit at once than the "
      "SMs' block slots suggest: ([0-9]+) at ([0-9]) blocks? an SM by the counts planning takes, so its 32 clusters "
      "take ([0-9]+) waves?; kiln run counts the GPU's(, and as its rows loop over their parts it times halved "
      "clusters that save a wave)?\n");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(table.out, m, line)) << table.out;
  const int resident = std::stoi(m[1]), blocks = std::stoi(m[2]), waves = std::stoi(m[3]);
  EXPECT_EQ(resident, DeviceLimits{}.ResidentClusters(8, blocks));
  EXPECT_EQ(waves, (32 + resident - 1) / resident);
  EXPECT_EQ(m[4].matched, waves > 1) << m[0];

  const Output json = Kiln("plan --json --resources " + rows);
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr(absl::StrCat(R"("resident_clusters": )", resident, R"(, "cluster_waves": )", waves,
                                               R"(, "cluster_size_tuned": true})")));
}

// The two explanations a user found wrong: softmax over a rank-3 matmul's
// output, and reduction axes that name one axis twice.
TEST_F(PlanCliTest, ExplainStatesTheTrueReason) {
  const std::string attention = Write("scores.textproto", R"pb(
    format_version: 1
    node { name: "q" op: "input" dtype: BF16 shape: [12, 1024, 64] }
    node { name: "k" op: "input" dtype: BF16 shape: [12, 64, 1024] }
    node { name: "s" op: "matmul" operand: ["q", "k"] }
    node { name: "m" op: "reduce_max" operand: "s" axes: [-1] keepdims: true }
    node { name: "d" op: "sub" operand: ["s", "m"] }
    node { name: "e" op: "exp" operand: "d" }
    node { name: "l" op: "reduce_sum" operand: "e" axes: [-1] keepdims: true }
    node { name: "p" op: "div" operand: ["e", "l"] }
    output: "p"
  )pb");
  const Output explained = Kiln("plan --explain " + attention);
  ASSERT_EQ(explained.status, 0) << explained.err;
  EXPECT_THAT(explained.out,
              HasSubstr("\nboundary node \"s\" (matmul) -> node \"m\" (reduce_max): the producer is a matmul, whose "
                        "kernel fuses an elementwise epilogue only; the reduction over rows of [12,1024,1024] runs in "
                        "its own kernel\n"));
  EXPECT_THAT(explained.out, HasSubstr("\nboundary node \"s\" (matmul) -> node \"d\" (sub): "));

  const std::string twice = Write("twice.textproto", R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
    node { name: "r" op: "reduce_sum" operand: "x" axes: [1, -1] }
    output: "r"
  )pb");
  const Output refused = Kiln("plan --explain " + twice);
  EXPECT_EQ(refused.status, 1);
  EXPECT_EQ(refused.err, "kiln: " + twice + ": node \"r\" (reduce_sum): axes 1 and -1 both name axis 1 of rank 2 "
                         "operand [4,8]\n");
}

// Whichever stage refuses a graph, the error names the file first.
TEST_F(PlanCliTest, RefusalsNameTheFile) {
  const std::string path = Write("i32.textproto", R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: I32 shape: [4, 8] }
    node { name: "r" op: "reduce_sum" operand: "x" axes: [1] }
    output: "r"
  )pb");
  for (const std::string& args : {"emit " + path, "plan --dump=" + Path("d") + " " + path}) {
    const Output result = Kiln(args);
    EXPECT_EQ(result.status, 1) << args;
    EXPECT_THAT(result.err, ::testing::StartsWith("kiln: " + path + ": node \"r\" (reduce_sum): ")) << args;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

TEST_F(PlanCliTest, EmittedTranslationUnitCompilesWithNvrtc) {
  for (const char* graph : {"gelu_naive_16384x16384_bf16", "softmax_naive_512x131072_f32",
                            "matmul_relu_8192x8192x8192_bf16", "matmul_relu_4096x4096x4096_f32"}) {
    for (const char* mode : {"", " --unfused"}) {
      SCOPED_TRACE(absl::StrCat(graph, mode));
      const Output result = Kiln(absl::StrCat("emit", mode, " ", Bundled(graph)));
      ASSERT_EQ(result.status, 0) << result.err;
      EXPECT_THAT(result.out, HasSubstr("// ---- kernel "));
      absl::StatusOr<std::string> cubin = CompileToCubin({result.out, graph}, DeviceLimits{}.Arch());
      EXPECT_TRUE(cubin.ok()) << cubin.status();
    }
  }
  const Output matmul = Kiln("emit " + Bundled("matmul_relu_8192x8192x8192_bf16"));
  EXPECT_THAT(matmul.out, HasSubstr("// ---- kernel f0_matmul: matmul, wgmma, 128x256x64 tiles, 3 stages, "
                                    "epilogue warps\n"
                                    "// launch: grid 132, block 384, cluster 1, dynamic shared memory 214,080 bytes\n"
                                    "// parameters:\n"
                                    "//   map0  a  bf16[8192,8192]  TMA descriptor of its memory, read; graph input\n"
                                    "//   map1  b  bf16[8192,8192]  TMA descriptor of its memory, read; graph input\n"
                                    "//   map2  y  bf16[8192,8192]  TMA descriptor of its memory, written; "
                                    "graph output\n"));
}

TEST_F(PlanCliTest, RunWithoutAGpuSaysSoOnOneLine) {
  if (CudaDriver::Get().ok()) GTEST_SKIP() << "a CUDA driver is present";
  const Output result = Kiln("run " + Bundled("row_sum_16384x16384_f32"));
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_THAT(result.err, HasSubstr("kiln: no GPU to run on: no CUDA driver: libcuda.so.1 could not be loaded"));
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1);
}

TEST_F(PlanCliTest, TuneWithoutAGpuSaysSoOnOneLine) {
  if (CudaDriver::Get().ok()) GTEST_SKIP() << "a CUDA driver is present";
  const Output result = Kiln("tune " + Bundled("matmul/matmul_relu_4096x4096x4096_bf16"));
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_THAT(result.err, HasSubstr("kiln: no GPU to tune on: no CUDA driver: libcuda.so.1 could not be loaded"));
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1);
}

TEST_F(PlanCliTest, TuneRefusesAFixedTile) {
  const Output result = Kiln("tune --matmul-tile=128x256x64:3 " + Bundled("matmul/matmul_relu_4096x4096x4096_bf16"));
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(result.err, "kiln: tune chooses the matmul configs; --matmul-tile fixes one (kiln run times it)\n");
}

}  // namespace
}  // namespace kiln
