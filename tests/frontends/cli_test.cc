// The kiln commands check, eval and workload run in-process (exit codes,
// output, error lines), and the built binary's dispatch, help and version.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "frontends/cli/commands.h"
#include "frontends/graph_file.h"
#include "frontends/scale_down.h"
#include "frontends/workloads.h"
#include "graph/host_tensor.h"
#include "graph/reference.h"
#include "gtest/gtest.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

using CliTest = ScratchTest;

std::string Bundled(const std::string& name) { return BundledGraph(name.substr(0, name.find(".textproto"))); }

TEST_F(CliTest, CheckSummarizesABundledGraph) {
  const std::string path = Bundled("gelu_naive_16384x16384_bf16.textproto");
  CliResult result = RunKiln({"check", path});
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(result.out, path + ": valid, 14 nodes\n"
                               "inputs:\n"
                               "  x: bf16[16384,16384]\n"
                               "outputs:\n"
                               "  y: bf16[16384,16384]\n"
                               "ops:\n"
                               "  input: 1\n"
                               "  constant: 4\n"
                               "  tanh: 1\n"
                               "  add: 2\n"
                               "  mul: 6\n"
                               "parameters: 0 in 0 tensor constants (0 bytes)\n");
}

TEST_F(CliTest, CheckListsNodesDroppedFromThePlan) {
  const std::string path = Write("dead.textproto", R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [4, 4] }
    node { name: "dead" op: "transpose" operand: "x" perm: [1, 0] }
    node { name: "y" op: "neg" operand: "x" }
    output: "y"
  )pb");
  CliResult result = RunKiln({"check", path});
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.out, path + ": valid, 3 nodes\n"
                               "inputs:\n"
                               "  x: f32[4,4]\n"
                               "outputs:\n"
                               "  y: f32[4,4]\n"
                               "ops:\n"
                               "  input: 1\n"
                               "  neg: 1\n"
                               "  transpose: 1\n"
                               "parameters: 0 in 0 tensor constants (0 bytes)\n"
                               "unused, dropped from the plan (no output depends on them):\n"
                               "  dead: f32[4,4] (transpose)\n");
  std::string many = "format_version: 1\nnode { name: \"x\" op: \"input\" dtype: F32 shape: [4] }\n";
  for (int i = 0; i < 25; ++i) absl::StrAppend(&many, "node { name: \"d", i, "\" op: \"exp\" operand: \"x\" }\n");
  many += "output: \"x\"\n";
  result = RunKiln({"check", Write("many.textproto", many)});
  EXPECT_EQ(result.status, 0);
  EXPECT_TRUE(absl::StrContains(result.out, "  d19: f32[4] (exp)\n  ... and 5 more\n")) << result.out;
}

TEST_F(CliTest, CheckReportsABadFileOnOneLine) {
  const std::string path = Write("bad.textproto", R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [4] }
    node { name: "t3" op: "mul" operand: ["x", "q"] }
    output: "t3"
  )pb");
  CliResult result = RunKiln({"check", path});
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "kiln: " + path + ": node \"t3\" (mul): operand \"q\" is not defined\n");

  result = RunKiln({"check", Path("missing.pb")});
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_EQ(result.err, "kiln: " + Path("missing.pb") + ": cannot open: No such file or directory\n");
}

// Kernels cannot reduce i32 exactly, so the file is refused when it is loaded,
// with its path, rather than at code generation.
TEST_F(CliTest, CheckRefusesIntegerReductionsWithThePath) {
  const std::string path = Write("isum.textproto", R"pb(
    format_version: 1
    node { name: "n" op: "input" dtype: I32 shape: [4, 8] }
    node { name: "s" op: "reduce_sum" operand: "n" axes: [1] }
    output: "s"
  )pb");
  CliResult result = RunKiln({"check", path});
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_EQ(result.err, "kiln: " + path +
                            ": node \"s\" (reduce_sum): operand 0 (\"n\") has dtype i32, which this op does not "
                            "accept\n");
}

