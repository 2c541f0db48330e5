// A graph's inputs uploaded to the device and room for its outputs: the
// device pointers `kiln run` and `kiln sweep --run` time the plan on.
//
//   absl::StatusOr<DeviceIo> io = UploadIo(graph, inputs);
//   exe->Time(io->inputs, io->outputs, iters);
#ifndef KILN_FRONTENDS_CLI_DEVICE_IO_H_
#define KILN_FRONTENDS_CLI_DEVICE_IO_H_

#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"
#include "runtime/device_buffer.h"

namespace kiln {

struct DeviceIo {
  std::vector<DeviceBuffer> buffers;  // owns the memory the pointers point to
  std::vector<CUdeviceptr> inputs, outputs;
};

// `inputs` follow graph.inputs(); outputs are allocated, not written.
absl::StatusOr<DeviceIo> UploadIo(const Graph& graph, const std::vector<HostTensor>& inputs);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_DEVICE_IO_H_
