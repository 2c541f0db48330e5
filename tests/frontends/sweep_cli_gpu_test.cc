// `kiln sweep --run` on a GPU: every size compiled, run and timed, the
// measured line in the plot. Skips with the reason where there is no GPU.
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

class SweepCliGpuTest : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
    if (!device.ok()) GTEST_SKIP() << "no CUDA device: " << device.status().message();
  }
};

TEST_F(SweepCliGpuTest, RunTimesEverySizeOnTheDevicesPlan) {
  const std::string graph = BundledGraph("softmax_naive_65536x1024_f32");
  // The rows vary, not the row length: the largest input is 16 MiB, timed in moments.
  const CliResult r = RunKiln({"sweep", graph, "--dim=x:0", "--range=1:4096", "--steps=5", "--run",
                               "--iters=5", "--json", "--svg=" + Path("sweep.svg")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"ran\": true,"));
  // Five sizes, each with a time and a verdict against its bound.
  const std::regex measured(R"("measured_us": ([0-9.]+), "over_bound": (true|false)\})");
  int steps = 0;
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), measured), end; it != end; ++it) {
    EXPECT_GT(std::stod((*it)[1]), 0.0);
    ++steps;
  }
  EXPECT_EQ(steps, 5);
  const std::string svg = ReadTextFile(Path("sweep.svg"));
  EXPECT_THAT(svg, HasSubstr("stroke=\"#ff7f0e\" stroke-width=\"2\" points=\""));  // the measured line
  EXPECT_THAT(svg, ::testing::EndsWith("</svg>\n"));
}

TEST_F(SweepCliGpuTest, TableHasTheMeasuredColumn) {
  const std::string graph = BundledGraph("row_sum_16384x16384_f32");
  const CliResult r = RunKiln({"sweep", graph, "--dim=x:0", "--range=1,1000", "--run", "--iters=3"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("        size  kernels          HBM bytes     bound us  measured us  notes\n"));
  EXPECT_THAT(r.out, HasSubstr("; over 1.1x the bound: "));
  EXPECT_THAT(r.out, HasSubstr(" of 2 sizes\n"));
}

}  // namespace
}  // namespace kiln
