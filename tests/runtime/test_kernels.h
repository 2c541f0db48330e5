// Kernel sources and the GPU fixture shared by the runtime tests.
#ifndef KILN_TESTS_RUNTIME_TEST_KERNELS_H_
#define KILN_TESTS_RUNTIME_TEST_KERNELS_H_

#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "runtime/kernel_source.h"

namespace kiln::runtime_testing {

// out[i] = a * x[i] + y[i]; one thread per element.
inline KernelSource SaxpySource() {
  return {.code = R"(extern "C" __global__ void saxpy(int n, float a, const float* x,
                                 const float* y, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
)",
          .name_for_errors = "saxpy"};
}

// Each block records its cluster rank and the cluster size next to its index:
// out[b] = 100 * b + 10 * rank + size.
inline KernelSource ClusterIdsSource() {
  return {.code = R"(extern "C" __global__ void cluster_ids(unsigned* out) {
  unsigned rank;
  unsigned size;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  if (threadIdx.x == 0) out[blockIdx.x] = 100u * blockIdx.x + 10u * rank + size;
}
)",
          .name_for_errors = "cluster_ids"};
}

// Fills all of its dynamic shared memory, then reads it back reversed:
// out[block * blockDim + t] = words - 1 - t, where words = shared bytes / 4.
inline KernelSource BigSharedSource() {
  return {.code = R"(extern "C" __global__ void big_shared(unsigned words, unsigned* out) {
  extern __shared__ unsigned smem[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) smem[i] = i;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = smem[words - 1 - threadIdx.x];
}
)",
          .name_for_errors = "big_shared"};
}

// Opens device 0, or skips the test on a machine without one.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
    if (!device.ok()) GTEST_SKIP() << "no CUDA device: " << device.status().message();
    device_ = *std::move(device);
  }

  std::unique_ptr<Device> device_;
};

}  // namespace kiln::runtime_testing

#endif  // KILN_TESTS_RUNTIME_TEST_KERNELS_H_
