// Prototype timing (s27): layernorm [1335, 50257] bf16 as kiln emits it (one row a cluster, every
// block re-reading its chunk of the weight and bias for each row) against a form in which each
// block of a cluster holds R rows' segments and reads each aligned column vector once for all R.
// Rows r and r + 1 are misaligned against the columns by shifts that differ by kCols mod 8, a
// constant, so one branch on the first row's shift makes every row's shift a compile-time one.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include KILN_SOURCE  // kiln emit of the graph: the device library and f0_row_reduction

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

constexpr int kProtoRows = 1335;
constexpr int kProtoCols = 50257;
using u16 = unsigned short;

template <int C, int R, int kMinBlocks>
__global__ void __launch_bounds__(512, kMinBlocks) proto(const u16* __restrict__ in0, const u16* __restrict__ in1,
                                                        const u16* __restrict__ in2, u16* __restrict__ out0) {
  using kiln_index = int;
  constexpr kiln_index kRows = kProtoRows;
  constexpr kiln_index kCols = kProtoCols;
  constexpr int kV = 8;
  constexpr int kThreads = 512;
  constexpr kiln_index kChunk = ((kCols + C - 1) / C + kV - 1) / kV * kV;
  constexpr int kSlots = static_cast<int>((kChunk / kV + kThreads - 1) / kThreads);
  constexpr kiln_index kLast = kCols - (C - 1) * kChunk;
  constexpr kiln_index kShortest = kChunk < kLast ? kChunk : kLast;
  constexpr int kWhole = static_cast<int>((kShortest - 2 * (kV - 1)) / kV);
  constexpr int kFullSlots = kWhole / kThreads < kSlots ? kWhole / kThreads : kSlots;
  __shared__ KilnClusterExchange<C, 3> kiln_partials;
  kiln_cluster_start(kiln_partials);
  int kiln_turn = 0;
  const kiln_index first_row = static_cast<kiln_index>(blockIdx.x / C) * R;
  const int lane = threadIdx.x;
  const kiln_index col_begin = static_cast<kiln_index>(kiln_cluster_rank()) * kChunk;
  const kiln_index col_end = col_begin + kChunk < kCols ? col_begin + kChunk : kCols;
  extern __shared__ __align__(16) unsigned char kiln_rows[];
  KilnVec<u16, kV>* const r_in0 = reinterpret_cast<KilnVec<u16, kV>*>(kiln_rows);
  kiln_index row_base[R], vec_begin[R], vec_end[R], edge_i[R];
  bool edge_live[R], row_live[R];
  u16 e_in0[R];
#pragma unroll
  for (int p = 0; p < R; ++p) {
    const kiln_index row_raw = first_row + p;
    row_live[p] = row_raw < kRows;
    const kiln_index row = row_live[p] ? row_raw : kRows - 1;
    row_base[p] = row * kCols;
    const kiln_index seg_begin = row_base[p] + col_begin;
    const kiln_index seg_end = row_base[p] + col_end;
    const kiln_index vec_first = (seg_begin + kV - 1) & ~static_cast<kiln_index>(kV - 1);
    vec_begin[p] = vec_first < seg_end ? vec_first : seg_end;
    const kiln_index vec_last = seg_end & ~static_cast<kiln_index>(kV - 1);
    vec_end[p] = vec_last > vec_begin[p] ? vec_last : vec_begin[p];
    const kiln_index edge_head = vec_begin[p] - seg_begin;
    edge_i[p] = lane < edge_head ? seg_begin + lane : vec_end[p] + (lane - edge_head);
    edge_live[p] = edge_i[p] < seg_end;
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const kiln_index g = vec_begin[p] + (static_cast<kiln_index>(s) * kThreads + lane) * kV;
      if (s < kFullSlots || g < vec_end[p]) kiln_copy_vec_async(&r_in0[(p * kSlots + s) * kThreads + lane], in0 + g);
    }
    e_in0[p] = edge_live[p] ? in0[edge_i[p]] : u16(0);
  }
  kiln_copy_wait();
  KilnMoments on[R];
#pragma unroll
  for (int p = 0; p < R; ++p) {
    float lshift = 0.0f, lsum = 0.0f, lsq = 0.0f;
    int lcount = 0;
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const kiln_index g = vec_begin[p] + (static_cast<kiln_index>(s) * kThreads + lane) * kV;
      if (s < kFullSlots || g < vec_end[p]) {
        const KilnVec<u16, kV> h = r_in0[(p * kSlots + s) * kThreads + lane];
#pragma unroll
        for (int j = 0; j < kV; ++j) {
          const float v = kiln_bf16_to_f32(h.v[j]);
          if (s == 0 && j == 0) lshift = v;
          const float d = v - lshift;
          lsum += d;
          lsq += d * d;
          ++lcount;
        }
      }
    }
    if (edge_live[p]) {
      const float d = kiln_bf16_to_f32(e_in0[p]) - lshift;
      lsum += d;
      lsq += d * d;
      ++lcount;
    }
    on[p] = kiln_moments_shifted(lcount, lshift, lsum, lsq);
  }
  float mean[R], rstd[R];
