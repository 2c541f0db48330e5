#include "graph/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln {

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

absl::StatusOr<int64_t> CheckedNumElements(absl::Span<const int64_t> dims) {
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank ", dims.size(), " exceeds the maximum rank ", kMaxRank));
  }
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape ", DimsString(dims), " has a negative dim"));
    }
    if (d != 0 && count > kMaxElements / d) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", DimsString(dims), " has more than 2^48 elements"));
    }
    count *= d;
  }
  // A zero dim anywhere makes the product zero even if the other dims overflowed.
  return count;
}

int64_t NumElements(absl::Span<const int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

absl::StatusOr<Dims> BroadcastDims(absl::Span<const int64_t> a, absl::Span<const int64_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims result(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", DimsString(a), " and ", DimsString(b), " cannot broadcast"));
    }
    result[i] = da == 1 ? db : da;
  }
  return result;
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= dims[i];
  }
  return strides;
}

std::vector<int64_t> BroadcastStrides(absl::Span<const int64_t> operand,
                                      absl::Span<const int64_t> result) {
  std::vector<int64_t> strides(result.size(), 0);
  const std::vector<int64_t> own = RowMajorStrides(operand);
  const size_t offset = result.size() - operand.size();
  for (size_t i = 0; i < operand.size(); ++i) {
    strides[offset + i] = operand[i] == 1 ? 0 : own[i];
  }
  return strides;
}

}  // namespace kiln
