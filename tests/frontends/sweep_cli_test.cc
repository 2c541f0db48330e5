// `kiln sweep` without a GPU: the exact table of a softmax over row lengths
// that cross the warp, block and cluster strategies, its JSON and SVG, and
// one line for each way to ask for a sweep wrongly.
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/sweep_report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;
using SweepCliTest = ScratchTest;

constexpr char kSoftmax[] = R"pb(
  format_version: 1
  node { name: "x" op: "input" dtype: F32 shape: [64, 1024] }
  node { name: "m" op: "reduce_max" operand: ["x"] axes: [1] keepdims: true }
  node { name: "d" op: "sub" operand: ["x", "m"] }
  node { name: "e" op: "exp" operand: ["d"] }
  node { name: "s" op: "reduce_sum" operand: ["e"] axes: [1] keepdims: true }
  node { name: "y" op: "div" operand: ["e", "s"] }
  output: "y"
)pb";

// Every tag opened is closed, in order, and the document is one <svg>.
void ExpectWellFormedSvg(const std::string& svg) {
  ASSERT_THAT(svg, ::testing::StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns="));
  ASSERT_THAT(svg, ::testing::EndsWith("</svg>\n"));
  std::vector<std::string> open;
  const std::regex tag(R"(<(/?)([a-zA-Z?][\w-]*)[^<>]*?(/?)>)");
  for (std::sregex_iterator it(svg.begin(), svg.end(), tag), end; it != end; ++it) {
    const std::string name = (*it)[2];
    if (name == "?xml" || (*it)[3] == "/") continue;
    if ((*it)[1] == "/") {
      ASSERT_FALSE(open.empty()) << "</" << name << "> closes nothing";
      ASSERT_EQ(open.back(), name);
      open.pop_back();
    } else {
      open.push_back(name);
    }
  }
  EXPECT_TRUE(open.empty());
  // Text is escaped: every & starts an entity.
  EXPECT_FALSE(std::regex_search(svg, std::regex("&(?!amp;|lt;|gt;|quot;)")));
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(SweepCliTest, TableMarksEveryChangeOfPlan) {
  const std::string graph = Write("softmax.textproto", kSoftmax);
  const CliResult r = RunKiln({"sweep", graph, "--dim=x:1", "--range=512,1024,2048,8192,131072"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "sweep of x axis 1 in softmax (fused plan) for H200 (the default): 5 sizes\n"
            "        size  kernels          HBM bytes     bound us  notes\n"
            "         512        1            262,144        0.062\n"
            "    f0_row_reduction: persistent (warp per row), 256 threads, cluster 1\n"
            "        1024        1            524,288        0.124\n"
            "        2048        1          1,048,576        0.248  plan changes\n"
            "    f0_row_reduction: persistent (block per row), 128 threads, cluster 1\n"
            "        8192        1          4,194,304        0.994  plan changes\n"
            "    f0_row_reduction: persistent (block per row), 512 threads, cluster 1\n"
            "      131072        1         67,108,864       15.903  plan changes\n"
            "    f0_row_reduction: split (cluster per row, persistent) x8, online softmax, 512 threads, cluster 8\n"
            "plan changes: 3\n");
}

TEST_F(SweepCliTest, GeometricAndArithmeticSizesIncludeTheEnds) {
  const std::string graph = Write("softmax.textproto", kSoftmax);
  CliResult r = RunKiln({"sweep", graph, "--dim=x:0", "--range=1:1000000", "--steps=4", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> sizes;
  const std::regex size(R"("size": (\d+))");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), size), end; it != end; ++it) sizes.push_back((*it)[1]);
  EXPECT_EQ(sizes, (std::vector<std::string>{"1", "100", "10000", "1000000"}));

  r = RunKiln({"sweep", graph, "--dim=x:0", "--range=1:100", "--step=40"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(": 4 sizes\n"));
  for (const char* row : {"\n           1        1 ", "\n          41        1 ", "\n          81        1 ",
                          "\n         100        1 "}) {
    EXPECT_THAT(r.out, HasSubstr(row));
  }
  // More rows than blocks in a wave changes no strategy: no plan change.
  EXPECT_THAT(r.out, ::testing::EndsWith("plan changes: 0\n"));
}

TEST_F(SweepCliTest, JsonHoldsEveryKernelAndTheChanges) {
  const std::string graph = Write("softmax.textproto", kSoftmax);
  const CliResult r = RunKiln({"sweep", graph, "--dim=x:1", "--range=1024,2048", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\n"
            "  \"graph\": \"softmax\",\n"
            "  \"input\": \"x\",\n"
            "  \"axis\": 1,\n"
            "  \"plan\": \"fused\",\n"
            "  \"target\": \"H200 (the default)\",\n"
            "  \"ran\": false,\n"
            "  \"steps\": [\n"
            "    {\"size\": 1024, \"kernels\": [{\"name\": \"f0_row_reduction\", \"kind\": \"row_reduction\", "
            "\"strategy\": \"persistent (warp per row)\", \"grid\": 8, \"threads\": 256, \"cluster\": 1}], "
            "\"bytes\": 524288, \"roofline_us\": 0.124, \"plan_changes\": false, \"occupancy_changes\": null, "
            "\"measured_us\": null, "
            "\"over_bound\": null},\n"
            "    {\"size\": 2048, \"kernels\": [{\"name\": \"f0_row_reduction\", \"kind\": \"row_reduction\", "
            "\"strategy\": \"persistent (block per row)\", \"grid\": 64, \"threads\": 128, \"cluster\": 1}], "
            "\"bytes\": 1048576, \"roofline_us\": 0.248, \"plan_changes\": true, \"occupancy_changes\": null, "
            "\"measured_us\": null, "
            "\"over_bound\": null}\n"
            "  ]\n"
            "}\n");
}

TEST_F(SweepCliTest, SvgIsWellFormedWithAMarkerPerChange) {
  const std::string graph = Write("softmax.textproto", kSoftmax);
  const CliResult r =
      RunKiln({"sweep", graph, "--dim=x:1", "--range=512,1024,2048,8192,131072", "--svg=" + Path("sweep.svg")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string svg = ReadTextFile(Path("sweep.svg"));
  ExpectWellFormedSvg(svg);
  EXPECT_EQ(Count(svg, "class=\"plan-change\""), 3);
  EXPECT_EQ(Count(svg, "<polyline"), 1);  // the bound; nothing measured
  EXPECT_THAT(svg, HasSubstr("<title>plan changes at 131072: split (cluster per row, persistent) x8, online softmax</title>"));
}

// What --run adds, rendered from figures made up here: the measured column,
// the sizes over the bound, and the measured line in the plot.
TEST(SweepReportTest, MeasuredStepsOverTheBoundAreMarked) {
  const SweepKernel warp{.name = "f0_row_reduction", .kind = "row_reduction",
                         .strategy = "persistent (warp per row)", .grid = 8, .threads = 256, .cluster = 1};
  SweepKernel block = warp;
  block.strategy = "persistent (block per row)";
  Sweep sweep{.graph = "a&b", .input = "x", .axis = 1, .target = "NVIDIA H200", .ran = true};
  sweep.steps = {{.size = 1024, .kernels = {warp}, .bytes = 524288, .roofline_us = 2.0, .measured_us = 2.1},
                 {.size = 2048, .kernels = {block}, .bytes = 1048576, .roofline_us = 4.0, .measured_us = 4.5}};
  MarkPlanChanges(sweep.steps);
  EXPECT_FALSE(sweep.steps[0].OverBound());
  EXPECT_TRUE(sweep.steps[1].OverBound());
  EXPECT_EQ(SweepTable(sweep),
            "sweep of x axis 1 in a&b (fused plan) for NVIDIA H200: 2 sizes\n"
            "        size  kernels          HBM bytes     bound us  measured us  notes\n"
            "        1024        1            524,288        2.000         2.10\n"
            "    f0_row_reduction: persistent (warp per row), 256 threads, cluster 1\n"
            "        2048        1          1,048,576        4.000         4.50  plan changes; 1.12x the bound\n"
            "    f0_row_reduction: persistent (block per row), 256 threads, cluster 1\n"
            "plan changes: 1; over 1.1x the bound: 1 of 2 sizes\n");
  EXPECT_THAT(SweepJson(sweep), HasSubstr("\"measured_us\": 4.500, \"over_bound\": true}"));
  const std::string svg = SweepSvg(sweep);
  ExpectWellFormedSvg(svg);
  EXPECT_THAT(svg, HasSubstr(">a&amp;b: x axis 1"));
  EXPECT_EQ(Count(svg, "<polyline"), 2);
  EXPECT_EQ(Count(svg, "<title>2048: 4.50 us, 1.12x the bound</title>"), 1);
}

// --resources, rendered from figures made up here: a step whose plan stays
// but whose blocks an SM drop, or which starts to spill, is an occupancy
// change and shows its kernel; one whose registers alone move is not.
TEST(SweepReportTest, OccupancyChangesAreMarkedWhereThePlanStays) {
  const SweepKernel block{.name = "f0_row_reduction", .kind = "row_reduction",
                          .strategy = "persistent (block per row)", .grid = 1000, .threads = 1024, .cluster = 1};
  const auto with = [&](int registers, int64_t spill, int blocks, const char* limited_by) {
    SweepKernel k = block;
    k.resources = SweepResources{.registers = registers, .spill_bytes = spill, .blocks_per_sm = blocks,
                                 .limited_by = limited_by, .waves = 1000.0 / (blocks * 132)};
    return k;
  };
  Sweep sweep{.graph = "softmax", .input = "x", .axis = 1, .target = "H200 (the default)", .resources = true};
  sweep.steps = {{.size = 12040, .kernels = {with(32, 0, 2, "threads, registers")}, .roofline_us = 11.0},
                 {.size = 16000, .kernels = {with(30, 0, 2, "threads")}, .roofline_us = 15.0},
                 {.size = 22295, .kernels = {with(48, 0, 1, "registers")}, .roofline_us = 21.0},
                 {.size = 30000, .kernels = {with(48, 16, 1, "registers")}, .roofline_us = 29.0}};
  MarkPlanChanges(sweep.steps);
  EXPECT_EQ(SweepTable(sweep),
            "sweep of x axis 1 in softmax (fused plan) for H200 (the default): 4 sizes\n"
            "        size  kernels          HBM bytes     bound us  notes\n"
            "       12040        1                  0       11.000\n"
            "    f0_row_reduction: persistent (block per row), 1024 threads, cluster 1; 32 registers, 2 blocks an SM "
            "(threads, registers), 3.79 waves\n"
            "       16000        1                  0       15.000\n"
            "       22295        1                  0       21.000  occupancy changes\n"
            "    f0_row_reduction: persistent (block per row), 1024 threads, cluster 1; 48 registers, 1 block an SM "
            "(registers), 7.58 waves\n"
            "       30000        1                  0       29.000  occupancy changes\n"
            "    f0_row_reduction: persistent (block per row), 1024 threads, cluster 1; 48 registers, spills 16 B, "
            "1 block an SM (registers), 7.58 waves\n"
            "plan changes: 0; occupancy changes: 2\n");
  EXPECT_THAT(SweepJson(sweep),
              HasSubstr("\"cluster\": 1, \"registers\": 48, \"spill_store_bytes\": 16, \"blocks_per_sm\": 1, "
                        "\"limited_by\": \"registers\", \"waves\": 7.576}], \"bytes\": 0, \"roofline_us\": 29.000, "
                        "\"plan_changes\": false, \"occupancy_changes\": true,"));
}

// The same through the binary, compiled by NVRTC on this GPU-less machine.
TEST_F(SweepCliTest, ResourcesComeFromNvrtcWithoutAGpu) {
  const std::string graph = Write("softmax.textproto", kSoftmax);
  const CliResult r = RunKiln({"sweep", graph, "--dim=x:1", "--range=1024,8192,65536", "--resources"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::regex kernel(
      R"(\n    f0_row_reduction: [^;\n]+; [0-9]+ registers, (spills [0-9]+ B, )?[0-9]+ blocks? an SM )"
      R"(\((threads|registers|shared memory|blocks)(, (registers|shared memory|blocks))*\), [0-9]+\.[0-9]{2} waves\n)");
  EXPECT_EQ(std::distance(std::sregex_iterator(r.out.begin(), r.out.end(), kernel), std::sregex_iterator()), 3)
      << r.out;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("plan changes: 2; occupancy changes: 0\n$"));
  const CliResult json = RunKiln({"sweep", graph, "--dim=x:1", "--range=1024,2048", "--resources", "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_THAT(json.out, ::testing::ContainsRegex("\"cluster\": 1, \"registers\": [0-9]+, \"spill_store_bytes\": "));
  EXPECT_THAT(json.out, HasSubstr("\"occupancy_changes\": false,"));
}

TEST_F(SweepCliTest, EachMistakeIsOneLine) {
  const std::string graph = Write("softmax.textproto", kSoftmax);
  const std::string reshaped = Write("reshaped.textproto", R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [64, 1024] }
    node { name: "r" op: "reshape" operand: "x" shape: [65536] }
    node { name: "y" op: "exp" operand: "r" }
    output: "y"
  )pb");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--dim=q:1", "--range=1:2"}, "--dim=q:1: the graph has no input named \"q\" (its inputs: x)"},
      {{"--dim=m:0", "--range=1:2"}, "--dim=m:0: the graph has no input named \"m\" (its inputs: x)"},
      {{"--dim=x:2", "--range=1:2"}, "--dim=x:2: input \"x\" is f32[64,1024], with axes 0..1"},
      {{"--dim=x", "--range=1:2"}, "--dim=x is not NAME:AXIS (an input's name and an axis from 0), e.g. x:1"},
      {{"--dim=x:1"}, "sweep needs --range=A:B, the sizes to plan for"},
      {{"--range=1:2"}, "sweep needs --dim=NAME:AXIS, the dim to vary"},
      {{"--dim=x:1", "--range=8:2"}, "--range=8:2 must go up: A below B"},
      {{"--dim=x:1", "--range=0:2"}, "--range=0:2 has 0, outside 1..2^40"},
      {{"--dim=x:1", "--range=1:z"}, "--range=1:z has \"z\", which is not a whole number"},
      {{"--dim=x:1", "--range=1:2:3"}, "--range=1:2:3 is not A:B (or a list of sizes: 1,7,64)"},
      {{"--dim=x:1", "--range=4,2"}, "--range=4,2 must list increasing sizes"},
      {{"--dim=x:1", "--range=1,2", "--steps=3"}, "--range=1,2 lists its sizes; --steps and --step apply to A:B"},
      {{"--dim=x:1", "--range=1:9", "--step=2", "--steps=3"},
       "--steps and --step cannot be combined: both say how far apart the sizes are"},
      {{"--dim=x:1", "--range=1:100000", "--step=1"}, "--step=1 over --range=1:100000 gives 100000 sizes; at most 1000"},
      {{"--dim=x:1", "--range=1:2", "--iters=5"}, "--iters times the sizes of --run; add --run"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"sweep", graph};
    args.insert(args.end(), flags.begin(), flags.end());
    const CliResult r = RunKiln(args);
    EXPECT_EQ(r.status, kExitUsage) << message;
    EXPECT_EQ(r.err, "kiln: " + message + "\n");
    EXPECT_EQ(r.out, "");
  }
  const CliResult broken = RunKiln({"sweep", reshaped, "--dim=x:1", "--range=1000:2000"});
  EXPECT_EQ(broken.status, kExitFailure);
  EXPECT_EQ(broken.err, "kiln: " + reshaped +
                            ": with x axis 1 = 1000: node \"r\" (reshape): cannot reshape [64,1000] (64000 elements) "
                            "to [65536] (65536 elements)\n");
}

TEST_F(SweepCliTest, RunWithoutAGpuSaysSo) {
  if (Device::Open().ok()) GTEST_SKIP() << "a GPU is present; sweep_cli_gpu_test covers --run";
  const CliResult r = RunKiln({"sweep", Write("softmax.textproto", kSoftmax), "--dim=x:1", "--range=1:2", "--run"});
  EXPECT_EQ(r.status, kExitFailure);
  EXPECT_THAT(r.err, ::testing::StartsWith("kiln: no GPU to run on: "));
  EXPECT_EQ(Count(r.err, "\n"), 1);
}

}  // namespace
}  // namespace kiln
