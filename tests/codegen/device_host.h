// What kiln's device library needs to compile as plain C++ on the host, so
// that tests can run a device function's threads one after another on the
// CPU: the CUDA qualifiers as nothing, the vector types, the bit-cast and byte
// intrinsics as the PTX manual defines them, and threadIdx as a variable the
// test sets. Intrinsics that need threads running together (barriers,
// shuffles, atomics) abort: code that uses them cannot run here.
//
//   #include "tests/codegen/device_host.h"
//   #include "codegen/device/kiln_device.cuh"
//   threadIdx.x = t; kiln_tile_load<unsigned short, Shape>(...);
#ifndef KILN_TESTS_CODEGEN_DEVICE_HOST_H_
#define KILN_TESTS_CODEGEN_DEVICE_HOST_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__
#define __launch_bounds__(...)

struct uint2 {
  unsigned x, y;
};
struct uint4 {
  unsigned x, y, z, w;
};
struct float2 {
  float x, y;
};
struct float4 {
  float x, y, z, w;
};
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
inline float2 make_float2(float a, float b) { return {a, b}; }
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }

struct KilnHostDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline KilnHostDim3 threadIdx, blockIdx, blockDim, gridDim;

inline float __int_as_float(int v) {
  float f;
  std::memcpy(&f, &v, sizeof f);
  return f;
}
inline float __uint_as_float(unsigned v) {
  float f;
  std::memcpy(&f, &v, sizeof f);
  return f;
}
inline float __double2float_rn(double d) { return static_cast<float>(d); }
inline float __expf(float x) { return std::exp(x); }
// Byte i of the result is byte (s >> 4i) & 7 of y:x (PTX prmt, default mode).
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const uint64_t bytes = (static_cast<uint64_t>(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned>(bytes >> (8 * ((s >> (4 * i)) & 7)) & 0xff) << (8 * i);
  return r;
}

[[noreturn]] inline void KilnHostUnsupported(const char* what) {
  std::fprintf(stderr, "%s needs threads that run together; it cannot run on the host\n", what);
  std::abort();
}
inline void __syncthreads() { KilnHostUnsupported("__syncthreads"); }
inline void __syncwarp(unsigned = 0xffffffffu) { KilnHostUnsupported("__syncwarp"); }
inline int __syncthreads_or(int) { KilnHostUnsupported("__syncthreads_or"); }
inline void __threadfence() { KilnHostUnsupported("__threadfence"); }
template <typename T>
T __shfl_xor_sync(unsigned, T, int, int = 32) {
  KilnHostUnsupported("__shfl_xor_sync");
}
template <typename T>
T atomicAdd(T*, T) {
  KilnHostUnsupported("atomicAdd");
}
template <typename T>
T atomicOr(T*, T) {
  KilnHostUnsupported("atomicOr");
}
inline size_t __cvta_generic_to_shared(const void*) { KilnHostUnsupported("__cvta_generic_to_shared"); }
using std::max;
using std::min;

#endif  // KILN_TESTS_CODEGEN_DEVICE_HOST_H_
