// The device memory of a graph's constants, uploaded once when an Executable
// is compiled and read by every Run: each tensor constant a kernel reads,
// and each scalar constant that a kernel reads through a view (a reshape) or
// that a graph output holds. Scalar constants used directly are immediates in
// the kernels and get no memory.
//
//   absl::StatusOr<ConstantBuffers> constants = ConstantBuffers::Upload(graph, plan);
//   constants->Bind(addresses);                        // addresses[w] = w's device pointer
//   constants->UseDeviceMemory(w, weights_on_device);  // the caller's copy instead
#ifndef KILN_RUNTIME_CONSTANT_BUFFERS_H_
#define KILN_RUNTIME_CONSTANT_BUFFERS_H_

#include <cuda.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "fusion/plan.h"
#include "graph/graph.h"
#include "runtime/device_buffer.h"

namespace kiln {

class ConstantBuffers {
 public:
  // The nodes that need memory, in node order, without touching a device.
  static std::vector<NodeId> ConstantsInMemory(const Graph& graph, const Plan& plan);
  // Copies each of them to the device (the context current on this thread).
  static absl::StatusOr<ConstantBuffers> Upload(const Graph& graph, const Plan& plan);

  ConstantBuffers() = default;
  ConstantBuffers(ConstantBuffers&& other) noexcept;
  ConstantBuffers& operator=(ConstantBuffers&& other) noexcept;

  // Sets addresses[id] for every constant held here.
  void Bind(std::vector<CUdeviceptr>& addresses) const;

  // Kernels read constant `id` from `ptr` (16-byte aligned, holding the
  // constant's bytes, alive while runs use it) instead of the uploaded copy,
  // which is freed.
  absl::Status UseDeviceMemory(const Graph& graph, NodeId id, CUdeviceptr ptr);

  int64_t uploaded_bytes() const;

 private:
  struct Entry {
    NodeId node;
    DeviceBuffer buffer;    // empty once the caller's memory is used
    CUdeviceptr address;
  };
  mutable absl::Mutex mu_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kiln

#endif  // KILN_RUNTIME_CONSTANT_BUFFERS_H_
