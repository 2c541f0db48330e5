#include "frontends/cli/device_io.h"

#include <string>
#include <utility>

#include "graph/tensor_bytes.h"
#include "fusion/traffic.h"

namespace kiln {

absl::StatusOr<DeviceIo> UploadIo(const Graph& graph, const std::vector<HostTensor>& inputs) {
  DeviceIo io;
  for (const HostTensor& input : inputs) {
    const std::string bytes = EncodeTensor(input);
    absl::StatusOr<DeviceBuffer> b = DeviceBuffer::FromHost(bytes.data(), static_cast<int64_t>(bytes.size()));
    if (!b.ok()) return b.status();
    io.inputs.push_back(b->ptr());
    io.buffers.push_back(*std::move(b));
  }
  for (NodeId o : graph.outputs()) {
    absl::StatusOr<DeviceBuffer> b = DeviceBuffer::Allocate(TensorBytes(graph.node(o)));
    if (!b.ok()) return b.status();
    io.outputs.push_back(b->ptr());
    io.buffers.push_back(*std::move(b));
  }
  return io;
}

}  // namespace kiln