TEST_F(CliTest, CheckNeedsExactlyOneFile) {
  CliResult result = RunKiln({"check"});
  EXPECT_EQ(result.status, kExitUsage);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "kiln: check takes one argument, FILE, and got none\n");
  EXPECT_EQ(RunKiln({"check", "a.pb", "b.pb"}).err, "kiln: check takes one argument, FILE, and got two\n");
  EXPECT_EQ(RunKiln({"workload", "row_sum", "f32"}).err,
            "kiln: workload takes three arguments, NAME DTYPE DIMS, and got two\n");
}

TEST_F(CliTest, EvalRefusesHugeGraphsWithoutScaleDown) {
  CliResult result = RunKiln({"eval", Bundled("gelu_naive_16384x16384_f32.textproto")});
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err,
            "kiln: node \"x\" (input) holds 268435456 elements, more than the 67108864 the CPU "
            "reference evaluates quickly; rerun with --scale-down\n");
}

// Scaling down caps each dim at 256, which at rank 8 is still 2^64 elements:
// such a graph is refused rather than allocated.
TEST_F(CliTest, EvalRefusesGraphsStillHugeAfterScalingDown) {
  const std::string path = Write("rank8.textproto", R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [64, 64, 64, 64, 64, 64, 64, 64] }
    node { name: "y" op: "exp" operand: "x" }
    output: "y"
  )pb");
  CliResult result = RunKiln({"eval", "--scale-down", path});
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err,
            "kiln: node \"x\" (input) holds 281474976710656 elements after scaling down, more than the "
            "67108864 the CPU reference evaluates quickly\n");
}

// The printed statistics, recomputed here from the reference interpreter.
TEST_F(CliTest, EvalScaledDownPrintsTheReferenceStatistics) {
  CliResult result = RunKiln({"eval", "--scale-down", "--seed=5", Bundled("softmax_naive_512x131072_f32.textproto")});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  const std::vector<std::string> lines = absl::StrSplit(result.out, '\n');
  ASSERT_EQ(lines.size(), 6u) << result.out;
  EXPECT_EQ(lines[0], "scaled down: every dim is now at most 256");
  EXPECT_EQ(lines[1], "input x: f32[256,256], random with seed 5");
  EXPECT_EQ(lines[2], "output y: f32[256,256]");

  absl::StatusOr<Graph> graph = BuildWorkload("softmax_naive", DType::kF32, {512, 131072});
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<Graph> small = ScaleDownGraph(*graph, 256);
  ASSERT_TRUE(small.ok());
  const HostTensor x = RandomTensor(DType::kF32, {256, 256}, 5);
  absl::StatusOr<std::vector<HostTensor>> outputs = EvaluateReference(*small, {x});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  const std::vector<double>& y = (*outputs)[0].data;
  double low = y[0], high = y[0], sum = 0, squares = 0;
  for (double v : y) {
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
    squares += v * v;
  }
  EXPECT_EQ(lines[3], absl::StrFormat("  min %.6g  max %.6g  mean %.6g  l2 %.6g", low, high,
                                      sum / y.size(), std::sqrt(squares)));
  EXPECT_NEAR(sum / y.size(), 1.0 / 256, 1e-9);  // every softmax row sums to 1
  EXPECT_EQ(lines[4], absl::StrFormat("  first values: %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g", y[0],
                                      y[1], y[2], y[3], y[4], y[5], y[6], y[7]));
  EXPECT_EQ(lines[5], "");
}

