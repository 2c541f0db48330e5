// Integer helpers every stage uses for tiles, grids and alignment.
//
//   CeilDiv(1000, 256)   -> 4    (blocks of 256 that cover 1000 elements)
//   AlignUp(1000, 256)   -> 1024
#ifndef KILN_GRAPH_INT_MATH_H_
#define KILN_GRAPH_INT_MATH_H_

#include <cstdint>

namespace kiln {

// For a >= 0 and b > 0.
constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The smallest multiple of `alignment` (> 0) that is at least a >= 0.
constexpr int64_t AlignUp(int64_t a, int64_t alignment) { return CeilDiv(a, alignment) * alignment; }

}  // namespace kiln

#endif  // KILN_GRAPH_INT_MATH_H_
