// Nsight Compute's CSV read back, joined to the plan, and compared with the
// traffic model: both CSV layouts ncu prints, the last launch of each kernel,
// flags beyond the tolerance, and the report's table and JSON.
#include "frontends/cli/ncu_report.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kiln {
namespace {

constexpr char kRawCsv[] =
    "==PROF== Connected to process 4242\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\"\n"
    "\"0\",\"4242\",\"kiln\",\"h\",\"f0_pointwise(const float *, float *, long)\",\"1\",\"7\",\"(256, 1, 1)\","
    "\"(1056, 1, 1)\",\"0\",\"9.0\",\"1,073,741,824\",\"1,000,000,000\"\n"
    "\"1\",\"4242\",\"kiln\",\"h\",\"fill_random\",\"1\",\"7\",\"(256, 1, 1)\",\"(1056, 1, 1)\",\"0\",\"9.0\",\"5\",\"7\"\n"
    "\"2\",\"4242\",\"kiln\",\"h\",\"f0_pointwise(const float *, float *, long)\",\"1\",\"7\",\"(256, 1, 1)\","
    "\"(1056, 1, 1)\",\"0\",\"9.0\",\"1073741824\",\"1040000000\"\n";

constexpr char kDetailsCsv[] =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Section Name\","
    "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
    "\"0\",\"1\",\"kiln\",\"h\",\"u0_mul\",\"1\",\"7\",\"Command line profiler metrics\",\"dram__bytes_read.sum\","
    "\"byte\",\"100\"\n"
    "\"0\",\"1\",\"kiln\",\"h\",\"u0_mul\",\"1\",\"7\",\"Command line profiler metrics\",\"dram__bytes_write.sum\","
    "\"byte\",\"40\"\n";

Kernel ModelKernel(const std::string& name, int64_t read, int64_t written) {
  Kernel k;
  k.name = name;
  k.traffic.bytes_read = read;
  k.traffic.bytes_written = written;
  return k;
}

TEST(NcuReportTest, RawPageLaunches) {
  const std::vector<NcuLaunch> launches = ParseNcuCsv(kRawCsv);
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[0].kernel, "f0_pointwise");
  EXPECT_EQ(launches[1].kernel, "fill_random");
  EXPECT_EQ(launches[2].id, 2);
  EXPECT_EQ(launches[0].read_bytes, 1073741824.0);
  EXPECT_EQ(launches[0].write_bytes, 1e9);
  EXPECT_EQ(launches[2].write_bytes, 1.04e9);
}

TEST(NcuReportTest, DetailsPageLaunchesAndNoHeader) {
  const std::vector<NcuLaunch> launches = ParseNcuCsv(kDetailsCsv);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].kernel, "u0_mul");
  EXPECT_EQ(launches[0].read_bytes, 100.0);
  EXPECT_EQ(launches[0].write_bytes, 40.0);
  EXPECT_TRUE(ParseNcuCsv("==PROF== no kernels were profiled\n").empty());
  EXPECT_TRUE(ParseNcuCsv("").empty());
}

TEST(NcuReportTest, CompareUsesTheLastLaunchAndFlagsBeyondTheTolerance) {
  Plan plan;
  plan.kernels = {ModelKernel("f0_pointwise", 1073741824, 1073741824), ModelKernel("f1_row_reduction", 100, 100)};
  const std::vector<MeasuredKernel> rows = CompareTraffic(plan, ParseNcuCsv(kRawCsv));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].launches, 2);
  EXPECT_EQ(rows[0].measured_write, 1.04e9);
  EXPECT_DOUBLE_EQ(*rows[0].deviation, (1073741824.0 + 1.04e9) / 2147483648.0 - 1);
  EXPECT_FALSE(rows[0].flagged);  // -1.6%
  EXPECT_FALSE(rows[1].deviation.has_value());
  EXPECT_EQ(rows[1].note, "no launch of this kernel was profiled");

  plan.kernels = {ModelKernel("u0_mul", 100, 100)};
  const std::vector<MeasuredKernel> flagged = CompareTraffic(plan, ParseNcuCsv(kDetailsCsv));
  EXPECT_DOUBLE_EQ(*flagged[0].deviation, -0.3);
  EXPECT_TRUE(flagged[0].flagged);
}

TEST(NcuReportTest, TableAndJson) {
  Plan plan;
  plan.kernels = {ModelKernel("u0_mul", 100, 100), ModelKernel("u1_exp", 64, 64)};
  const MeasureResult result{.graph = "g",
                             .fused = false,
                             .target = "NVIDIA H200",
                             .command = "ncu --metrics x",
                             .kernels = CompareTraffic(plan, ParseNcuCsv(kDetailsCsv))};
  EXPECT_EQ(MeasureTable(result),
            "g (unfused plan): DRAM bytes measured by Nsight Compute against the model for NVIDIA H200; flagged "
            "beyond 10%\n"
            "kernel                   model read    measured read      off    model written measured written      off    total\n"
            "u0_mul                          100              100    +0.0%              100               40   -60.0%   -30.0%  FLAG\n"
            "u1_exp                           64                -        -               64                -        -        -  no launch of this kernel was profiled\n");
  EXPECT_EQ(MeasureJson(result),
            "{\n"
            "  \"graph\": \"g\",\n"
            "  \"plan\": \"unfused\",\n"
            "  \"target\": \"NVIDIA H200\",\n"
            "  \"command\": \"ncu --metrics x\",\n"
            "  \"tolerance\": 0.10,\n"
            "  \"kernels\": [\n"
            "    {\"kernel\": \"u0_mul\", \"kind\": \"pointwise\", \"strategy\": \"vectorized tiles\", \"model_read\": 100, "
            "\"model_write\": 100, \"measured_read\": 100, \"measured_write\": 40, \"launches\": 1, \"deviation\": -0.3000, "
            "\"flagged\": true, \"note\": \"\"},\n"
            "    {\"kernel\": \"u1_exp\", \"kind\": \"pointwise\", \"strategy\": \"vectorized tiles\", \"model_read\": 64, "
            "\"model_write\": 64, \"measured_read\": null, \"measured_write\": null, \"launches\": 0, \"deviation\": null, "
            "\"flagged\": false, \"note\": \"no launch of this kernel was profiled\"}\n"
            "  ]\n"
            "}\n");
}

}  // namespace
}  // namespace kiln
