// A Chrome trace (the JSON "Trace Event Format" that Perfetto and
// chrome://tracing open) of one run's kernels: one complete event per kernel
// on one track, with its strategy, graph nodes and modelled bytes.
//
//   std::string json = ChromeTraceJson("softmax on NVIDIA H200", kernels);
//   {"displayTimeUnit": "ns", "traceEvents": [
//     {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "softmax on NVIDIA H200"}},
//     {"name": "f0_row_reduction", "cat": "kernel", "ph": "X", "pid": 1, "tid": 1,
//      "ts": 0.000, "dur": 131.200, "args": {...}}]}
#ifndef KILN_FRONTENDS_CLI_CHROME_TRACE_H_
#define KILN_FRONTENDS_CLI_CHROME_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kiln {

struct TracedKernel {
  std::string name;
  std::string strategy;
  std::vector<std::string> nodes;
  int64_t bytes = 0;  // the model's, read + written
  double start_us = 0;
  double end_us = 0;
};

std::string ChromeTraceJson(absl::string_view process_name, const std::vector<TracedKernel>& kernels);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_CHROME_TRACE_H_
