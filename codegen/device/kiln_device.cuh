// kiln's device library: the static helpers every generated kernel uses.
// Embedded into each translation unit at build time (codegen/CMakeLists.txt),
// so NVRTC needs no include path and kiln depends on no toolkit header.
// Storage types: f32 float, f16/bf16 unsigned short (raw bits), i32 int,
// bool unsigned char. Arithmetic is f32.

#define KILN_INF __int_as_float(0x7f800000)
#define KILN_NAN __int_as_float(0x7fffffff)

// ---- 16-bit float conversions (round to nearest even, like the host side) ----
__device__ __forceinline__ float kiln_bf16_to_f32(unsigned short bits) {
  return __uint_as_float(static_cast<unsigned>(bits) << 16);
}
__device__ __forceinline__ unsigned short kiln_f32_to_bf16(float value) {
  unsigned short bits;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}
__device__ __forceinline__ float kiln_f16_to_f32(unsigned short bits) {
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
  return value;
}
__device__ __forceinline__ unsigned short kiln_f32_to_f16(float value) {
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}
// A cast to a 16-bit float keeps the value in f32 registers but rounds it, so
// the cast's semantics survive fusion.
__device__ __forceinline__ float kiln_round_bf16(float v) { return kiln_bf16_to_f32(kiln_f32_to_bf16(v)); }
__device__ __forceinline__ float kiln_round_f16(float v) { return kiln_f16_to_f32(kiln_f32_to_f16(v)); }

