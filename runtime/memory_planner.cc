#include "runtime/memory_planner.h"

#include <algorithm>
#include <numeric>

#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int64_t kAlignment = 256;

}  // namespace

WorkspaceLayout PlanWorkspace(const std::vector<BufferRequest>& requests) {
  WorkspaceLayout layout;
  layout.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].first_kernel < requests[b].first_kernel; });
  std::vector<size_t> placed;
  for (size_t r : order) {
    const BufferRequest& request = requests[r];
    const int64_t size = AlignUp(std::max<int64_t>(request.bytes, 1), kAlignment);
    // Occupied ranges of buffers whose lifetime overlaps this one, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t p : placed) {
      const BufferRequest& other = requests[p];
      if (other.last_kernel >= request.first_kernel && other.first_kernel <= request.last_kernel) {
        busy.push_back({layout.offsets[p], layout.offsets[p] + AlignUp(std::max<int64_t>(other.bytes, 1), kAlignment)});
      }
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (offset + size <= begin) break;
      offset = std::max(offset, end);
    }
    layout.offsets[r] = offset;
    layout.total_bytes = std::max(layout.total_bytes, offset + size);
    placed.push_back(r);
  }
  return layout;
}

}  // namespace kiln
