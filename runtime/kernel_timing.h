// One generated kernel timed alone, on buffers of its own: how tuning
// compares the variants of a kernel (matmul configs, launch bounds).
//
//   absl::StatusOr<std::map<NodeId, DeviceBuffer>> buffers = TuningBuffers(graph, generated, device, cache);
//   absl::StatusOr<double> us = TimeKernelAlone(device, generated, *loaded, *buffers);
#ifndef KILN_RUNTIME_KERNEL_TIMING_H_
#define KILN_RUNTIME_KERNEL_TIMING_H_

#include <map>

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "graph/graph.h"
#include "runtime/device.h"
#include "runtime/device_buffer.h"
#include "runtime/kernel_cache.h"
#include "runtime/loaded_kernel.h"

namespace kiln {

// How `generated` launches: its grid, block and dynamic shared memory. A
// cluster size is declared in the kernel source (__cluster_dims__), so a
// plain launch forms the clusters and cluster_x stays 1.
LaunchConfig LaunchConfigOf(const GeneratedKernel& generated);

// A buffer for each node a parameter of `generated` addresses: those it
// reads seeded random (timing on zeros flatters the tensor cores, 13% on an
// H200), those it writes unwritten. Variants of one kernel share the nodes.
absl::StatusOr<std::map<NodeId, DeviceBuffer>> TuningBuffers(const Graph& graph, const GeneratedKernel& generated,
                                                            const Device& device, KernelCache& cache);

// The median time of `loaded` (compiled from `generated`) on `buffers`, over
// about 20 ms of runs (5 to 50) after a warm-up.
absl::StatusOr<double> TimeKernelAlone(const Device& device, const GeneratedKernel& generated,
                                       const LoadedKernel& loaded, const std::map<NodeId, DeviceBuffer>& buffers);

}  // namespace kiln

#endif  // KILN_RUNTIME_KERNEL_TIMING_H_