TEST_F(CliTest, EvalGivesTheIthInputSeedPlusI) {
  const std::string path = Write("add.textproto", R"pb(
    format_version: 1
    node { name: "a" op: "input" dtype: F32 shape: [3] }
    node { name: "b" op: "input" dtype: F32 shape: [3] }
    node { name: "y" op: "add" operand: ["a", "b"] }
    output: "y"
  )pb");
  CliResult result = RunKiln({"eval", "--seed", "10", path});
  ASSERT_EQ(result.status, 0) << result.err;
  const HostTensor a = RandomTensor(DType::kF32, {3}, 10);
  const HostTensor b = RandomTensor(DType::kF32, {3}, 11);
  const double y[3] = {static_cast<float>(a.data[0] + b.data[0]), static_cast<float>(a.data[1] + b.data[1]),
                       static_cast<float>(a.data[2] + b.data[2])};
  EXPECT_NE(result.out.find("input a: f32[3], random with seed 10\n"
                            "input b: f32[3], random with seed 11\n"
                            "output y: f32[3]\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find(absl::StrFormat("  first values: %.6g %.6g %.6g\n", y[0], y[1], y[2])),
            std::string::npos)
      << result.out;
}

TEST_F(CliTest, EvalReportsABadReshapeWhenScalingDown) {
  const std::string path = Write("flat.textproto", R"pb(
    format_version: 1
    node { name: "x" op: "input" dtype: F32 shape: [512, 4] }
    node { name: "flat" op: "reshape" operand: "x" shape: [2048] }
    output: "flat"
  )pb");
  CliResult result = RunKiln({"eval", path, "--scale-down"});
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_EQ(result.err,
            "kiln: cannot scale dims down to at most 256: node \"flat\" (reshape): cannot reshape "
            "[256,4] (1024 elements) to [256] (256 elements)\n");
}

TEST_F(CliTest, WorkloadWritesTheBuildersGraph) {
  CliResult result = RunKiln({"workload", "--out", Path("mm.textproto"), "matmul_relu", "bf16", "64x32x16"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "wrote " + Path("mm.textproto") + ": 4 nodes\n");
  absl::StatusOr<Graph> expected = MatmulRelu(DType::kBF16, 64, 32, 16);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(ReadTextFile(Path("mm.textproto")), SerializeGraphText(*expected));
  EXPECT_EQ(expected->node(0).shape, (Dims{64, 16}));  // a: [M,K]
  EXPECT_EQ(expected->node(1).shape, (Dims{16, 32}));  // b: [K,N]

  ASSERT_EQ(RunKiln({"workload", "matmul_relu", "bf16", "64x32x16", "--out=" + Path("mm.pb")}).status, 0);
  EXPECT_EQ(ReadTextFile(Path("mm.pb")), SerializeGraphBinary(*expected));
}

TEST_F(CliTest, WorkloadWithoutOutPrintsText) {
  CliResult result = RunKiln({"workload", "row_sum", "f32", "8x4"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out,
            "format_version: 1\n"
            "node { name: \"x\" op: \"input\" dtype: F32 shape: [8, 4] }\n"
            "node { name: \"y\" op: \"reduce_sum\" operand: [\"x\"] axes: [1] }\n"
            "output: \"y\"\n");
}

TEST_F(CliTest, WorkloadArgumentErrors) {
  EXPECT_EQ(RunKiln({"workload", "row_sum", "f64", "8x4"}).err,
            "kiln: unknown dtype \"f64\" (expected f32, f16, bf16, bool or i32)\n");
  EXPECT_EQ(RunKiln({"workload", "row_sum", "f32", "8y4"}).err,
            "kiln: dims \"8y4\" are not integers joined by x (e.g. 16384x16384)\n");
  EXPECT_EQ(RunKiln({"workload", "row_sum", "f32", "8x-4"}).err,
            "kiln: node \"x\" (input): shape [8,-4] has a negative dim\n");
  CliResult result = RunKiln({"workload", "row_sum", "f32", "8x4", "--out=" + Path("g.json")});
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_FALSE(fs::exists(Path("g.json")));
}

TEST_F(KilnBinaryTest, FlagsMayUseDashesAndComeAnywhere) {
  CliResult result = Kiln("eval --scale-down " + Bundled("row_sum_256x1048576_f32.textproto") + " --seed 4");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(result.out.rfind("scaled down: every dim is now at most 256\n"
                             "input x: f32[256,256], random with seed 4\n"
                             "output y: f32[256]\n",
                             0),
            0u)
      << result.out;
}

TEST_F(KilnBinaryTest, FailureIsOneLineAndNonZero) {
  Write("garbage.pb", "\xff\xff\xff");
  CliResult result = Kiln("check " + Path("garbage.pb"));
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "kiln: " + Path("garbage.pb") +
                            ": the bytes are not a valid kiln graph (malformed or truncated binary "
                            "protobuf)\n");
}

}  // namespace
}  // namespace kiln
