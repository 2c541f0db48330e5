// kiln run's report, rendered from a hand-made RunResult: the table and the
// JSON, with every string escaped and no figure that is not valid JSON.
#include "frontends/cli/run_report.h"

#include <cmath>

#include "gtest/gtest.h"

namespace kiln {
namespace {

RunResult Example() {
  RunResult r{.kiln = "0.1.0 (git 7ac6d81f2a3b)",
              .graph = "softmax_naive_65536x1024_f32",
              .fused = true,
              .gpu = "NVIDIA H200 \"SXM\"",
              .nvrtc = "12.8",
              .copy_bytes_per_second = 4.2e12,
              .same_size_copy_bytes_per_second = 4.17e12,
              .iters = 50};
  r.kernels.push_back({.name = "f0_row_reduction",
                       .kind = "row_reduction",
                       .strategy = "persistent (warp per row)",
                       .traffic = {.bytes_read = 268435456, .bytes_written = 268435456, .flops = 335544320},
                       .roofline_us = 127.2,
                       .us = 131.0});
  r.total = {.name = "total",
             .strategy = "1 kernel",
             .traffic = r.kernels[0].traffic,
             .roofline_us = 127.2,
             .us = 132.5};
  r.check = {.checked = true, .max_error = 1.25e-7, .tolerance = 1e-5};
  r.compile_ms = 41.54;
  r.first_result_ms = 270.31;
  r.host_us_per_run = 3.104;
  r.run_launch = "kernel by kernel: the CUDA driver has no graph API";
  r.cache = {.memory_hits = 0, .disk_hits = 1, .compiles = 0};
  return r;
}

TEST(RunReportTest, Table) {
  EXPECT_EQ(RunTable(Example()),
            "softmax_naive_65536x1024_f32 (fused plan) on NVIDIA H200 \"SXM\"; copy ceiling 4200 GB/s\n"
            "kernel             strategy                                        time us       GB/s   % copy  % roofline\n"
            "f0_row_reduction   persistent (warp per row)                         131.0       4098    97.6%       97.1%\n"
            "total              1 kernel                                          132.5       4052    96.5%       96.0%\n"
            "a copy of the plan's 536.9 MB runs at 4170 GB/s: the plan reaches 97.2% of it\n"
            "check: max relative error 1.25e-07 (tolerance 1e-05): PASS\n"
            "compile 41.5 ms (0 compiled, 1 from disk cache); first result after 270.3 ms; host 3.10 us per Run "
            "(kernel by kernel: the CUDA driver has no graph API)\n");
}

TEST(RunReportTest, TableSaysWhatCompilingAKernelDecided) {
  RunResult r = Example();
  r.kernels[0].compile_note = "launch bound tuned to 3 blocks per SM: 4 182.1 us (spilled 72 B a thread), 3 132.2 us";
  EXPECT_NE(RunTable(r).find("of it\nf0_row_reduction: launch bound tuned to 3 blocks per SM: 4 182.1 us (spilled "
                             "72 B a thread), 3 132.2 us\ncheck:"),
            std::string::npos)
      << RunTable(r);
}

TEST(RunReportTest, TableWithoutCheckAndFailingCheck) {
  RunResult r = Example();
  r.check.checked = false;
  EXPECT_EQ(RunTable(r).find("check:"), std::string::npos);
  EXPECT_TRUE(r.check.Passed());
  r.check = {.checked = true, .max_error = INFINITY, .tolerance = 1e-5};
  EXPECT_FALSE(r.check.Passed());
  EXPECT_NE(RunTable(r).find("check: max relative error inf (tolerance 1e-05): FAIL\n"), std::string::npos);
}

TEST(RunReportTest, JsonNamesAMatmulKernelsConfigAndWhereItCameFrom) {
  RunResult r = Example();
  r.kernels[0].kind = "matmul";
  r.kernels[0].matmul_config = "128x256x64:4:8:pingpong";
  r.kernels[0].matmul_config_source = "tuning cache";
  EXPECT_NE(RunJson(r).find("\"kind\": \"matmul\", \"strategy\": \"persistent (warp per row)\", \"matmul\": "
                            "{\"config\": \"128x256x64:4:8:pingpong\", \"source\": \"tuning cache\"}, \"compile_note\": \"\", \"us\": "),
            std::string::npos)
      << RunJson(r);
}

TEST(RunReportTest, JsonEscapesStringsAndNullsNonFiniteNumbers) {
  RunResult r = Example();
  EXPECT_EQ(RunJson(r),
            "{\n"
            "  \"kiln\": \"0.1.0 (git 7ac6d81f2a3b)\",\n"
            "  \"graph\": \"softmax_naive_65536x1024_f32\",\n"
            "  \"plan\": \"fused\",\n"
            "  \"gpu\": \"NVIDIA H200 \\\"SXM\\\"\",\n"
            "  \"nvrtc\": \"12.8\",\n"
            "  \"copy_gbps\": 4200.0,\n"
            "  \"same_size_copy_gbps\": 4170.0,\n"
            "  \"iters\": 50,\n"
            "  \"total\": {\"us\": 132.500, \"bytes\": 536870912, \"bytes_read\": 268435456, \"bytes_written\": "
            "268435456, \"flops\": 335544320, \"gbps\": 4051.9, \"fraction_of_copy\": 0.9647, \"roofline_us\": 127.200, "
            "\"fraction_of_roofline\": 0.9600},\n"
            "  \"total_fraction_of_same_size_copy\": 0.9717,\n"
            "  \"kernels\": [\n"
            "    {\"name\": \"f0_row_reduction\", \"kind\": \"row_reduction\", \"strategy\": \"persistent (warp per "
            "row)\", \"matmul\": null, \"compile_note\": \"\", \"us\": 131.000, \"bytes\": 536870912, \"bytes_read\": 268435456, \"bytes_written\": 268435456, "
            "\"flops\": 335544320, \"gbps\": 4098.3, \"fraction_of_copy\": 0.9758, \"roofline_us\": 127.200, "
            "\"fraction_of_roofline\": 0.9710}\n"
            "  ],\n"
            "  \"check\": {\"max_rel_error\": 1.25e-07, \"tolerance\": 1e-05, \"passed\": true, \"checked\": true},\n"
            "  \"compile_ms\": 41.5,\n"
            "  \"first_result_ms\": 270.3,\n"
            "  \"inputs_drawn_on_device\": false,\n"
            "  \"host_us_per_run\": 3.10,\n"
            "  \"run_launch\": \"kernel by kernel: the CUDA driver has no graph API\",\n"
            "  \"cache\": {\"compiles\": 0, \"disk_hits\": 1, \"memory_hits\": 0}\n"
            "}\n");
  r.check.max_error = INFINITY;
  EXPECT_NE(RunJson(r).find("\"max_rel_error\": null, \"tolerance\": 1e-05, \"passed\": false"), std::string::npos);
}

}  // namespace
}  // namespace kiln
