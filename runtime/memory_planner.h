// Places a plan's intermediate tensors in one workspace, reusing memory by
// liveness: a buffer's bytes are free again once the last kernel reading it
// has run.
//
//   std::vector<BufferRequest> requests = {{.bytes = 1 << 20, .first_kernel = 0, .last_kernel = 2}, ...};
//   WorkspaceLayout layout = PlanWorkspace(requests);
//   layout.offsets[i]   // byte offset of request i, 256-byte aligned
//   layout.total_bytes
#ifndef KILN_RUNTIME_MEMORY_PLANNER_H_
#define KILN_RUNTIME_MEMORY_PLANNER_H_

#include <cstdint>
#include <vector>

namespace kiln {

struct BufferRequest {
  int64_t bytes = 0;
  int first_kernel = 0;  // the kernel that writes it
  int last_kernel = 0;   // the last kernel that reads it
};

struct WorkspaceLayout {
  std::vector<int64_t> offsets;
  int64_t total_bytes = 0;
};

// First fit in kernel order; two buffers overlap in memory only when their
// lifetimes [first_kernel, last_kernel] are disjoint.
WorkspaceLayout PlanWorkspace(const std::vector<BufferRequest>& requests);

}  // namespace kiln

#endif  // KILN_RUNTIME_MEMORY_PLANNER_H_
