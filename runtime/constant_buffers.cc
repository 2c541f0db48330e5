#include "runtime/constant_buffers.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/tensor_bytes.h"

namespace kiln {
namespace {

// The node whose memory a view reads.
NodeId Root(const Graph& graph, NodeId id) {
  while (graph.node(id).op == OpKind::kReshape) id = graph.node(id).operands[0];
  return id;
}

std::string ConstantBytes(const Node& node) {
  if (IsTensorConstant(node)) return *node.data;
  return EncodeTensor({.dtype = node.dtype, .shape = {}, .data = {node.value}});
}

}  // namespace

std::vector<NodeId> ConstantBuffers::ConstantsInMemory(const Graph& graph, const Plan& plan) {
  std::vector<bool> needed(graph.size(), false);
  for (const Kernel& kernel : plan.kernels) {
    for (NodeId input : kernel.inputs) needed[Root(graph, input)] = true;
  }
  for (NodeId output : graph.outputs()) needed[Root(graph, output)] = true;
  std::vector<NodeId> constants;
  for (NodeId id = 0; id < graph.size(); ++id) {
    if (needed[id] && graph.node(id).op == OpKind::kConstant) constants.push_back(id);
  }
  return constants;
}

absl::StatusOr<ConstantBuffers> ConstantBuffers::Upload(const Graph& graph, const Plan& plan) {
  std::vector<Entry> entries;
  for (NodeId id : ConstantsInMemory(graph, plan)) {
    const std::string bytes = ConstantBytes(graph.node(id));
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::FromHost(bytes.data(), static_cast<int64_t>(bytes.size()));
    if (!buffer.ok()) return buffer.status();
    const CUdeviceptr address = buffer->ptr();
    entries.push_back({id, *std::move(buffer), address});
  }
  // The lock is released before the result is moved out: the move locks it.
  ConstantBuffers result;
  {
    absl::MutexLock lock(&result.mu_);
    result.entries_ = std::move(entries);
  }
  return result;
}

ConstantBuffers::ConstantBuffers(ConstantBuffers&& other) noexcept {
  absl::MutexLock lock(&other.mu_);
  entries_ = std::move(other.entries_);
}

ConstantBuffers& ConstantBuffers::operator=(ConstantBuffers&& other) noexcept {
  if (this == &other) return *this;
  absl::MutexLock lock_other(&other.mu_);
  absl::MutexLock lock(&mu_);
  entries_ = std::move(other.entries_);
  return *this;
}

void ConstantBuffers::Bind(std::vector<CUdeviceptr>& addresses) const {
  absl::MutexLock lock(&mu_);
  for (const Entry& entry : entries_) addresses[entry.node] = entry.address;
}

absl::Status ConstantBuffers::UseDeviceMemory(const Graph& graph, NodeId id, CUdeviceptr ptr) {
  if (id < 0 || id >= graph.size() || graph.node(id).op != OpKind::kConstant) {
    return absl::InvalidArgumentError(absl::StrCat("node id ", id, " is not a constant of the graph"));
  }
  const Node& node = graph.node(id);
  if (ptr == 0 || ptr % 16 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("device pointer for ", NodeLabel(node), " is null or not 16-byte aligned"));
  }
  absl::MutexLock lock(&mu_);
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.node == id; });
  if (it == entries_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(node), " is an immediate in the kernels; no kernel reads it from memory"));
  }
  it->buffer = DeviceBuffer();
  it->address = ptr;
  return absl::OkStatus();
}

int64_t ConstantBuffers::uploaded_bytes() const {
  absl::MutexLock lock(&mu_);
  int64_t bytes = 0;
  for (const Entry& entry : entries_) bytes += entry.buffer.size();
  return bytes;
}

}  // namespace kiln