#pragma unroll
  for (int p = 0; p < R; ++p) {
    const KilnMoments stats = kiln_cluster_stat<KilnMoments>(on[p], kiln_partials, kiln_turn);
    mean[p] = stats.mean;
    rstd[p] = 1.0f / sqrtf(stats.m2 / static_cast<float>(kCols) + 0x1.4f8b58p-17f);
  }
#pragma unroll
  for (int p = 0; p < R; ++p) {
    if (edge_live[p] && row_live[p]) {
      const kiln_index i = edge_i[p];
      const float v = kiln_bf16_to_f32(e_in0[p]);
      const float w = kiln_bf16_to_f32(in1[i - row_base[p]]);
      const float b = kiln_bf16_to_f32(in2[i - row_base[p]]);
      out0[i] = kiln_f32_to_bf16((v - mean[p]) * rstd[p] * w + b);
    }
  }
  kiln_with_shift<kV>(static_cast<int>((vec_begin[0] - row_base[0]) & (kV - 1)), [&](auto shift) {
    constexpr int kShift0 = decltype(shift)::value;
#pragma unroll 1
    for (int s = 0; s < kSlots; ++s) {
      const kiln_index k = (static_cast<kiln_index>(s) * kThreads + lane) * kV;
      bool any = false;
#pragma unroll
      for (int p = 0; p < R; ++p) any |= row_live[p] && (s < kFullSlots || vec_begin[p] + k < vec_end[p]);
      if (!any) continue;
      const kiln_index a = col_begin + k;
      const KilnVec<u16, kV> w_lo = kiln_load_vec<u16, kV>(in1 + a);
      const KilnVec<u16, kV> w_hi = kiln_load_span<u16, kV>(in1, a + kV, 0, kCols);
      const KilnVec<u16, kV> b_lo = kiln_load_vec<u16, kV>(in2 + a);
      const KilnVec<u16, kV> b_hi = kiln_load_span<u16, kV>(in2, a + kV, 0, kCols);
      auto emit_row = [&](auto pc) {
        constexpr int P = decltype(pc)::value;
        constexpr int M = ((kShift0 - P * static_cast<int>(kCols % kV)) % kV + kV) % kV;
        const kiln_index g = vec_begin[P] + k;
        if (!(row_live[P] && (s < kFullSlots || g < vec_end[P]))) return;
        const KilnVec<u16, kV> h = r_in0[(P * kSlots + s) * kThreads + lane];
        const KilnVec<u16, kV> cw = kiln_shift_vec<u16, kV, M>(w_lo, w_hi);
        const KilnVec<u16, kV> cb = kiln_shift_vec<u16, kV, M>(b_lo, b_hi);
        KilnVec<u16, kV> y;
#pragma unroll
        for (int j = 0; j < kV; ++j) {
          const float v = kiln_bf16_to_f32(h.v[j]);
          y.v[j] = kiln_f32_to_bf16((v - mean[P]) * rstd[P] * kiln_bf16_to_f32(cw.v[j]) + kiln_bf16_to_f32(cb.v[j]));
        }
        kiln_store_vec<u16, kV>(out0 + g, y);
      };
      emit_row(KilnShift<0>{});
      if constexpr (R > 1) emit_row(KilnShift<1>{});
      if constexpr (R > 2) emit_row(KilnShift<2>{});
      if constexpr (R > 3) emit_row(KilnShift<3>{});
    }
  });
}

__global__ void fill(unsigned* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    float a = ((h & 0xffff) / 65536.0f - 0.5f) * 8.0f, b = ((h >> 16) / 65536.0f - 0.5f) * 8.0f;
    p[i] = (__float_as_uint(a) >> 16) | (__float_as_uint(b) & 0xffff0000u);
  }
}

float launch_and_time(const void* kernel, int grid, int cluster, int smem, void** args, int iters) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid); cfg.blockDim = dim3(512); cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr; attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
  cfg.attrs = &attr; cfg.numAttrs = 1;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  for (int i = 0; i < 3; ++i) CK(cudaLaunchKernelExC(&cfg, kernel, args));
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a);
  for (int i = 0; i < iters; ++i) cudaLaunchKernelExC(&cfg, kernel, args);
  cudaEventRecord(b); CK(cudaEventSynchronize(b));
  float ms; cudaEventElapsedTime(&ms, a, b);
  return ms * 1000.0f / iters;
}

int active_clusters(const void* kernel, int cluster, int smem) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(cluster * 64); cfg.blockDim = dim3(512); cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr; attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
  cfg.attrs = &attr; cfg.numAttrs = 1;
  int n = 0; CK(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg));
  return n;
}

