// Tunes the occupancy a kernel's launch bound asks for, where the planner's
// ask makes ptxas spill. The ask (blocks per SM) caps the registers a thread
// may use; whether a spill or fewer blocks per SM costs more depends on
// where the spill lands, so the asks are timed. Layernorm rows of 50257 on
// an H200, asking for 4 blocks of 512 threads: f16 spilled 72 bytes a thread
// and ran 1.37x slower than with 3 blocks; bf16 spilled 48 and lost 2%
// against 3 blocks (8 bytes spilled), while 2 blocks without a spill lost 18%.
// Those rows have fit 32 registers since the output pass keeps its slots in a
// loop (s26); a third column operand still spills (208 bytes, f16).
//
//   absl::StatusOr<TunedKernel> k = LoadWithTunedLaunchBound(graph, *generated, device, cache, arch, true);
//   k->generated   // the variant chosen (its body, its min_blocks_per_sm)
//   k->loaded      // ready to launch
//   k->note        // "" where nothing was tuned, else what was timed
#ifndef KILN_RUNTIME_LAUNCH_BOUND_TUNER_H_
#define KILN_RUNTIME_LAUNCH_BOUND_TUNER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "graph/graph.h"
#include "runtime/device.h"
#include "runtime/kernel_cache.h"
#include "runtime/loaded_kernel.h"

namespace kiln {

struct TunedKernel {
  GeneratedKernel generated;
  std::unique_ptr<LoadedKernel> loaded;
  std::string note;
};

// `generated` compiled and loaded as it is, unless `tune` is set, its bound
// asks for several blocks per SM (min_blocks_per_sm > 1) and the compiled
// kernel spills to local memory. Then each ask from the planner's down to
// the first that does not spill (1: none) is compiled and timed alone on
// random inputs (runtime/kernel_timing.h), and the fastest is kept; the
// note lists them: "launch bound tuned to 3 blocks per SM: 4 182.0 us
// (spilled 72 B a thread), 3 132.7 us".
absl::StatusOr<TunedKernel> LoadWithTunedLaunchBound(const Graph& graph, GeneratedKernel generated, const Device& device,
                                                     KernelCache& cache, const std::string& arch, bool tune);

}  // namespace kiln

#endif  // KILN_RUNTIME_LAUNCH_BOUND_TUNER_H_
