// Overflow-checked int64 arithmetic for element and byte counts: hostile
// graphs reach any product or sum, and signed overflow must never happen.
//
//   std::optional<int64_t> bytes = CheckedMul(passes, tensor_bytes);  // nullopt on overflow
//   std::optional<int64_t> total = CheckedAdd(read, written);
#ifndef KILN_GRAPH_CHECKED_MATH_H_
#define KILN_GRAPH_CHECKED_MATH_H_

#include <cstdint>
#include <optional>

namespace kiln {

inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) return std::nullopt;
  return result;
}

inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
  return result;
}

}  // namespace kiln

#endif  // KILN_GRAPH_CHECKED_MATH_H_
