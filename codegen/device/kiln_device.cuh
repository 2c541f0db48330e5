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

// The N elements from lo's M-th on, then hi's; kiln_shift_dispatch takes a
// runtime m in [1, N) through a chain of branches, which diverge only where
// a warp's lanes hold different m.
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
// p[c..c+N) for c = M modulo N, from the aligned vectors around it (the
// second read element by element where it would pass p[cols - 1]), shifted
// in registers: a row kernel reads a column operand (layernorm's weight)
// this way beside rows whose length is not a multiple of N, where scalar
// loads strided by N across a warp cost eight instructions and extra
// sectors a vector. M is a template argument so that the shift is a few
// byte permutes, with no branch but the second vector's bounds test;
// kiln_with_shift picks it once a row.
template <typename T, int N, int M>
__device__ __forceinline__ KilnVec<T, N> kiln_load_cols(const T* __restrict__ p, long long c, long long cols) {
  const long long a = c - M;
  const KilnVec<T, N> lo = kiln_load_vec<T, N>(p + a);
  if constexpr (M == 0) {
    return lo;
  } else {
    return kiln_shift_vec<T, N, M>(lo, kiln_load_span<T, N>(p, a + N, 0, cols));
  }
}
// Runs pass(KilnShift<m>{}) for a runtime m in [0, N): a row's elements and
// its column operands are misaligned by the same m all along the row, so a
// pass over the row branches once, not at each load. A lane group never
// straddles rows of different m (packed rows divide into whole vectors).
template <int M>
struct KilnShift {
  static constexpr int value = M;
};
template <int N, int M = 0, typename Pass>
__device__ __forceinline__ void kiln_with_shift(int m, Pass&& pass) {
  if constexpr (M + 1 < N) {
    if (m != M) {
      kiln_with_shift<N, M + 1>(m, pass);
      return;
    }
  }
  pass(KilnShift<M>{});
}

// A shared-memory address as the 32-bit offset PTX's shared-space operands take.
__device__ __forceinline__ unsigned kiln_shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- staged rows: a block copies a contiguous span of a tensor between
// global and shared memory in 16-byte vectors, whatever the rows' length ----
// Starts copying 16 aligned bytes from global to shared memory without
// passing them through registers; kiln_copy_wait finishes the calling
// thread's copies.
__device__ __forceinline__ void kiln_copy16_async(void* dst, const void* __restrict__ src) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(kiln_shared_address(dst)), "l"(src) : "memory");
#else
  *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
#endif
}
__device__ __forceinline__ void kiln_copy_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}
// Between two passes over a segment in shared memory with no barrier
// between them: the next pass reads the segment again instead of ptxas
// keeping the first pass's values live in registers, which spilled bf16 rows
// of 32768 (a block of 1024 threads, 32 registers) by 48 bytes a thread. A
// compiler-only fence did not stop ptxas; the warp barrier orders shared
// memory, and a warp reaches it converged.
__device__ __forceinline__ void kiln_reread_shared() { __syncwarp(); }
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

// A block's reductions keep their partials in `scratch`: two halves that
// consecutive reductions (counted by `turn`) take in turn. The halves are as
// wide as the kernel's widest statistic (kiln_block_stat): with halves of
// each reduction's own width (32 floats for a float, 64 for an online pair),
// a plain reduction after an online pair (an entropy's sum after its softmax)
// wrote into the pair's half while slower warps still read it.
template <int kHalf>
__device__ __forceinline__ float* kiln_scratch_half(float (&scratch)[2][kHalf], int& turn) {
  return scratch[turn++ & 1];
}
// Every thread of the block gets the result, after one barrier. A thread
// writes a half again only two reductions later, past the barrier of the one
// between, which no thread reaches before it has read the half. Every warp
// combines the same partials in the same order, so all threads hold the
// same value.
template <typename Op, int kHalf>
__device__ __forceinline__ float kiln_block_reduce(float v, float (&scratch)[2][kHalf], int& turn) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  float* half = kiln_scratch_half(scratch, turn);
  v = kiln_warp_reduce<Op>(v);
  if (lane == 0) half[warp] = v;
  __syncthreads();
  return kiln_warp_reduce<Op>(lane < warps ? half[lane] : Op::identity());
}

