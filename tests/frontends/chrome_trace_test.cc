// The Chrome trace of one run: metadata naming the process and track, one
// complete ("X") event per kernel in microseconds, escaped strings.
#include "frontends/cli/chrome_trace.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(ChromeTraceTest, OneCompleteEventPerKernel) {
  const std::vector<TracedKernel> kernels = {
      {.name = "f0_pointwise", .strategy = "vectorized tiles", .nodes = {"t1", "y"}, .bytes = 8000000,
       .start_us = 0.0, .end_us = 2.0},
      {.name = "f1_row_reduction", .strategy = "looped", .nodes = {"s"}, .bytes = 4000, .start_us = 2.5,
       .end_us = 3.5},
  };
  EXPECT_EQ(ChromeTraceJson("kiln run \"g\" on H200", kernels),
            "{\n"
            "  \"displayTimeUnit\": \"ns\",\n"
            "  \"traceEvents\": [\n"
            "    {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"kiln run \\\"g\\\" on H200\"}},\n"
            "    {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"kernels\"}},\n"
            "    {\"name\": \"f0_pointwise\", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": 0.000, "
            "\"dur\": 2.000, \"args\": {\"strategy\": \"vectorized tiles\", \"nodes\": [\"t1\", \"y\"], \"bytes\": 8000000, "
            "\"gbps\": 4000.0}},\n"
            "    {\"name\": \"f1_row_reduction\", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": 2.500, "
            "\"dur\": 1.000, \"args\": {\"strategy\": \"looped\", \"nodes\": [\"s\"], \"bytes\": 4000, \"gbps\": 4.0}}\n"
            "  ]\n"
            "}\n");
}

}  // namespace
}  // namespace kiln
