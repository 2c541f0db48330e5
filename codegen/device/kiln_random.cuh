// ---- seeded random tensors drawn on the device ----
// Element i of a tensor with seed s holds exactly what the host's
// RandomTensor(dtype, shape, s) holds (graph/host_tensor.cc), in storage
// bits: the i-th output of a counter-based splitmix64 mapped to the dtype.
// runtime/device_random.h launches these; its GPU test compares every dtype
// bit for bit with the host.
__device__ __forceinline__ unsigned long long kiln_splitmix64(unsigned long long seed, unsigned long long i) {
  unsigned long long z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [-2, 2) from the top 53 bits (exact in double), rounded straight
// from double to a format with `mantissa_bits` fraction bits and smallest
// normal exponent `min_exponent`, ties to even; a value that rounds up to 2
// wraps to -2. Scaling by powers of two is exact, so rint does the rounding.
__device__ __forceinline__ double kiln_random_rounded(unsigned long long bits, int mantissa_bits, int min_exponent) {
  const double value = -2.0 + 4.0 * (static_cast<double>(bits >> 11) * 0x1.0p-53);
  if (value == 0.0) return value;
  int exponent = 0;
  frexp(fabs(value), &exponent);
  const int unit = max(exponent - 1, min_exponent) - mantissa_bits;
  const double rounded = ldexp(rint(ldexp(value, -unit)), unit);
  return rounded >= 2.0 ? -2.0 : rounded;
}

struct KilnDrawF32 {
  using Storage = float;
  static __device__ __forceinline__ float Draw(unsigned long long bits) {
    const double value = -2.0 + 4.0 * (static_cast<double>(bits >> 11) * 0x1.0p-53);
    const float rounded = __double2float_rn(value);
    return rounded >= 2.0f ? -2.0f : rounded;
  }
  static __device__ __forceinline__ bool NonZero(float v) { return v != 0.0f; }
  static __device__ __forceinline__ float One() { return 1.0f; }
};
struct KilnDrawF16 {
  using Storage = unsigned short;
  // The rounded value is exact in f16, so converting it through f32 is exact.
  static __device__ __forceinline__ unsigned short Draw(unsigned long long bits) {
    return kiln_f32_to_f16(static_cast<float>(kiln_random_rounded(bits, 10, -14)));
  }
  static __device__ __forceinline__ bool NonZero(unsigned short v) { return (v & 0x7fffu) != 0; }
  static __device__ __forceinline__ unsigned short One() { return 0x3c00u; }
};
struct KilnDrawBF16 {
  using Storage = unsigned short;
  static __device__ __forceinline__ unsigned short Draw(unsigned long long bits) {
    return kiln_f32_to_bf16(static_cast<float>(kiln_random_rounded(bits, 7, -126)));
  }
  static __device__ __forceinline__ bool NonZero(unsigned short v) { return (v & 0x7fffu) != 0; }
  static __device__ __forceinline__ unsigned short One() { return 0x3f80u; }
};
struct KilnDrawI32 {
  using Storage = int;
  static __device__ __forceinline__ int Draw(unsigned long long bits) { return static_cast<int>(bits % 201) - 100; }
  static __device__ __forceinline__ bool NonZero(int v) { return v != 0; }
  static __device__ __forceinline__ int One() { return 1; }
};
struct KilnDrawBool {
  using Storage = unsigned char;
  static __device__ __forceinline__ unsigned char Draw(unsigned long long bits) {
    return static_cast<unsigned char>(bits >> 63);
  }
  static __device__ __forceinline__ bool NonZero(unsigned char v) { return v != 0; }
  static __device__ __forceinline__ unsigned char One() { return 1; }
};

// Grid-stride fill of `count` elements. A block that drew any non-zero value
// sets *nonzero; kiln_random_fill_finish then makes an all-zero tensor's
// first element 1, as the host does (a tiny bool or i32 tensor can draw all
// zeros, which would hide an unwritten output).
template <typename D>
__device__ __forceinline__ void kiln_random_fill(typename D::Storage* __restrict__ out, unsigned long long count,
                                                 unsigned long long seed, unsigned* __restrict__ nonzero) {
  bool any = false;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const typename D::Storage v = D::Draw(kiln_splitmix64(seed, i));
    out[i] = v;
    any = any || D::NonZero(v);
  }
  if (__syncthreads_or(any) && threadIdx.x == 0) atomicOr(nonzero, 1u);
}
template <typename D>
__device__ __forceinline__ void kiln_random_fill_finish(typename D::Storage* __restrict__ out,
                                                        const unsigned* __restrict__ nonzero) {
  if (*nonzero == 0) out[0] = D::One();
}