// ---- statistics of several floats, reduced together: each has kFloats,
// identity() and combine(a, b), and reads and writes its floats by index
// (get, set). One reduction of a statistic stands for two dependent
// reductions over the row, and costs a block or a cluster one exchange. ----

// Online softmax: a running max m and the sum s of exp(x - m).
struct KilnOnline {
  static constexpr int kFloats = 2;
  float m;
  float s;
  __device__ __forceinline__ float get(int i) const { return i == 0 ? m : s; }
  __device__ __forceinline__ void set(int i, float v) { (i == 0 ? m : s) = v; }
  static __device__ __forceinline__ KilnOnline identity() { return {-KILN_INF, 0.0f}; }
  static __device__ __forceinline__ KilnOnline combine(KilnOnline a, KilnOnline b) {
    const float m = fmaxf(a.m, b.m);
    if (m == -KILN_INF) return a;
    return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
  }
  // A group of lanes at once: the group's max, then each lane's sum moved to
  // it and summed, one exp a lane where a butterfly of combine() took two a
  // step (ten a lane for a warp, twice a cluster reduction).
  template <int kLanes>
  static __device__ __forceinline__ KilnOnline reduce_group(KilnOnline v) {
    const float m = kiln_group_reduce<KilnMax, kLanes>(v.m);
    const float s = v.m == -KILN_INF ? 0.0f : v.s * expf(v.m - m);
    return {m, kiln_group_reduce<KilnSum, kLanes>(s)};
  }
};
// exp(x - max), a term of a pair's sum: the hardware's 2^x, with results
// below 2^-126 flushed to zero (ftz), three instructions where
// __expf(x - max) took six (three of them, a test and two multiplications,
// to keep such results, which no sum can see: each sum holds a term of about
// 1, its max's) and expf ten. Static SASS of logsumexp [2048, 32768] bf16
// spent 10 instructions an element in its two loops.
// Every term takes it, whatever the outputs' type. A term's relative error,
// (2 + 1.17 |x - max|) ulp as CUDA bounds __expf's, counts in the sum by the
// term's share of it, and the shares' mean of |x - max| is below ln(n) for
// n terms: the sum is off by at most about 2 + 1.17 ln(n) ulp, 16 for rows
// of 131072, under the rounding of the f32 additions that make it.
// The subtraction stays ahead of the scaling: folded into one fma,
// x log2(e) - max log2(e), rounding max log2(e) would add a relative error of
// |max| 2^-24 to every term, 6% for rows near a million.
__device__ __forceinline__ float kiln_online_term(float x, float max) {
  constexpr float kLog2e = 1.4426950408889634f;
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"((x - max) * kLog2e));
  return y;
}
// exp(old_max - new_max), which moves a sum to a new max. Its error scales
// the whole sum, and a streamed row's rescales add theirs up, so it keeps the
// accurate expf but where the pair's exps reach the outputs only as 16-bit
// floats (kApprox, graph/precision.h).
template <bool kApprox>
__device__ __forceinline__ float kiln_online_rescale(float old_max, float new_max) {
  if constexpr (kApprox) {
    return kiln_online_term(old_max, new_max);
  } else {
    return expf(old_max - new_max);
  }
}
template <bool kApprox>
__device__ __forceinline__ KilnOnline kiln_online_push(KilnOnline a, float x) {
  if (x == -KILN_INF) return a;  // exp(-inf) adds nothing; avoids exp(-inf - -inf)
  if (x > a.m) return {x, a.s * kiln_online_rescale<kApprox>(a.m, x) + 1.0f};
  return {a.m, a.s + kiln_online_term(x, a.m)};
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
  float s = a.s * kiln_online_rescale<kApprox>(a.m, m);
#pragma unroll
  for (int j = 0; j < kN; ++j) s += kiln_online_term(x[j], m);
  return {m, s};
}

