#include "frontends/cli/sweep_sizes.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontends/cli/cli_flags.h"

namespace kiln {
namespace {

// Sizes past 2^40 elements along one axis fit no GPU; the cap keeps the
// geometric steps clear of overflow.
constexpr int64_t kMaxSize = int64_t{1} << 40;
// As many as --steps allows: a sweep is a map, not a search.
constexpr int64_t kMaxSizes = 1000;

absl::Status RangeError(absl::string_view range, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("--range=", range, " ", why));
}

absl::StatusOr<int64_t> ParseSize(absl::string_view range, absl::string_view text) {
  int64_t size = 0;
  if (!absl::SimpleAtoi(text, &size)) {
    return RangeError(range, absl::StrCat("has \"", text, "\", which is not a whole number"));
  }
  if (size < 1 || size > kMaxSize) return RangeError(range, absl::StrCat("has ", size, ", outside 1..2^40"));
  return size;
}

// A, A+S, ..., and B.
std::vector<int64_t> Arithmetic(int64_t from, int64_t to, int64_t step) {
  std::vector<int64_t> sizes;
  for (int64_t size = from; size < to; size += step) sizes.push_back(size);
  sizes.push_back(to);
  return sizes;
}

// `count` sizes spaced evenly on a log scale, rounded; where rounding makes
// two equal (small sizes), the repeat is dropped.
std::vector<int64_t> Geometric(int64_t from, int64_t to, int64_t count) {
  std::vector<int64_t> sizes = {from};
  const double ratio = static_cast<double>(to) / static_cast<double>(from);
  for (int64_t i = 1; i < count - 1; ++i) {
    const auto size = static_cast<int64_t>(
        std::llround(static_cast<double>(from) * std::pow(ratio, static_cast<double>(i) / (count - 1))));
    if (size > sizes.back() && size < to) sizes.push_back(size);
  }
  sizes.push_back(to);
  return sizes;
}

}  // namespace

absl::StatusOr<SweptDim> SweptDimFromFlags(const FlagValues& flags) {
  if (!flags.Has(kDim)) return absl::InvalidArgumentError("sweep needs --dim=NAME:AXIS, the dim to vary");
  const std::string dim = flags.Text(kDim);
  const size_t colon = dim.rfind(':');
  int axis = 0;
  if (colon == std::string::npos || colon == 0 || !absl::SimpleAtoi(dim.substr(colon + 1), &axis) || axis < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dim=", dim, " is not NAME:AXIS (an input's name and an axis from 0), e.g. x:1"));
  }
  return SweptDim{.input = dim.substr(0, colon), .axis = axis};
}

absl::StatusOr<std::vector<int64_t>> SweepSizesFromFlags(const FlagValues& flags) {
  if (!flags.Has(kRange)) return absl::InvalidArgumentError("sweep needs --range=A:B, the sizes to plan for");
  const std::string range = flags.Text(kRange);
  if (range.find(',') != std::string::npos) {
    if (flags.Has(kSteps) || flags.Has(kStep)) {
      return RangeError(range, "lists its sizes; --steps and --step apply to A:B");
    }
    std::vector<int64_t> sizes;
    for (absl::string_view part : absl::StrSplit(range, ',')) {
      absl::StatusOr<int64_t> size = ParseSize(range, part);
      if (!size.ok()) return size.status();
      if (!sizes.empty() && *size <= sizes.back()) return RangeError(range, "must list increasing sizes");
      sizes.push_back(*size);
    }
    return sizes;
  }
  const std::vector<absl::string_view> ends = absl::StrSplit(range, ':');
  if (ends.size() != 2) return RangeError(range, "is not A:B (or a list of sizes: 1,7,64)");
  absl::StatusOr<int64_t> from = ParseSize(range, ends[0]);
  if (!from.ok()) return from.status();
  absl::StatusOr<int64_t> to = ParseSize(range, ends[1]);
  if (!to.ok()) return to.status();
  if (*from >= *to) return RangeError(range, "must go up: A below B");
  if (flags.Has(kStep)) {
    const int64_t step = flags.Int(kStep);
    if ((*to - *from) / step + 1 > kMaxSizes) {
      return absl::InvalidArgumentError(absl::StrCat("--step=", step, " over --range=", range, " gives ",
                                                     (*to - *from) / step + 1, " sizes; at most ", kMaxSizes));
    }
    return Arithmetic(*from, *to, step);
  }
  return Geometric(*from, *to, flags.Int(kSteps));
}

}  // namespace kiln
