// The memory a run may still take, on the device or on the host, and the
// check that names the tensor which does not fit: a graph whose buffers
// exceed free memory gets a clear error before anything is allocated, never
// a crash in the middle of a run.
//
//   absl::StatusOr<MemoryBudget> device = MemoryBudget::ForDevice();  // free memory of the current context
//   absl::StatusOr<MemoryBudget> host = MemoryBudget::ForHost();      // what the OS can still give
//   absl::Status s = device->Take(graph.node(y), TensorBytes(graph.node(y)));
//   // ResourceExhaustedError("not enough device memory for node \"y\" (exp), f32[1024,1024] of
//   //   4194304 bytes: the graph's buffers would take 8388608 bytes, and 1048576 are available
//   //   (KILN_DEVICE_MEMORY_LIMIT)")
//
// KILN_DEVICE_MEMORY_LIMIT and KILN_HOST_MEMORY_LIMIT (bytes) lower what is
// available, so the errors can be tested, and a run kept small, on any machine.
#ifndef KILN_RUNTIME_MEMORY_BUDGET_H_
#define KILN_RUNTIME_MEMORY_BUDGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"

namespace kiln {

class MemoryBudget {
 public:
  // Free memory of the context current on the calling thread (cuMemGetInfo),
  // lowered by KILN_DEVICE_MEMORY_LIMIT.
  static absl::StatusOr<MemoryBudget> ForDevice();
  // MemAvailable of /proc/meminfo, lowered by the cgroup's remaining limit
  // and by KILN_HOST_MEMORY_LIMIT.
  static absl::StatusOr<MemoryBudget> ForHost();

  // `memory` names it in messages ("device", "host"); `source` says where
  // `available` came from.
  MemoryBudget(std::string memory, int64_t available, std::string source)
      : memory_(std::move(memory)), available_(available), source_(std::move(source)) {}

  // Counts a buffer of `bytes` for `node`; ResourceExhaustedError naming the
  // node, its type and bytes once the buffers taken pass what is available.
  absl::Status Take(const Node& node, int64_t bytes) { return Take(node, bytes, bytes); }
  // As above, where the buffer adds only `added` bytes to the total (a tensor
  // in a workspace that reuses memory).
  absl::Status Take(const Node& node, int64_t bytes, int64_t added);

  int64_t available() const { return available_; }
  int64_t taken() const { return taken_; }

 private:
  std::string memory_;
  int64_t available_;
  std::string source_;
  int64_t taken_ = 0;
};

// A byte count from the environment variable `name`: nullopt when it is
// unset, InvalidArgumentError when it is not a non-negative integer.
absl::StatusOr<std::optional<int64_t>> MemoryLimitFromEnv(const char* name);

}  // namespace kiln

#endif  // KILN_RUNTIME_MEMORY_BUDGET_H_