float bf16(u16 h) { unsigned u = unsigned(h) << 16; float f; memcpy(&f, &u, 4); return f; }

int main(int argc, char** argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 50;
  const size_t elems = size_t(kProtoRows) * kProtoCols, bytes = elems * 2;
  u16 *x, *w, *b, *y0, *y1;
  CK(cudaMalloc(&x, bytes + 64)); CK(cudaMalloc(&y0, bytes + 64)); CK(cudaMalloc(&y1, bytes + 64));
  CK(cudaMalloc(&w, kProtoCols * 2 + 64)); CK(cudaMalloc(&b, kProtoCols * 2 + 64));
  fill<<<1024, 256>>>((unsigned*)x, bytes / 4 + 1, 1);
  fill<<<64, 256>>>((unsigned*)w, kProtoCols / 2 + 1, 2);
  fill<<<64, 256>>>((unsigned*)b, kProtoCols / 2 + 1, 3);
  CK(cudaMemset(y0, 0, bytes)); CK(cudaDeviceSynchronize());
  void* args0[] = {&x, &w, &b, &y0};
  void* args1[] = {&x, &w, &b, &y1};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  CK(cudaMemcpy(y1, x, bytes, cudaMemcpyDeviceToDevice));
  cudaEventRecord(e0);
  for (int i = 0; i < iters; ++i) cudaMemcpy(y1, x, bytes, cudaMemcpyDeviceToDevice);
  cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
  float copy_ms; cudaEventElapsedTime(&copy_ms, e0, e1);
  const double copy_us = copy_ms * 1000.0 / iters;
  printf("copy of %zu bytes: %.1f us (%.1f GB/s)\n", bytes, copy_us, 2.0 * bytes / (copy_us * 1e-6) / 1e9);
  const int kiln_smem = 4 * 512 * 16;
  const float tk = launch_and_time((const void*)f0_row_reduction, kProtoRows * 4, 4, kiln_smem, args0, iters);
  printf("kiln (clusters of 4, a row each): %.1f us, %.3f of copy, %d clusters resident\n", tk, copy_us / tk,
         active_clusters((const void*)f0_row_reduction, 4, kiln_smem));
  std::vector<u16> h0(elems), h1(elems);
  CK(cudaMemcpy(h0.data(), y0, bytes, cudaMemcpyDeviceToHost));
  auto run = [&](const char* name, const void* kernel, int c, int r, int slots) {
    const int smem = r * slots * 512 * 16;
    CK(cudaMemset(y1, 0, bytes));
    const int clusters = (kProtoRows + r - 1) / r;
    const float t = launch_and_time(kernel, clusters * c, c, smem, args1, iters);
    CK(cudaMemcpy(h1.data(), y1, bytes, cudaMemcpyDeviceToHost));
    double worst = 0; size_t differ = 0;
    for (size_t i = 0; i < elems; ++i) {
      if (h0[i] == h1[i]) continue;
      ++differ;
      const double d = fabs(double(bf16(h0[i])) - bf16(h1[i])) / (fabs(double(bf16(h0[i]))) + 1e-2);
      if (d > worst) worst = d;
    }
    printf("%-34s %.1f us, %.3f of copy, %.3f of kiln's time, %d clusters resident, %zu elements differ (worst rel %.3g)\n",
           name, t, copy_us / t, t / tk, active_clusters(kernel, c, smem), differ, worst);
  };
#define SLOTS(C) static_cast<int>((((kProtoCols + C - 1) / C + 7) / 8 * 8 / 8 + 511) / 512)
  run("clusters of 4, 1 row a block", (const void*)proto<4, 1, 4>, 4, 1, SLOTS(4));
  run("clusters of 8, 1 row a block", (const void*)proto<8, 1, 4>, 8, 1, SLOTS(8));
  run("clusters of 8, 2 rows a block", (const void*)proto<8, 2, 4>, 8, 2, SLOTS(8));
  run("clusters of 4, 2 rows a block", (const void*)proto<4, 2, 3>, 4, 2, SLOTS(4));
  run("clusters of 8, 4 rows a block", (const void*)proto<8, 4, 3>, 8, 4, SLOTS(8));
  run("clusters of 8, 2 rows a block, 3 an SM", (const void*)proto<8, 2, 3>, 8, 2, SLOTS(8));
  run("clusters of 16, 2 rows a block", (const void*)proto<16, 2, 4>, 16, 2, SLOTS(16));
  run("clusters of 8, 2 rows a block", (const void*)proto<8, 2, 4>, 8, 2, SLOTS(8));
  run("clusters of 4, 1 row a block", (const void*)proto<4, 1, 4>, 4, 1, SLOTS(4));
  const float tk2 = launch_and_time((const void*)f0_row_reduction, kProtoRows * 4, 4, kiln_smem, args0, iters);
  printf("kiln again: %.1f us\n", tk2);
  return 0;
}
