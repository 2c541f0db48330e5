#include "frontends/cli/device_io.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "fusion/traffic.h"
#include "graph/tensor_bytes.h"
#include "runtime/device_random.h"

namespace kiln {
namespace {

absl::Status ForNode(const Node& node, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(NodeLabel(node), ": ", s.message()));
}

// Appends a buffer for each output, filled with NaN bytes (in every float
// dtype), so an element no kernel writes cannot pass a check.
absl::Status AddOutputs(const Graph& graph, DeviceIo& io) {
  for (NodeId o : graph.outputs()) {
    absl::StatusOr<DeviceBuffer> b = DeviceBuffer::Allocate(TensorBytes(graph.node(o)));
    if (!b.ok()) return ForNode(graph.node(o), b.status());
    if (absl::Status s = b->Memset8(0xff); !s.ok()) return s;
    io.outputs.push_back(b->ptr());
    io.buffers.push_back(*std::move(b));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DeviceIo> UploadIo(const Graph& graph, const std::vector<HostTensor>& inputs) {
  DeviceIo io;
  for (const HostTensor& input : inputs) {
    const std::string bytes = EncodeTensor(input);
    absl::StatusOr<DeviceBuffer> b = DeviceBuffer::FromHost(bytes.data(), static_cast<int64_t>(bytes.size()));
    if (!b.ok()) return b.status();
    io.inputs.push_back(b->ptr());
    io.buffers.push_back(*std::move(b));
  }
  if (absl::Status s = AddOutputs(graph, io); !s.ok()) return s;
  return io;
}

absl::StatusOr<DeviceIo> DrawIo(const Graph& graph, const Device& device, KernelCache& cache, uint64_t seed) {
  DeviceIo io;
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const Node& node = graph.node(graph.inputs()[i]);
    absl::StatusOr<DeviceBuffer> b = DeviceBuffer::Allocate(TensorBytes(node));
    if (!b.ok()) return ForNode(node, b.status());
    if (absl::Status s = FillRandom(device, cache, node.dtype, NumElements(node.shape), seed + i, *b); !s.ok()) {
      return ForNode(node, s);
    }
    io.inputs.push_back(b->ptr());
    io.buffers.push_back(*std::move(b));
  }
  if (absl::Status s = AddOutputs(graph, io); !s.ok()) return s;
  return io;
}

absl::StatusOr<std::vector<HostTensor>> DownloadOutputs(const Graph& graph, const DeviceIo& io) {
  std::vector<HostTensor> outputs;
  const size_t first_output = io.buffers.size() - io.outputs.size();
  for (size_t j = 0; j < io.outputs.size(); ++j) {
    const Node& node = graph.node(graph.outputs()[j]);
    std::string bytes(static_cast<size_t>(TensorBytes(node)), '\0');
    if (absl::Status s = io.buffers[first_output + j].CopyToHost(bytes.data(), static_cast<int64_t>(bytes.size()));
        !s.ok()) {
      return s;
    }
    outputs.push_back(DecodeTensor(bytes, node.dtype, node.shape));
  }
  return outputs;
}

}  // namespace kiln