// A mean and a variance about it: the count n, the mean, and m2, the sum of
// squared deviations from the mean. Partial moments combine exactly (Chan,
// Golub and LeVeque), without the cancellation of a sum of squares less the
// square of the sum.
struct KilnMoments {
  static constexpr int kFloats = 3;
  float n;
  float mean;
  float m2;
  __device__ __forceinline__ float get(int i) const { return i == 0 ? n : i == 1 ? mean : m2; }
  __device__ __forceinline__ void set(int i, float v) { (i == 0 ? n : i == 1 ? mean : m2) = v; }
  static __device__ __forceinline__ KilnMoments identity() { return {0.0f, 0.0f, 0.0f}; }
  static __device__ __forceinline__ KilnMoments combine(KilnMoments a, KilnMoments b) {
    const float n = a.n + b.n;
    if (n == 0.0f) return a;
    const float delta = b.mean - a.mean;
    const float wb = b.n / n;
    return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
  }
  // A group of lanes at once: the group's count and mean from the lanes'
  // sums, then each lane's squared deviations moved to that mean
  // (m2 + n (mean_lane - mean)^2, no term negative) and summed: one division
  // where a butterfly of combine() took one a step.
  template <int kLanes>
  static __device__ __forceinline__ KilnMoments reduce_group(KilnMoments v) {
    const float n = kiln_group_reduce<KilnSum, kLanes>(v.n);
    const float sum = kiln_group_reduce<KilnSum, kLanes>(v.n * v.mean);
    const float mean = n > 0.0f ? sum / n : 0.0f;
    const float d = v.mean - mean;
    return {n, mean, kiln_group_reduce<KilnSum, kLanes>(v.m2 + v.n * d * d)};
  }
};
// A whole vector's moments, joined to the running ones.
template <int kN>
__device__ __forceinline__ KilnMoments kiln_moments_push_vec(KilnMoments a, const float (&x)[kN]) {
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kN; ++j) sum += x[j];
  const float mean = sum * (1.0f / kN);
  float m2 = 0.0f;
#pragma unroll
  for (int j = 0; j < kN; ++j) m2 += (x[j] - mean) * (x[j] - mean);
  return KilnMoments::combine(a, {static_cast<float>(kN), mean, m2});
}
__device__ __forceinline__ KilnMoments kiln_moments_push(KilnMoments a, float x) {
  return KilnMoments::combine(a, {1.0f, x, 0.0f});
}
// A held row's thread reads its few dozen values once: the sum and the sum
// of squares of d = x - shift, with `shift` one of the values. Against a
// sum of squares of x itself, which loses every digit of the variance where
// the mean is far from zero against the spread, the shifted sums lose only
// what the part's own spread around one of its values costs.
__device__ __forceinline__ KilnMoments kiln_moments_shifted(int count, float shift, float sum, float sq) {
  if (count == 0) return KilnMoments::identity();
  const float n = static_cast<float>(count);
  const float mean = sum / n;
  return {n, shift + mean, fmaxf(sq - sum * mean, 0.0f)};
}