// ---- elementwise ops whose NaN behaviour must match the reference ----
// sm_80's max.NaN / min.NaN return the canonical NaN when either input is
// one: the reference's rule in one instruction instead of two tests and a select.
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ float kiln_max(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float kiln_min(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
#else
__device__ __forceinline__ float kiln_max(float a, float b) { return (a != a || b != b) ? KILN_NAN : fmaxf(a, b); }
__device__ __forceinline__ float kiln_min(float a, float b) { return (a != a || b != b) ? KILN_NAN : fminf(a, b); }
#endif
__device__ __forceinline__ float kiln_relu(float a) { return a > 0.0f ? a : (a != a ? a : 0.0f); }
__device__ __forceinline__ float kiln_tanh_approx(float a) {
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(a));
  return t;
}
__device__ __forceinline__ float kiln_sigmoid(float a) { return 1.0f / (1.0f + expf(-a)); }
__device__ __forceinline__ int kiln_max(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ int kiln_min(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int kiln_relu(int a) { return a > 0 ? a : 0; }
// i32 arithmetic saturates at the limits, as the reference defines it,
// instead of wrapping (and signed overflow is undefined in C++ anyway).
__device__ __forceinline__ int kiln_saturate_i32(long long v) {
  return v > 2147483647LL ? 2147483647 : (v < -2147483648LL ? (-2147483647 - 1) : static_cast<int>(v));
}
__device__ __forceinline__ int kiln_add_i32(int a, int b) { return kiln_saturate_i32(static_cast<long long>(a) + b); }
__device__ __forceinline__ int kiln_sub_i32(int a, int b) { return kiln_saturate_i32(static_cast<long long>(a) - b); }
__device__ __forceinline__ int kiln_mul_i32(int a, int b) { return kiln_saturate_i32(static_cast<long long>(a) * b); }
__device__ __forceinline__ int kiln_neg_i32(int a) { return kiln_saturate_i32(-static_cast<long long>(a)); }
__device__ __forceinline__ int kiln_abs_i32(int a) {
  return kiln_saturate_i32(a < 0 ? -static_cast<long long>(a) : static_cast<long long>(a));
}

// ---- vector memory access: N elements as one aligned access (split by the
// compiler into 16-byte transactions when wider) ----
template <typename T, int N>
struct alignas(sizeof(T) * N) KilnVec {
  T v[N];
};
template <typename T, int N>
__device__ __forceinline__ KilnVec<T, N> kiln_load_vec(const T* __restrict__ p) {
  return *reinterpret_cast<const KilnVec<T, N>*>(p);
}
template <typename T, int N>
__device__ __forceinline__ void kiln_store_vec(T* __restrict__ p, const KilnVec<T, N>& value) {
  *reinterpret_cast<KilnVec<T, N>*>(p) = value;
}
// The aligned vector of N elements at p[g..g+N) that may straddle the ends
// of [begin, end): whole when it lies inside, else element by element, the
// elements outside neither read nor written.
template <typename T, int N>
__device__ __forceinline__ KilnVec<T, N> kiln_load_span(const T* __restrict__ p, long long g, long long begin,
                                                        long long end) {
  if (g >= begin && g + N <= end) return kiln_load_vec<T, N>(p + g);
  KilnVec<T, N> value = {};
#pragma unroll
  for (int j = 0; j < N; ++j) {
    if (g + j >= begin && g + j < end) value.v[j] = p[g + j];
  }
  return value;
}
template <typename T, int N>
__device__ __forceinline__ void kiln_store_span(T* __restrict__ p, long long g, long long begin, long long end,
                                                const KilnVec<T, N>& value) {
  if (g >= begin && g + N <= end) {
    kiln_store_vec<T, N>(p + g, value);
    return;
  }
#pragma unroll
  for (int j = 0; j < N; ++j) {
    if (g + j >= begin && g + j < end) p[g + j] = value.v[j];
  }
}

// p[c..c+N) for any c, from the aligned vectors around it (the second read
// element by element where it would pass p[cols - 1]), shifted in registers:
// a row kernel reads a column operand (layernorm's weight) this way beside
// rows whose length is not a multiple of N, where scalar loads strided by N
// across a warp cost eight instructions and extra sectors a vector.
// `c & (N - 1)` is the same for a whole row, so the switch never diverges.
template <typename T, int N, int M>
__device__ __forceinline__ KilnVec<T, N> kiln_shift_vec(const KilnVec<T, N>& lo, const KilnVec<T, N>& hi) {
  KilnVec<T, N> out;
#pragma unroll
  for (int j = 0; j < N; ++j) out.v[j] = j + M < N ? lo.v[j + M] : hi.v[j + M - N];
  return out;
}
template <typename T, int N, int M>
__device__ __forceinline__ KilnVec<T, N> kiln_shift_dispatch(const KilnVec<T, N>& lo, const KilnVec<T, N>& hi,
                                                             int m) {
  if constexpr (M + 1 < N) {
    if (m != M) return kiln_shift_dispatch<T, N, M + 1>(lo, hi, m);
  }
  return kiln_shift_vec<T, N, M>(lo, hi);
}
template <typename T, int N>
__device__ __forceinline__ KilnVec<T, N> kiln_load_cols(const T* __restrict__ p, long long c, long long cols) {
  const long long a = c & ~static_cast<long long>(N - 1);
  const KilnVec<T, N> lo = kiln_load_vec<T, N>(p + a);
  const int m = static_cast<int>(c - a);
  if constexpr (N > 1) {
    if (m != 0) return kiln_shift_dispatch<T, N, 1>(lo, kiln_load_span<T, N>(p, a + N, 0, cols), m);
  }
  return lo;
}

// ---- staged rows: a block copies a contiguous span of a tensor between
// global and shared memory in 16-byte vectors, whatever the rows' length ----
// Starts copying 16 aligned bytes from global to shared memory without
// passing them through registers; kiln_copy_wait finishes the calling
// thread's copies.
__device__ __forceinline__ void kiln_copy16_async(void* dst, const void* __restrict__ src) {
#if __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(address), "l"(src) : "memory");
#else
  *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
#endif
}
__device__ __forceinline__ void kiln_copy_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}
// One whole vector, a multiple of 16 bytes.
template <typename T, int N>
__device__ __forceinline__ void kiln_copy_vec_async(KilnVec<T, N>* dst, const T* __restrict__ src) {
  static_assert(sizeof(KilnVec<T, N>) % 16 == 0, "copies go 16 bytes at a time");
#pragma unroll
  for (int k = 0; k < static_cast<int>(sizeof(KilnVec<T, N>) / 16); ++k) {
    kiln_copy16_async(reinterpret_cast<uint4*>(dst) + k, reinterpret_cast<const uint4*>(src) + k);
  }
}
// Starts copying src[0, count) to dst (both 16-byte aligned); kiln_stage_wait
// finishes every copy of the block. cp.async keeps all of a thread's copies
// in flight at once without registers to land them in.
template <typename T>
__device__ __forceinline__ void kiln_stage_load(T* dst, const T* __restrict__ src, long long count) {
  constexpr int kE = 16 / sizeof(T);
  const long long vectors = count / kE;
  for (long long k = threadIdx.x; k < vectors; k += blockDim.x) kiln_copy16_async(dst + k * kE, src + k * kE);
  for (long long k = vectors * kE + threadIdx.x; k < count; k += blockDim.x) dst[k] = src[k];
}
__device__ __forceinline__ void kiln_stage_wait() {
  kiln_copy_wait();
  __syncthreads();
}
// Copies src[0, count) in shared memory to dst once every thread of the
// block has written its part.
template <typename T>
__device__ __forceinline__ void kiln_stage_store(T* __restrict__ dst, const T* src, long long count) {
  constexpr int kE = 16 / sizeof(T);
  const long long vectors = count / kE;
  __syncthreads();
  for (long long k = threadIdx.x; k < vectors; k += blockDim.x) {
    *reinterpret_cast<uint4*>(dst + k * kE) = *reinterpret_cast<const uint4*>(src + k * kE);
  }
  for (long long k = vectors * kE + threadIdx.x; k < count; k += blockDim.x) dst[k] = src[k];
}

// ---- reductions: a combine rule and its identity ----
struct KilnSum {
  static __device__ __forceinline__ float identity() { return 0.0f; }
  static __device__ __forceinline__ float combine(float a, float b) { return a + b; }
};
struct KilnMax {
  static __device__ __forceinline__ float identity() { return -KILN_INF; }
  static __device__ __forceinline__ float combine(float a, float b) { return kiln_max(a, b); }
};
struct KilnMin {
  static __device__ __forceinline__ float identity() { return KILN_INF; }
  static __device__ __forceinline__ float combine(float a, float b) { return kiln_min(a, b); }
};

// Reduces over each aligned group of kLanes lanes (a power of two up to 32);
// every lane of the group gets the result. All 32 lanes of the warp must
// call it, whichever rows their groups hold.
template <typename Op, int kLanes>
__device__ __forceinline__ float kiln_group_reduce(float v) {
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset >>= 1) v = Op::combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
template <typename Op>
__device__ __forceinline__ float kiln_warp_reduce(float v) {
  return kiln_group_reduce<Op, 32>(v);
}

// Every thread of the block gets the result, after one barrier. `scratch`
// holds 64 floats: two halves that consecutive reductions (counted by `turn`)
// take in turn. A thread writes a half again only two reductions later, past
// the barrier of the one between, which no thread reaches before it has read
// the half. Every warp combines the same partials in the same order, so all
// threads hold the same value.
template <typename Op>
__device__ __forceinline__ float kiln_block_reduce(float v, float* scratch, int& turn) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  float* half = scratch + (turn++ & 1) * 32;
  v = kiln_warp_reduce<Op>(v);
  if (lane == 0) half[warp] = v;
  __syncthreads();
  return kiln_warp_reduce<Op>(lane < warps ? half[lane] : Op::identity());
}

// ---- online softmax statistics: (running max m, sum of exp(x - m)) ----
struct KilnOnline {
  float m;
  float s;
};
__device__ __forceinline__ KilnOnline kiln_online_identity() { return {-KILN_INF, 0.0f}; }
// kApprox: the hardware's approximate exp, where the pair's exp reaches the
// outputs only as 16-bit floats (graph/precision.h).
template <bool kApprox>
__device__ __forceinline__ float kiln_online_exp(float x) {
  return kApprox ? __expf(x) : expf(x);
}
template <bool kApprox>
__device__ __forceinline__ KilnOnline kiln_online_push(KilnOnline a, float x) {
  if (x == -KILN_INF) return a;  // exp(-inf) adds nothing; avoids exp(-inf - -inf)
  if (x > a.m) return {x, a.s * kiln_online_exp<kApprox>(a.m - x) + 1.0f};
  return {a.m, a.s + kiln_online_exp<kApprox>(x - a.m)};
}
// A whole vector at once: its max first, then one rescale of the sum and an
// independent exp an element. Pushed element by element, each exp waited on
// the previous compare and branch: logsumexp [32, 2097152] bf16 ran at 0.31
// of the copy rate against 0.74 for the max alone (98.7 us; a vector at a
// time, 70.5 us on the H200).
template <bool kApprox, int kN>
__device__ __forceinline__ KilnOnline kiln_online_push_vec(KilnOnline a, const float (&x)[kN]) {
  float m = a.m;
#pragma unroll
  for (int j = 0; j < kN; ++j) m = fmaxf(m, x[j]);
  if (m == -KILN_INF) return a;  // nothing but -inf yet; avoids exp(-inf - -inf)
  float s = a.s * kiln_online_exp<kApprox>(a.m - m);
#pragma unroll
  for (int j = 0; j < kN; ++j) s += kiln_online_exp<kApprox>(x[j] - m);
  return {m, s};
}
__device__ __forceinline__ KilnOnline kiln_online_combine(KilnOnline a, KilnOnline b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -KILN_INF) return a;
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}
// kiln_group_reduce's rule for the online statistics.
template <int kLanes>
__device__ __forceinline__ KilnOnline kiln_group_online(KilnOnline v) {
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset >>= 1) {
    KilnOnline o = {__shfl_xor_sync(0xffffffffu, v.m, offset), __shfl_xor_sync(0xffffffffu, v.s, offset)};
    v = kiln_online_combine(v, o);
  }
  return v;
}
__device__ __forceinline__ KilnOnline kiln_warp_online(KilnOnline v) { return kiln_group_online<32>(v); }
// kiln_block_reduce's rule for the online statistics; `scratch` holds 128
// floats (each half: 32 maxima, then 32 sums).
__device__ __forceinline__ KilnOnline kiln_block_online(KilnOnline v, float* scratch, int& turn) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  float* half = scratch + (turn++ & 1) * 64;
  v = kiln_warp_online(v);
  if (lane == 0) {
    half[warp] = v.m;
    half[32 + warp] = v.s;
  }
  __syncthreads();
  return kiln_warp_online(lane < warps ? KilnOnline{half[lane], half[32 + lane]} : kiln_online_identity());
}

