// Prototype: the split-row softmax [512, 131072] f32 (cluster of 8 blocks a row, each block's
// 64 KB segment in shared memory) in variants of how the max and sum are taken.
//   0: kiln today: max pass, cluster max, sum-of-exp pass, cluster sum, output pass (exp again)
//   1: per-thread max, sum of exp against it, one cluster (max, sum) combine, output exp again
//   2: as 1, the sum pass writes exp(x - thread max) back over x; output one multiply
//   3: as 2, the thread's max taken slot by slot as each slot's copy lands
//   4: as 0, the max taken slot by slot as each slot's copy lands
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#include "kiln_device_library.cuh"

constexpr long long kRows = 512, kCols = 131072, kChunk = 16384;
constexpr int kV = 4, kThreads = 512, kSlots = 8;

__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void wait_pending(int n) {
  switch (n) {
    case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
  }
}

template <int kVariant>
__global__ void __launch_bounds__(512, 3) __cluster_dims__(8, 1, 1) softmax(const float* __restrict__ in0, float* __restrict__ out0) {
  kiln_cluster_arrive();
  const long long row = blockIdx.x / 8;
  const int lane = threadIdx.x;
  const long long vec_begin = row * kCols + static_cast<long long>(kiln_cluster_rank()) * kChunk;
  __shared__ float kiln_partials[4 * 8 * 32];
  int kiln_turn = 0;
  extern __shared__ __align__(16) unsigned char kiln_rows[];
  KilnVec<float, kV>* const r = reinterpret_cast<KilnVec<float, kV>*>(kiln_rows);
  constexpr bool kProgressive = kVariant == 3 || kVariant == 4;
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    kiln_copy_vec_async(&r[s * kThreads + lane], in0 + vec_begin + (static_cast<long long>(s) * kThreads + lane) * kV);
    if (kProgressive) commit();
  }
  if (!kProgressive) kiln_copy_wait();
  float m = KilnMax::identity();
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    if (kProgressive) wait_pending(kSlots - 1 - s);
    const KilnVec<float, kV> h = r[s * kThreads + lane];
#pragma unroll
    for (int j = 0; j < kV; ++j) m = KilnMax::combine(m, h.v[j]);
  }
  if (kVariant == 0 || kVariant == 4) {
    const float v1 = kiln_cluster_reduce<KilnMax, 8>(m, kiln_partials, kiln_turn);
    float acc = 0.0f;
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const KilnVec<float, kV> h = r[s * kThreads + lane];
#pragma unroll
      for (int j = 0; j < kV; ++j) acc += expf(h.v[j] - v1);
    }
    const float rcp = 1.0f / kiln_cluster_reduce<KilnSum, 8>(acc, kiln_partials, kiln_turn);
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const long long g = vec_begin + (static_cast<long long>(s) * kThreads + lane) * kV;
      const KilnVec<float, kV> h = r[s * kThreads + lane];
      KilnVec<float, kV> y;
#pragma unroll
      for (int j = 0; j < kV; ++j) y.v[j] = expf(h.v[j] - v1) * rcp;
      kiln_store_vec<float, kV>(out0 + g, y);
    }
    return;
  }
  // exp(-inf - -inf) would be NaN where every element of the thread is -inf; its sum is 0 then.
  const float shift = m == -KILN_INF ? 0.0f : m;
  float acc = 0.0f;
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    KilnVec<float, kV> h = r[s * kThreads + lane];
#pragma unroll
    for (int j = 0; j < kV; ++j) {
      h.v[j] = expf(h.v[j] - shift);
      acc += h.v[j];
    }
    if (kVariant >= 2) r[s * kThreads + lane] = h;
  }
  const KilnOnline total = kiln_cluster_online<8>({m, acc}, kiln_partials, kiln_turn);
  const float rcp = 1.0f / total.s;
  const float scale = expf(m - total.m) * rcp;
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const long long g = vec_begin + (static_cast<long long>(s) * kThreads + lane) * kV;
    const KilnVec<float, kV> h = r[s * kThreads + lane];
    KilnVec<float, kV> y;
#pragma unroll
    for (int j = 0; j < kV; ++j) y.v[j] = kVariant >= 2 ? h.v[j] * scale : expf(h.v[j] - total.m) * rcp;
    kiln_store_vec<float, kV>(out0 + g, y);
  }
}