// kiln_group_reduce's rule for a statistic: every lane of the group gets
// the result.
template <typename S, int kLanes>
__device__ __forceinline__ S kiln_group_stat(S v) {
  return S::template reduce_group<kLanes>(v);
}
// kiln_block_reduce's rule for a statistic; each half holds the warps' first
// floats, then their second, ...
template <typename S, int kHalf>
__device__ __forceinline__ S kiln_block_stat(S v, float (&scratch)[2][kHalf], int& turn) {
  static_assert(32 * S::kFloats <= kHalf, "the scratch's halves are too narrow for the statistic");
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  float* half = kiln_scratch_half(scratch, turn);
  v = kiln_group_stat<S, 32>(v);
  if (lane == 0) {
#pragma unroll
    for (int i = 0; i < S::kFloats; ++i) half[32 * i + warp] = v.get(i);
  }
  __syncthreads();
  S w = S::identity();
  if (lane < warps) {
#pragma unroll
    for (int i = 0; i < S::kFloats; ++i) w.set(i, half[32 * i + lane]);
  }
  return kiln_group_stat<S, 32>(w);
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
__device__ __forceinline__ void kiln_cluster_arrive() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void kiln_cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ unsigned kiln_cluster_map(unsigned address, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
  return remote;
}

// mbarriers: a phase completes when its expected arrivals and its expected
// transaction bytes (those of TMA copies and st.async stores) have all come
// in. Waiters name the parity of the phase they wait for, so a barrier is
// reused round after round.
__device__ __forceinline__ void kiln_mbar_init(unsigned bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
}
__device__ __forceinline__ void kiln_mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// Where the blocks of a cluster send each other their partial results: two
// halves that consecutive reductions (counted by `turn`) take in turn, each
// with an mbarrier that completes once every warp of the cluster has stored
// its partial there. A partial travels with st.async, whose bytes complete
// the receiver's mbarrier, so no cluster barrier is needed, whose release
// first waits for every earlier store of the thread: on the H200 softmax
// [1335, 50257] bf16 took 101 us with a cluster barrier a reduction and
// 92 us this way, rmsnorm [32, 2097152] f16 146 us and 111 us (s17).
// A block stores into a half again only two reductions later, once it has
// every block's partials of the reduction between, which each warp sends
// only after it has read the half.
// A slot holds a partial of up to kFloats floats: a float2 for a float or
// the online statistics, a float4 for the moments.
template <int kFloats>
struct KilnExchangeSlot {
  using Type = float4;
};
template <>
struct KilnExchangeSlot<1> {
  using Type = float2;
};
template <>
struct KilnExchangeSlot<2> {
  using Type = float2;
};
__device__ __forceinline__ float kiln_slot_get(const float2& s, int i) { return i == 0 ? s.x : s.y; }
__device__ __forceinline__ float kiln_slot_get(const float4& s, int i) {
  return i == 0 ? s.x : i == 1 ? s.y : i == 2 ? s.z : s.w;
}
__device__ __forceinline__ void kiln_slot_set(float2& s, int i, float v) { (i == 0 ? s.x : s.y) = v; }
__device__ __forceinline__ void kiln_slot_set(float4& s, int i, float v) {
  (i == 0 ? s.x : i == 1 ? s.y : i == 2 ? s.z : s.w) = v;
}
template <int kBlocks, int kFloats = 2>
struct KilnClusterExchange {
  using Slot = typename KilnExchangeSlot<kFloats>::Type;
  unsigned long long arrived[2];
  Slot half[2][kBlocks * 32];  // [rank * warps + warp]
};
// Each block's mbarriers must exist before any block stores into them: the
// kernel calls this on entry, and its first reduction waits for the whole
// cluster to have called it (the loads between overlap the wait).
template <typename Exchange>
__device__ __forceinline__ void kiln_cluster_start(Exchange& exchange) {
  if (threadIdx.x == 0) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      kiln_mbar_init(kiln_shared_address(&exchange.arrived[h]), 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  kiln_cluster_arrive();
}
// Opens the next half: one thread expects the bytes the cluster's warps will
// store there. Returns the half's index and sets `parity` to the phase to wait for.
template <typename Exchange>
__device__ __forceinline__ int kiln_cluster_open(Exchange& exchange, int& turn, unsigned bytes, unsigned& parity) {
  if (turn == 0) kiln_cluster_wait();
  const int h = turn & 1;
  parity = (turn >> 1) & 1;
  ++turn;
  if (threadIdx.x == 0) kiln_mbar_arrive_expect_tx(kiln_shared_address(&exchange.arrived[h]), bytes);
  return h;
}
// Polls relaxed, then one fence acquires only the shared memory the partials
// arrived in, where an acquire at cluster scope on every poll would order
// the thread's later global loads too (on the H200 the two ran the same).
template <typename Exchange>
__device__ __forceinline__ void kiln_cluster_await(Exchange& exchange, int h, unsigned parity) {
  const unsigned bar = kiln_shared_address(&exchange.arrived[h]);
  unsigned done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (!done);
  asm volatile("fence.acquire.sync_restrict::shared::cluster.cluster;" ::: "memory");
}
// Stores a partial at `slot` of block `rank`'s half `h`: a float in the
// slot's first 4 bytes, or the slot whole.
template <typename Exchange>
__device__ __forceinline__ void kiln_cluster_send(Exchange& exchange, int h, int slot, unsigned rank, float value) {
  const unsigned address = kiln_cluster_map(kiln_shared_address(&exchange.half[h][slot].x), rank);
  const unsigned bar = kiln_cluster_map(kiln_shared_address(&exchange.arrived[h]), rank);
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];"
               ::"r"(address), "f"(value), "r"(bar) : "memory");
}
template <typename Exchange>
__device__ __forceinline__ void kiln_cluster_send(Exchange& exchange, int h, int slot, unsigned rank, float2 value) {
  const unsigned address = kiln_cluster_map(kiln_shared_address(&exchange.half[h][slot]), rank);
  const unsigned bar = kiln_cluster_map(kiln_shared_address(&exchange.arrived[h]), rank);
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];"
               ::"r"(address), "f"(value.x), "f"(value.y), "r"(bar) : "memory");
}
template <typename Exchange>
__device__ __forceinline__ void kiln_cluster_send(Exchange& exchange, int h, int slot, unsigned rank, float4 value) {
  const unsigned address = kiln_cluster_map(kiln_shared_address(&exchange.half[h][slot]), rank);
  const unsigned bar = kiln_cluster_map(kiln_shared_address(&exchange.arrived[h]), rank);
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];"
               ::"r"(address), "f"(value.x), "f"(value.y), "f"(value.z), "f"(value.w), "r"(bar) : "memory");
}
// Every thread of the cluster gets the result. Each warp's lane r sends the
// warp's partial to block r, at this block's rank and warp; once its own
// half is complete each warp combines the whole cluster's partials, all
// warps of all blocks in the same order, so every thread holds the same
// value. No block reads another's memory, and every store into a block
// lands before that block's last reduction returns, so a block may exit as
// soon as it has its result.
template <typename Op, int kBlocks, int kFloats>
__device__ __forceinline__ float kiln_cluster_reduce(float v, KilnClusterExchange<kBlocks, kFloats>& exchange,
                                                     int& turn) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  unsigned parity;
  const int h = kiln_cluster_open(exchange, turn, kBlocks * warps * 4, parity);
  v = kiln_warp_reduce<Op>(v);
  if (lane < kBlocks) kiln_cluster_send(exchange, h, kiln_cluster_rank() * warps + warp, lane, v);
  kiln_cluster_await(exchange, h, parity);
  float w = Op::identity();
  for (int i = lane; i < kBlocks * warps; i += 32) w = Op::combine(w, exchange.half[h][i].x);
  return kiln_warp_reduce<Op>(w);
}
// kiln_cluster_reduce's rule for a statistic, each partial a whole slot.
template <typename S, int kBlocks, int kFloats>
__device__ __forceinline__ S kiln_cluster_stat(S v, KilnClusterExchange<kBlocks, kFloats>& exchange, int& turn) {
  static_assert(S::kFloats <= kFloats, "the exchange's slots are too narrow for the statistic");
  using Slot = typename KilnClusterExchange<kBlocks, kFloats>::Slot;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  unsigned parity;
  const int h = kiln_cluster_open(exchange, turn, kBlocks * warps * sizeof(Slot), parity);
  v = kiln_group_stat<S, 32>(v);
  if (lane < kBlocks) {
    Slot packed = {};
#pragma unroll
    for (int i = 0; i < S::kFloats; ++i) kiln_slot_set(packed, i, v.get(i));
    kiln_cluster_send(exchange, h, kiln_cluster_rank() * warps + warp, lane, packed);
  }
  kiln_cluster_await(exchange, h, parity);
  S w = S::identity();
  for (int i = lane; i < kBlocks * warps; i += 32) {
    const Slot packed = exchange.half[h][i];
    S p;
#pragma unroll
    for (int f = 0; f < S::kFloats; ++f) p.set(f, kiln_slot_get(packed, f));
    w = S::combine(w, p);
  }
  return kiln_group_stat<S, 32>(w);
}
