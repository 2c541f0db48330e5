// What `kiln run` found, as plain data, and its two renderings (the table
// and JSON), kept apart from the GPU work so that both are tested without
// one, the way the plan reports are.
//
//   RunResult result = ...;          // filled by run_command.cc
//   std::cout << RunTable(result);   // or RunJson(result)
//
//   softmax (fused plan) on NVIDIA H200; copy ceiling 4223 GB/s
//   kernel             strategy                       time us    GB/s   % copy  % roofline
//   f0_row_reduction   persistent (warp per row)        131.2    4092    96.9%       96.9%
//   total              1 kernel                          132.0    4067    96.3%       96.3%
//   a copy of the plan's 537 MB runs at 4190 GB/s: the plan reaches 97.1% of it
//   check: max relative error 1.1e-07 (tolerance 1e-05): PASS
//   compile 41.5 ms (1 compiled, 0 from disk cache); first result after 270.3 ms; host 3.10 us per Run
//   (CUDA graph replay)
#ifndef KILN_FRONTENDS_CLI_RUN_REPORT_H_
#define KILN_FRONTENDS_CLI_RUN_REPORT_H_

#include <string>
#include <vector>

#include "fusion/plan.h"
#include "runtime/kernel_cache.h"

namespace kiln {

// One kernel's figures, or the whole plan's ("total").
struct RunFigures {
  std::string name;
  std::string kind;      // empty for the total
  std::string strategy;  // "3 kernels" for the total
  Traffic traffic;       // the model's bytes and flops
  double roofline_us = 0;
  double us = 0;         // median measured time
  // Matmul kernels: the config that ran ("128x256x64:3:8") and where it came
  // from ("heuristic", "--matmul-tile", "tuned", "tuning cache"); else empty.
  std::string matmul_config;
  std::string matmul_config_source;
  // What compiling and loading the kernel found beyond the plan (Executable::compile_notes): a tuned
  // launch bound, a cluster kernel's resident clusters; empty for most.
  std::string compile_note;
};

struct RunCheck {
  bool checked = false;  // false: --no-check
  double max_error = 0;  // relative L2 error of the worst output; infinite for NaN
  double tolerance = 0;
  bool Passed() const { return !checked || max_error < tolerance; }
};

struct RunResult {
  std::string kiln;   // the build that ran (KilnBuildText), so results say what they measured
  std::string graph;  // the file name without its extension
  bool fused = true;
  std::string gpu;
  std::string nvrtc;
  double copy_bytes_per_second = 0;  // device-to-device copy of 1 GiB, read + write, measured in the same run
  // A copy moving as many bytes as the plan (up to the ceiling's): below the
  // ceiling for small plans, the reference for the plan's size. A plan that
  // mostly reads can pass it, since reads alone outrun a copy's mix.
  double same_size_copy_bytes_per_second = 0;
  int iters = 0;
  std::vector<RunFigures> kernels;
  RunFigures total;
  RunCheck check;
  double compile_ms = 0;
  double first_result_ms = 0;
  // Seeded random inputs drawn on the device (nothing needed them on the
  // host); false for inputs drawn or read on the host and uploaded.
  bool inputs_drawn_on_device = false;
  double host_us_per_run = 0;
  // How those runs launched the plan: "CUDA graph replay", or "kernel by
  // kernel" with the reason ("kernel by kernel: the CUDA driver has no graph API").
  std::string run_launch;
  CacheStats cache;
};

std::string RunTable(const RunResult& result);
// Every figure of the table, per kernel and in total; non-finite numbers are null.
std::string RunJson(const RunResult& result);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_RUN_REPORT_H_