// ---- thread-block clusters (sm_90): blocks of one cluster share a row and
// combine partial results through distributed shared memory ----
__device__ __forceinline__ unsigned kiln_cluster_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}
// The cluster's index in the grid, and how many clusters the grid holds.
__device__ __forceinline__ unsigned kiln_cluster_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id));
  return id;
}
__device__ __forceinline__ unsigned kiln_cluster_count() {
  unsigned count;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(count));
  return count;
}
__device__ __forceinline__ void kiln_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// A block may write another's shared memory only once that block has started.
// A cluster reduction's kernel arrives on entry, and its first reduction waits
// for every block's arrival before it writes: the loads between overlap it.
__device__ __forceinline__ void kiln_cluster_arrive() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void kiln_cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void kiln_cluster_store(float* local, unsigned rank, float value) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(local));
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(remote), "f"(value) : "memory");
}
// Every thread of the cluster gets the result, after one cluster barrier. Each
// warp's lane r writes the warp's partial into block r's `partials`, at this
// block's rank and warp; after the barrier each warp combines the whole
// cluster's partials from its own block's shared memory, all warps of all
// blocks in the same order, so every thread holds the same value. `partials`
// holds 2 * kBlocks * 32 floats, two halves taken in turn as in
// kiln_block_reduce: a block writes a half again only past the barrier of the
// reduction between, which no block reaches before it has read the half. No
// block reads another's memory, and none writes after its last barrier, so a
// block may exit as soon as it has its result.
template <typename Op, int kBlocks>
__device__ __forceinline__ float kiln_cluster_reduce(float v, float* partials, int& turn) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  if (turn == 0) kiln_cluster_wait();
  float* half = partials + (turn++ & 1) * kBlocks * 32;
  v = kiln_warp_reduce<Op>(v);
  if (lane < kBlocks) kiln_cluster_store(half + kiln_cluster_rank() * warps + warp, lane, v);
  kiln_cluster_sync();
  float w = Op::identity();
  for (int i = lane; i < kBlocks * warps; i += 32) w = Op::combine(w, half[i]);
  return kiln_warp_reduce<Op>(w);
}
// kiln_cluster_reduce's rule for the online statistics; `partials` holds
// 4 * kBlocks * 32 floats (each half: the maxima, then the sums).
template <int kBlocks>
__device__ __forceinline__ KilnOnline kiln_cluster_online(KilnOnline v, float* partials, int& turn) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  if (turn == 0) kiln_cluster_wait();
  float* half = partials + (turn++ & 1) * 2 * kBlocks * 32;
  v = kiln_warp_online(v);
  if (lane < kBlocks) {
    const int at = kiln_cluster_rank() * warps + warp;
    kiln_cluster_store(half + at, lane, v.m);
    kiln_cluster_store(half + kBlocks * 32 + at, lane, v.s);
  }
  kiln_cluster_sync();
  KilnOnline w = kiln_online_identity();
  for (int i = lane; i < kBlocks * warps; i += 32) w = kiln_online_combine(w, {half[i], half[kBlocks * 32 + i]});
  return kiln_warp_online(w);
}
