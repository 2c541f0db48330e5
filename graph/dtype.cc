#include "graph/dtype.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace kiln {

absl::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kBool: return "bool";
    case DType::kI32: return "i32";
  }
  return "?";
}

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (DType dtype : kAllDTypes) {
    if (DTypeName(dtype) == name) return dtype;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype \"", absl::CEscape(name),
                                                 "\" (expected f32, f16, bf16, bool or i32)"));
}

int64_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF32: return 4;
    case DType::kF16: return 2;
    case DType::kBF16: return 2;
    case DType::kBool: return 1;
    case DType::kI32: return 4;
  }
  return 0;
}

double LargestFinite(DType dtype) {
  switch (dtype) {
    case DType::kF32: return 3.4028234663852886e38;   // (2 - 2^-23) * 2^127
    case DType::kF16: return 65504.0;                 // (2 - 2^-10) * 2^15
    case DType::kBF16: return 3.3895313892515355e38;  // (2 - 2^-7) * 2^127
    case DType::kBool: return 1.0;
    case DType::kI32: return 2147483647.0;
  }
  return 0;
}

bool IsFloat(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16;
}

uint16_t FloatToBF16Bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40);  // stay quiet NaN
  // Adding 0x7fff plus the lowest kept bit rounds to nearest, ties to even;
  // overflow into the exponent correctly produces infinity.
  uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;
  return static_cast<uint16_t>(bits >> 16);
}

float BF16BitsToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t FloatToHalfBits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): scale so that the half's lowest bit is 1.0 and let
    // float arithmetic round to nearest even.
    const float magnitude = std::bit_cast<float>(abs);
    const float scaled = magnitude * 16777216.0f;  // 2^24: half subnormal step is 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits.
  uint32_t half = abs - 0x38000000u;  // (127 - 15) << 23
  const uint32_t lsb = (half >> 13) & 1u;
  half += 0x0fffu + lsb;
  return static_cast<uint16_t>(sign | (half >> 13));
}

float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) {
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

namespace {

// Rounds straight from double to a binary format with `mantissa_bits` stored
// fraction bits and smallest normal exponent `min_exponent`, ties to even.
// Going through float first would round twice and could break a tie wrongly.
double RoundToBinaryFormat(double value, int mantissa_bits, int min_exponent, double max_finite) {
  if (!std::isfinite(value) || value == 0.0) return value;
  int exponent = 0;
  std::frexp(std::fabs(value), &exponent);  // |value| = f * 2^exponent, f in [0.5, 1)
  const int unit_exponent = std::max(exponent - 1, min_exponent) - mantissa_bits;
  // Scaling by powers of two is exact, so nearbyint (ties to even) does the rounding.
  const double rounded = std::ldexp(std::nearbyint(std::ldexp(value, -unit_exponent)), unit_exponent);
  if (std::fabs(rounded) > max_finite) return std::copysign(HUGE_VAL, value);
  return rounded;
}

}  // namespace

double RoundToDType(double value, DType dtype) {
  switch (dtype) {
    case DType::kF32: return static_cast<float>(value);
    case DType::kF16: return RoundToBinaryFormat(value, 10, -14, 65504.0);
    case DType::kBF16: return RoundToBinaryFormat(value, 7, -126, 0x1.fep127);
    case DType::kBool: return value != 0.0 ? 1.0 : 0.0;
    case DType::kI32: {
      if (std::isnan(value)) return 0.0;
      constexpr double kMin = std::numeric_limits<int32_t>::min();
      constexpr double kMax = std::numeric_limits<int32_t>::max();
      return std::trunc(std::fmin(std::fmax(value, kMin), kMax));
    }
  }
  return value;
}

}  // namespace kiln
