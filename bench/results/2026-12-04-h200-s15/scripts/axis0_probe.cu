// Probe (s15): a sum over axis 0 of [16384,1024] f32 (64 MiB) with the lane shapes kiln's axis
// schedule could pick, to find what limits kiln's 21.9 us (0.72 of copy) before changing it.
// Partials combine by atomicAdd: the timing is the point, not the sum's order.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kRows = 16384, kCols = 1024;

template <int kColLanes, int kRowLanes, int kUnroll, int kSplit>
__global__ void __launch_bounds__(256, 4) Sum(const float4* __restrict__ in, float* __restrict__ out) {
  constexpr int kTiles = kCols / (kColLanes * 4);
  constexpr int kRowsPerSplit = kRows / kSplit;
  __shared__ float4 slots[256];
  const int tile = blockIdx.x / kSplit, rank = blockIdx.x % kSplit;
  const int cl = threadIdx.x % kColLanes, rl = threadIdx.x / kColLanes;
  const int col4 = tile * kColLanes + cl;
  float4 acc = {0, 0, 0, 0};
  const float4* p = in + col4;
  for (int r = rank * kRowsPerSplit + rl; r < (rank + 1) * kRowsPerSplit; r += kUnroll * kRowLanes) {
    float4 x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) x[u] = p[static_cast<long long>(r + u * kRowLanes) * (kCols / 4)];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      acc.x += x[u].x; acc.y += x[u].y; acc.z += x[u].z; acc.w += x[u].w;
    }
  }
  if (kRowLanes > 1) {
    slots[threadIdx.x] = acc;
    __syncthreads();
    if (rl == 0) {
      for (int k = 1; k < kRowLanes; ++k) {
        const float4 o = slots[k * kColLanes + cl];
        acc.x += o.x; acc.y += o.y; acc.z += o.z; acc.w += o.w;
      }
    }
  }
  if (rl == 0) {
    atomicAdd(out + col4 * 4 + 0, acc.x); atomicAdd(out + col4 * 4 + 1, acc.y);
    atomicAdd(out + col4 * 4 + 2, acc.z); atomicAdd(out + col4 * 4 + 3, acc.w);
  }
  (void)kTiles;
}

__global__ void Copy(const float4* __restrict__ in, float4* __restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i];
}

template <int C, int R, int U, int S>
void Time(const char* name, const float4* in, float* out) {
  constexpr int blocks = (kCols / (C * 4)) * S;
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) Sum<C, R, U, S><<<blocks, 256>>>(in, out);
  float best = 1e9;
  for (int t = 0; t < 5; ++t) {
    cudaEventRecord(a);
    for (int i = 0; i < 20; ++i) Sum<C, R, U, S><<<blocks, 256>>>(in, out);
    cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    if (ms / 20 < best) best = ms / 20;
  }
  printf("%-40s blocks %5d  %7.2f us  %.0f GB/s\n", name, blocks, best * 1000, 64.0 * 1048576 / (best * 1e-3) / 1e9);
}

int main() {
  float4 *in, *copy;
  float* out;
  cudaMalloc(&in, 64 << 20); cudaMalloc(&copy, 64 << 20); cudaMalloc(&out, kCols * 4);
  cudaMemset(in, 0, 64 << 20);
  Time<32, 8, 4, 64>("A 32 col x 8 row lanes, unroll 4, split 64", in, out);
  Time<32, 8, 8, 64>("B 32x8, unroll 8, split 64", in, out);
  Time<32, 8, 4, 32>("B2 32x8, unroll 4, split 32", in, out);
  Time<256, 1, 4, 512>("C 256x1 (whole rows), unroll 4, split 512", in, out);
  Time<256, 1, 8, 512>("D 256x1, unroll 8, split 512", in, out);
  Time<256, 1, 4, 256>("D2 256x1, unroll 4, split 256", in, out);
  Time<128, 2, 4, 256>("E 128x2, unroll 4, split 256", in, out);
  Time<64, 4, 4, 128>("F 64x4, unroll 4, split 128", in, out);
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 5; ++i) Copy<<<132 * 8, 256>>>(in, copy, (32 << 20) / 16);
  cudaEventRecord(a);
  for (int i = 0; i < 20; ++i) Copy<<<132 * 8, 256>>>(in, copy, (32 << 20) / 16);
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  printf("copy 32 MiB -> 32 MiB: %.2f us, %.0f GB/s\n", ms / 20 * 1000, 64.0 * 1048576 / (ms / 20 * 1e-3) / 1e9);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
