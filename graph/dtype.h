// Element types of kiln tensors and their host-side rounding rules.
//
//   DType t = DType::kBF16;
//   DTypeName(t)            -> "bf16"
//   DTypeSize(t)            -> 2
//   RoundToDType(0.1, t)    -> 0.10009765625 (nearest bf16, ties to even)
#ifndef KILN_GRAPH_DTYPE_H_
#define KILN_GRAPH_DTYPE_H_

#include <cstdint>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace kiln {

enum class DType : uint8_t { kF32, kF16, kBF16, kBool, kI32 };

inline constexpr DType kAllDTypes[] = {DType::kF32, DType::kF16, DType::kBF16,
                                       DType::kBool, DType::kI32};

absl::string_view DTypeName(DType dtype);
absl::StatusOr<DType> ParseDType(absl::string_view name);
int64_t DTypeSize(DType dtype);
// The largest finite value the dtype holds (f16: 65504; bool: 1).
double LargestFinite(DType dtype);
bool IsFloat(DType dtype);

// IEEE binary16 and bfloat16 conversions, round-to-nearest-even, with NaN and
// infinity preserved. The bit patterns are what a GPU stores.
uint16_t FloatToHalfBits(float value);
float HalfBitsToFloat(uint16_t bits);
uint16_t FloatToBF16Bits(float value);
float BF16BitsToFloat(uint16_t bits);

// Rounds a value computed in double to the nearest value of `dtype`: f32, f16
// and bf16 by round-to-nearest-even, i32 by truncation toward zero (as a cast),
// bool to 0 or 1.
double RoundToDType(double value, DType dtype);

}  // namespace kiln

#endif  // KILN_GRAPH_DTYPE_H_
