// Static tensor shapes: dims, element counts (overflow-checked), broadcasting.
//
//   Dims a = {16384, 1}, b = {16384, 16384};
//   BroadcastDims(a, b)      -> {16384, 16384}
//   DimsString(a)            -> "[16384,1]"
//   CheckedNumElements(a)    -> 16384, or an error when the product overflows
#ifndef KILN_GRAPH_SHAPE_H_
#define KILN_GRAPH_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace kiln {

using Dims = std::vector<int64_t>;

// The largest element count kiln accepts for one tensor (2^48). Far beyond any
// GPU's memory, small enough that byte counts of any dtype fit in int64.
inline constexpr int64_t kMaxElements = int64_t{1} << 48;
inline constexpr int kMaxRank = 8;
// A matmul operand: up to four batch dims, then rows and columns.
inline constexpr int kMaxMatmulRank = 6;

std::string DimsString(absl::Span<const int64_t> dims);

// Element count; fails on a negative dim, on rank > kMaxRank, or when the
// product exceeds kMaxElements. A zero dim gives zero elements.
absl::StatusOr<int64_t> CheckedNumElements(absl::Span<const int64_t> dims);

// Element count of dims already known to be valid (for example, a node's shape).
int64_t NumElements(absl::Span<const int64_t> dims);

// NumPy broadcasting: right-aligned, each pair of dims equal or one of them 1.
absl::StatusOr<Dims> BroadcastDims(absl::Span<const int64_t> a, absl::Span<const int64_t> b);

// Row-major strides, in elements.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

// Strides for reading a tensor of shape `operand` broadcast to `result`
// (right-aligned): a broadcast dim gets stride 0. Returns one stride per dim of
// `result`.
std::vector<int64_t> BroadcastStrides(absl::Span<const int64_t> operand,
                                      absl::Span<const int64_t> result);

}  // namespace kiln

#endif  // KILN_GRAPH_SHAPE_H_
