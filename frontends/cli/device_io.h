// A graph's inputs on the device and room for its outputs: the device
// pointers `kiln run` and `kiln sweep --run` time the plan on. The inputs are
// uploaded from the host, or drawn on the device where nothing needs them on
// the host.
//
//   absl::StatusOr<DeviceIo> io = UploadIo(graph, inputs);
//   absl::StatusOr<DeviceIo> io = DrawIo(graph, device, cache, /*seed=*/1);
//   exe->Time(io->inputs, io->outputs, iters);
//   absl::StatusOr<std::vector<HostTensor>> outputs = DownloadOutputs(graph, *io);
#ifndef KILN_FRONTENDS_CLI_DEVICE_IO_H_
#define KILN_FRONTENDS_CLI_DEVICE_IO_H_

#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"
#include "runtime/device.h"
#include "runtime/device_buffer.h"
#include "runtime/kernel_cache.h"

namespace kiln {

struct DeviceIo {
  std::vector<DeviceBuffer> buffers;  // the inputs' memory, then the outputs'
  std::vector<CUdeviceptr> inputs, outputs;
};

// Both fill the outputs with NaN bytes, so an element no kernel writes cannot
// pass a check. `inputs` follow graph.inputs().
absl::StatusOr<DeviceIo> UploadIo(const Graph& graph, const std::vector<HostTensor>& inputs);

// Input i holds RandomTensor(dtype, shape, seed + i), drawn on the device (the
// same values InputsFromFlags draws on the host).
absl::StatusOr<DeviceIo> DrawIo(const Graph& graph, const Device& device, KernelCache& cache, uint64_t seed);

// The outputs' current values, in graph.outputs() order.
absl::StatusOr<std::vector<HostTensor>> DownloadOutputs(const Graph& graph, const DeviceIo& io);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_DEVICE_IO_H_
