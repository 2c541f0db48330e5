// Prototype timing: a dumped split-row kernel against its row-pipelined form.
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "kiln_device_library.cuh"
#include CASE_FILE

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

__global__ void fill(unsigned* p, size_t n, unsigned seed, int bf16) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    float a = ((h & 0xffff) / 65536.0f - 0.5f) * 8.0f, b = ((h >> 16) / 65536.0f - 0.5f) * 8.0f;
    if (bf16) p[i] = (__float_as_uint(a) >> 16) | (__float_as_uint(b) & 0xffff0000u);
    else p[i] = __float_as_uint(a);
  }
}

template <typename K>
float time_kernel(K kernel, int grid, int cluster, int smem, void** args, int iters) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid); cfg.blockDim = dim3(512); cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr; attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
  cfg.attrs = &attr; cfg.numAttrs = 1;
  CK(cudaFuncSetAttribute((const void*)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  for (int i = 0; i < 3; ++i) CK(cudaLaunchKernelExC(&cfg, (const void*)kernel, args));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a);
  for (int i = 0; i < iters; ++i) cudaLaunchKernelExC(&cfg, (const void*)kernel, args);
  cudaEventRecord(b); CK(cudaEventSynchronize(b));
  float ms; cudaEventElapsedTime(&ms, a, b);
  return ms * 1000.0f / iters;
}

template <typename K>
int active_clusters(K kernel, int cluster, int smem) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(cluster * 64); cfg.blockDim = dim3(512); cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr; attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
  cfg.attrs = &attr; cfg.numAttrs = 1;
  CK(cudaFuncSetAttribute((const void*)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int n = 0; CK(cudaOccupancyMaxActiveClusters(&n, (const void*)kernel, &cfg));
  return n;
}

int main() {
  const size_t elems = size_t(ROWS) * COLS, bytes = elems * ELEM;
  void *x, *w, *b, *y0, *y1;
  CK(cudaMalloc(&x, bytes + 64)); CK(cudaMalloc(&y0, bytes + 64)); CK(cudaMalloc(&y1, bytes + 64));
  CK(cudaMalloc(&w, COLS * ELEM + 64)); CK(cudaMalloc(&b, COLS * ELEM + 64));
  fill<<<1024, 256>>>((unsigned*)x, bytes / 4, 1, ELEM == 2);
  fill<<<64, 256>>>((unsigned*)w, COLS * ELEM / 4, 2, ELEM == 2);
  fill<<<64, 256>>>((unsigned*)b, COLS * ELEM / 4, 3, ELEM == 2);
  CK(cudaMemset(y0, 0, bytes)); CK(cudaMemset(y1, 0, bytes));
  void* args0[] = {&x, &w, &b, &y0};
  void* args1[] = {&x, &w, &b, &y1};
  if (NARGS == 2) { args0[1] = &y0; args1[1] = &y1; }
  const int seg = SMEM;
  float t0 = time_kernel(KERNEL_ORIG, ROWS * CLUSTER, CLUSTER, seg, args0, 30);
  printf("%s orig grid %d: %.1f us (%.3f of 4227.6 GB/s) active clusters %d\n", NAME, ROWS * CLUSTER, t0,
         2.0 * bytes / (t0 * 1e-6) / 4227.6e9, active_clusters(KERNEL_ORIG, CLUSTER, seg));
  const int ac = active_clusters(KERNEL_PIPE, CLUSTER, NBUF * seg);
  printf("%s pipelined active clusters %d\n", NAME, ac);
  for (int c = ac - 2; c <= ac + 1; ++c) {
    if (c < 1) continue;
    CK(cudaMemset(y1, 0, bytes));
    float t1 = time_kernel(KERNEL_PIPE, c * CLUSTER, CLUSTER, NBUF * seg, args1, 30);
    std::vector<unsigned char> h0(bytes), h1(bytes);
    CK(cudaMemcpy(h0.data(), y0, bytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h1.data(), y1, bytes, cudaMemcpyDeviceToHost));
    printf("%s pipelined clusters %d: %.1f us (%.3f) %s\n", NAME, c, t1, 2.0 * bytes / (t1 * 1e-6) / 4227.6e9,
           memcmp(h0.data(), h1.data(), bytes) == 0 ? "identical" : "DIFFERENT");
  }
  return 0;
}