// 5: persistent clusters, each streaming its rows through kBuffers segments in shared memory:
// the copies of the next rows are in flight while the current one is reduced and written.
template <int kThreads5, int kBuffers>
__global__ void __launch_bounds__(kThreads5, 1) __cluster_dims__(8, 1, 1) streamed(const float* __restrict__ in0, float* __restrict__ out0) {
  constexpr int kSlots5 = kChunk / kV / kThreads5;
  kiln_cluster_arrive();
  const int lane = threadIdx.x;
  const long long clusters = kiln_cluster_count();
  const long long first = kiln_cluster_id();
  const long long col = static_cast<long long>(kiln_cluster_rank()) * kChunk;
  __shared__ float kiln_partials[4 * 8 * 32];
  int kiln_turn = 0;
  extern __shared__ __align__(16) unsigned char kiln_rows[];
  KilnVec<float, kV>* const r = reinterpret_cast<KilnVec<float, kV>*>(kiln_rows);
  auto prefetch = [&](long long row, int buffer) {
    if (row < kRows) {
#pragma unroll
      for (int s = 0; s < kSlots5; ++s) {
        kiln_copy_vec_async(&r[(buffer * kSlots5 + s) * kThreads5 + lane],
                            in0 + row * kCols + col + (static_cast<long long>(s) * kThreads5 + lane) * kV);
      }
    }
    commit();
  };
#pragma unroll
  for (int b = 0; b < kBuffers - 1; ++b) prefetch(first + b * clusters, b);
  int buffer = 0;
  for (long long row = first; row < kRows; row += clusters) {
    prefetch(row + (kBuffers - 1) * clusters, (buffer + kBuffers - 1) % kBuffers);
    wait_pending(kBuffers - 1);
    KilnVec<float, kV>* const seg = r + buffer * kSlots5 * kThreads5;
    float m = KilnMax::identity();
#pragma unroll
    for (int s = 0; s < kSlots5; ++s) {
      const KilnVec<float, kV> h = seg[s * kThreads5 + lane];
#pragma unroll
      for (int j = 0; j < kV; ++j) m = KilnMax::combine(m, h.v[j]);
    }
    const float shift = m == -KILN_INF ? 0.0f : m;
    float acc = 0.0f;
#pragma unroll
    for (int s = 0; s < kSlots5; ++s) {
      KilnVec<float, kV> h = seg[s * kThreads5 + lane];
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        h.v[j] = expf(h.v[j] - shift);
        acc += h.v[j];
      }
      seg[s * kThreads5 + lane] = h;
    }
    const KilnOnline total = kiln_cluster_online<8>({m, acc}, kiln_partials, kiln_turn);
    const float scale = expf(m - total.m) / total.s;
#pragma unroll
    for (int s = 0; s < kSlots5; ++s) {
      const KilnVec<float, kV> h = seg[s * kThreads5 + lane];
      KilnVec<float, kV> y;
#pragma unroll
      for (int j = 0; j < kV; ++j) y.v[j] = h.v[j] * scale;
      kiln_store_vec<float, kV>(out0 + row * kCols + col + (static_cast<long long>(s) * kThreads5 + lane) * kV, y);
    }
    buffer = (buffer + 1) % kBuffers;
  }
}

__global__ void fill(float* x, long long n) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += 256LL * gridDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ static_cast<unsigned>(i >> 32) * 40503u;
    h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
    x[i] = (static_cast<float>(h & 0xffffff) / 16777216.0f - 0.5f) * 16.0f;
  }
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

template <int kVariant>
int run(const float* in, float* out, const std::vector<float>& want, cudaEvent_t a, cudaEvent_t b) {
  CHECK(cudaFuncSetAttribute(softmax<kVariant>, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
  std::vector<float> times;
  for (int it = 0; it < 60; ++it) {
    CHECK(cudaEventRecord(a));
    softmax<kVariant><<<kRows * 8, kThreads, 65536>>>(in, out);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (it >= 10) times.push_back(ms * 1000);
  }
  CHECK(cudaGetLastError());
  std::sort(times.begin(), times.end());
  std::vector<float> got(kRows * kCols);
  CHECK(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(double(got[i]) - want[i]) / std::max(1e-30, double(want[i])));
  printf("variant %d: median %.1f us, min %.1f us, max relative difference from variant 0 %.3g\n", kVariant,
         times[times.size() / 2], times[0], worst);
  return 0;
}


template <int kThreads5, int kBuffers>
int run_streamed(const float* in, float* out, const std::vector<float>& want, cudaEvent_t a, cudaEvent_t b) {
  const int shared = kBuffers * 65536;
  CHECK(cudaFuncSetAttribute(streamed<kThreads5, kBuffers>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(kThreads5);
  config.dynamicSmemBytes = shared;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = 8;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  config.gridDim = dim3(8);
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, streamed<kThreads5, kBuffers>, &config));
  config.gridDim = dim3(8 * clusters);
  std::vector<float> times;
  for (int it = 0; it < 60; ++it) {
    CHECK(cudaEventRecord(a));
    CHECK(cudaLaunchKernelEx(&config, streamed<kThreads5, kBuffers>, in, out));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (it >= 10) times.push_back(ms * 1000);
  }
  CHECK(cudaGetLastError());
  std::sort(times.begin(), times.end());
  std::vector<float> got(kRows * kCols);
  CHECK(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(double(got[i]) - want[i]) / std::max(1e-30, double(want[i])));
  printf("streamed, %d threads, %d buffers, %d clusters: median %.1f us, min %.1f us, max relative difference %.3g\n",
         kThreads5, kBuffers, clusters, times[times.size() / 2], times[0], worst);
  return 0;
}

int main() {
  const long long n = kRows * kCols;
  float *in, *out, *copy;
  CHECK(cudaMalloc(&in, n * 4));
  CHECK(cudaMalloc(&out, n * 4));
  CHECK(cudaMalloc(&copy, n * 4));
  fill<<<1024, 256>>>(in, n);
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> times;
  for (int it = 0; it < 30; ++it) {
    CHECK(cudaEventRecord(a));
    CHECK(cudaMemcpyAsync(copy, in, n * 4, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    times.push_back(ms * 1000);
  }
  std::sort(times.begin(), times.end());
  printf("copy of 256 MB: median %.1f us (%.0f GB/s)\n", times[15], 2.0 * n * 4 / times[15] / 1e3);
  CHECK(cudaFuncSetAttribute(softmax<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
  softmax<0><<<kRows * 8, kThreads, 65536>>>(in, out);
  std::vector<float> want(n);
  CHECK(cudaMemcpy(want.data(), out, n * 4, cudaMemcpyDeviceToHost));
  for (int round = 0; round < 2; ++round) {
    if (run<0>(in, out, want, a, b) || run<1>(in, out, want, a, b) || run<2>(in, out, want, a, b) ||
        run<3>(in, out, want, a, b) || run<4>(in, out, want, a, b) || run_streamed<1024, 2>(in, out, want, a, b) ||
        run_streamed<1024, 3>(in, out, want, a, b) || run_streamed<512, 3>(in, out, want, a, b)) return 1;
  }
  return 0;
}
