#include "graph/parallel_for.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "graph/int_math.h"

namespace kiln {

void ParallelFor(int64_t n, int64_t grain, absl::FunctionRef<void(int64_t, int64_t)> body) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t hardware = std::max<int64_t>(std::thread::hardware_concurrency(), 1);
  const int64_t chunks = std::min(hardware, CeilDiv(n, grain));
  if (chunks <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(chunks - 1);
  // Chunk c covers [c*n/chunks, (c+1)*n/chunks); the caller runs the first.
  for (int64_t c = 1; c < chunks; ++c) {
    threads.emplace_back([&body, n, chunks, c] { body(c * n / chunks, (c + 1) * n / chunks); });
  }
  body(0, n / chunks);
  for (std::thread& thread : threads) thread.join();
}

}  // namespace kiln
