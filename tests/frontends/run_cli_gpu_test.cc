// `kiln run` on a GPU through the built binary: the report as JSON, the
// Chrome trace, the dump folder's run files, and --measure under a real
// Nsight Compute. Each test skips with the reason where there is no GPU
// (or no ncu).
#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/cli/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

class RunCliGpuTest : public KilnBinaryTest {
 protected:
  void SetUp() override {
    KilnBinaryTest::SetUp();
    if (IsSkipped()) return;
    absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
    if (!device.ok()) GTEST_SKIP() << "no CUDA device: " << device.status().message();
  }
};

const std::string kSoftmax = BundledGraph("softmax_naive_65536x1024_f32");

TEST_F(RunCliGpuTest, TraceAndDumpHoldTheRun) {
  const CliResult result =
      Kiln(absl::StrCat("run --iters=3 --json --trace=", Path("trace.json"), " --dump=", Path("d"), " ", kSoftmax));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("\"check\": {\"max_rel_error\": "));
  EXPECT_THAT(result.out, HasSubstr("\"passed\": true, \"checked\": true}"));
  EXPECT_THAT(result.out, HasSubstr("{\"name\": \"f0_row_reduction\", \"kind\": \"row_reduction\""));
  const std::string trace = ReadTextFile(Path("trace.json"));
  EXPECT_THAT(trace, HasSubstr("{\"name\": \"f0_row_reduction\", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": 1, "
                               "\"tid\": 1, \"ts\": 0.000, \"dur\": "));
  EXPECT_THAT(trace, HasSubstr("\"nodes\": [\"m\", \"d\", \"e\", \"s\", \"y\"], \"bytes\": 536870912"));
  const std::filesystem::path dump = Path("d");
  for (const char* file : {"graph.textproto", "plan.txt", "plan.json", "plan.dot", "explain.txt", "run.txt",
                           "run.json", "trace.json", "kernels/f0_row_reduction.cu"}) {
    EXPECT_TRUE(std::filesystem::exists(dump / file)) << file;
  }
  EXPECT_THAT(ReadTextFile(dump / "run.json"), HasSubstr("\"passed\": true"));
  EXPECT_THAT(ReadTextFile(dump / "run.txt"), HasSubstr("check: max relative error "));
  EXPECT_THAT(ReadTextFile(dump / "trace.json"), HasSubstr("\"name\": \"f0_row_reduction\""));
}

TEST_F(RunCliGpuTest, TableNamesThePlanAndTheGpu) {
  const CliResult result = Kiln("run --iters=3 --unfused " + kSoftmax);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, ::testing::StartsWith("softmax_naive_65536x1024_f32 (unfused plan) on "));
  EXPECT_THAT(result.out, HasSubstr("\ntotal              5 kernels "));
  EXPECT_THAT(result.out, HasSubstr("): PASS\n"));
  // Five kernels: the host cost is that of replaying their CUDA graph.
  EXPECT_THAT(result.out, HasSubstr(" us per Run (CUDA graph replay)\n"));
  const CliResult fused = Kiln("run --iters=3 --json " + kSoftmax);
  ASSERT_EQ(fused.status, 0) << fused.err;
  EXPECT_THAT(fused.out, HasSubstr("\"run_launch\": \"CUDA graph replay\""));
}

// kiln tune fills the tuning cache; a second tune and a run find it there.
TEST_F(RunCliGpuTest, TuneAheadOfTimeIsWhatRunUses) {
  const std::string graph = BundledGraph("matmul/matmul_relu_4096x4096x4096_bf16");
  const std::string cache = absl::StrCat("KILN_CACHE_DIR=", Path("cache"));
  const CliResult tuned = Kiln("tune " + graph, cache);
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  EXPECT_THAT(tuned.out, ::testing::StartsWith("matmul_relu_4096x4096x4096_bf16 (fused plan) on "));
  // A config's flags are words joined by hyphens: "128x256x64:3:8:epilogue-warps".
  EXPECT_THAT(tuned.out, ::testing::MatchesRegex("(.|\n)*\nf0_matmul +[0-9x:a-z-]+ +tuned +[1-9][0-9]* +[0-9.]+ "
                                                 "(.|\n)*"));
  EXPECT_THAT(tuned.err, HasSubstr("tuning f0_matmul (wgmma, [4096,4096]): "));
  const CliResult again = Kiln("tune " + graph, cache);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr(" tuning cache "));
  const CliResult run = Kiln("run --iters=2 --no-check --json " + graph, cache);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("\"source\": \"tuning cache\"}"));
  const CliResult heuristic = Kiln("run --iters=2 --no-check --json --autotune=off " + graph, cache);
  ASSERT_EQ(heuristic.status, 0) << heuristic.err;
  EXPECT_THAT(heuristic.out, HasSubstr("\"source\": \"heuristic\"}"));
}

TEST_F(RunCliGpuTest, MeasureReadsBackNcusBytes) {
  if (FindProgram("ncu").empty()) GTEST_SKIP() << "Nsight Compute (ncu) is not on PATH";
  const CliResult result = Kiln("run --measure --json " + kSoftmax);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("{\"kernel\": \"f0_row_reduction\", \"kind\": \"row_reduction\""));
  EXPECT_THAT(result.out, HasSubstr("\"launches\": 2,"));
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr("\"measured_read\": null")));
}

}  // namespace
}  // namespace kiln
