#include "graph/host_tensor.h"

#include <cmath>
#include <limits>

#include "graph/parallel_for.h"

namespace kiln {
namespace {

// Element i takes the i-th output of splitmix64 seeded with `seed`. A counter-based
// generator fills large tensors in parallel with exactly the sequential values.
uint64_t SplitMix64(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double RandomValue(DType dtype, uint64_t bits) {
  switch (dtype) {
    case DType::kBool: return static_cast<double>(bits >> 63);
    case DType::kI32: return static_cast<double>(static_cast<int64_t>(bits % 201) - 100);
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16: {
      const double uniform = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
      const double value = RoundToDType(-2.0 + 4.0 * uniform, dtype);
      // Draws that round up to 2 wrap to -2: the range stays half-open and -2
      // gets the share of one full rounding interval, like every other value.
      return value >= 2.0 ? -2.0 : value;
    }
  }
  return 0.0;
}

}  // namespace

HostTensor RandomTensor(DType dtype, const Dims& shape, uint64_t seed) {
  HostTensor tensor{.dtype = dtype, .shape = shape};
  const int64_t count = NumElements(shape);
  tensor.data.resize(count);
  ParallelFor(count, 1 << 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      tensor.data[i] = RandomValue(dtype, SplitMix64(seed, static_cast<uint64_t>(i)));
    }
  });
  // A tiny bool or i32 tensor can draw all zeros, which would hide an unwritten
  // output; the promise is "never all zeros", so the first element becomes 1.
  bool all_zero = count > 0;
  for (int64_t i = 0; all_zero && i < count; ++i) all_zero = tensor.data[i] == 0.0;
  if (all_zero) tensor.data[0] = 1.0;
  return tensor;
}

double RelativeError(const HostTensor& out, const HostTensor& ref) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (out.dtype != ref.dtype || out.shape != ref.shape || out.data.size() != ref.data.size()) {
    return kInf;
  }
  double diff_squares = 0.0;
  double ref_squares = 0.0;
  for (size_t i = 0; i < ref.data.size(); ++i) {
    const double o = out.data[i];
    const double r = ref.data[i];
    if (std::isnan(o) || std::isnan(r)) {
      if (std::isnan(o) && std::isnan(r)) continue;
      return kInf;
    }
    if (std::isfinite(r)) ref_squares += r * r;
    if (o == r) continue;  // equal infinities included
    if (!std::isfinite(o) || !std::isfinite(r)) return kInf;
    diff_squares += (o - r) * (o - r);
  }
  const double diff_norm = std::sqrt(diff_squares);
  return ref_squares == 0.0 ? diff_norm : diff_norm / std::sqrt(ref_squares);
}

}  // namespace kiln
