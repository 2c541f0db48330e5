// Chooses the config of each matmul kernel of a plan by timing the
// candidates fusion/ lists (MatmulCandidates) on the GPU, once per tuning
// key: a later plan of the same kernel, in this process or another, takes the
// winner from the TuningCache. The choice reaches code generation as the
// kernel's schedule (ApplyMatmulConfig), marked "tuned" or "tuning cache".
//
//   TuningCache tuning;
//   absl::StatusOr<std::vector<TuningReport>> r =
//       TuneMatmulKernels(graph, plan, limits, device, kernels, tuning, {.progress = print_line});
//   (*r)[0].config, (*r)[0].source, (*r)[0].seconds
//
// Candidates compile in parallel (through the KernelCache) and run on
// random inputs in buffers of their own; a candidate that fails to compile or
// launch is skipped with a progress line. Kernels whose config the user fixed
// (config_source other than "heuristic") are left alone.
#ifndef KILN_RUNTIME_AUTOTUNER_H_
#define KILN_RUNTIME_AUTOTUNER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "runtime/device.h"
#include "runtime/kernel_cache.h"
#include "runtime/tuning_cache.h"

namespace kiln {

struct TuningOptions {
  // Called with one line per kernel tuned and per candidate timed.
  std::function<void(absl::string_view)> progress;
};

// What tuning decided for one matmul kernel.
struct TuningReport {
  std::string kernel;
  MatmulConfig config;
  std::string source;       // "tuned" or "tuning cache"
  int candidates = 0;       // timed (0 when the cache answered)
  double best_us = 0;       // the winner's median time; 0 when the cache answered
  double heuristic_us = 0;  // the heuristic config's median time, when timed
  double seconds = 0;       // wall time of tuning this kernel, compiles included
};

absl::StatusOr<std::vector<TuningReport>> TuneMatmulKernels(const Graph& graph, Plan& plan,
                                                            const DeviceLimits& limits, const Device& device,
                                                            KernelCache& kernels, TuningCache& tuning,
                                                            const TuningOptions& options);

}  // namespace kiln

#endif  // KILN_RUNTIME_AUTOTUNER_H_
