// The key under which a tuner keeps its choice for one kernel in the
// TuningCache (runtime/tuning_cache.h): which tuner chose, the kernel as
// planned (before any tuning) generated under a fixed name with the device
// library it includes, the GPU's name and SM count, the architecture and the
// NVRTC version. A change to any of them times the kernel again.
//
//   absl::StatusOr<Hash128> key = KernelTuningKey(TuningKind::kLaunchBound, graph, kernel, limits, device.info());
#ifndef KILN_RUNTIME_TUNING_KEY_H_
#define KILN_RUNTIME_TUNING_KEY_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "graph/graph.h"
#include "runtime/device.h"
#include "runtime/stable_hash.h"

namespace kiln {

// The tuners whose choices the TuningCache keeps. Each hashes its own kind
// into its keys, so one tuner never finds another's choice for a kernel.
enum class TuningKind {
  kMatmulConfig,  // a matmul kernel's config (runtime/autotuner.h)
  kLaunchBound,   // the blocks per SM a spilling bound asks for (runtime/launch_bound_tuner.h)
  kRowClusters,   // a cluster-looped row kernel's cluster size (runtime/row_cluster_tuner.h)
};

// The key of `kind`'s choice for the kernel whose heuristic source is
// `heuristic_source`: the whole translation unit, device library and body
// (the body spells out shapes, dtypes, operand layouts, batches, the
// epilogue and the planned schedule).
Hash128 TuningKey(TuningKind kind, absl::string_view heuristic_source, const DeviceInfo& device,
                  absl::string_view arch);

// TuningKey of `kernel` as planned, generated under a fixed name so that
// equal kernels of different graphs share one result, with the device
// library: a choice timed on other library code may no longer be the best.
// For limits.Arch().
absl::StatusOr<Hash128> KernelTuningKey(TuningKind kind, const Graph& graph, const Kernel& kernel,
                                        const DeviceLimits& limits, const DeviceInfo& device);

}  // namespace kiln

#endif  // KILN_RUNTIME_TUNING_KEY_H_
