#include "frontends/cli/flags.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/check.h"

namespace kiln {
namespace {

// 8 -> "8", 1000000 -> "1000000" (not "1e+06"), 0.5 -> "0.5".
std::string Bound(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? absl::StrCat(static_cast<int64_t>(v)) : absl::StrCat(v);
}

absl::Status CheckRange(const Flag& flag, absl::string_view spelled, absl::string_view value, double v) {
  const bool has_min = flag.min != std::numeric_limits<double>::lowest();
  const bool has_max = flag.max != std::numeric_limits<double>::max();
  auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(spelled, "=", value, " ", what));
  };
  if (flag.positive && v <= 0) return error("is not above 0");
  if ((has_min && v < flag.min) || (has_max && v > flag.max)) {
    if (has_min && has_max) return error(absl::StrCat("is outside ", Bound(flag.min), "..", Bound(flag.max)));
    if (has_min) return error(absl::StrCat("is below ", Bound(flag.min)));
    return error(absl::StrCat("is above ", Bound(flag.max)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckFlagValue(const Flag& flag, absl::string_view spelled, absl::string_view value) {
  auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(spelled, "=", value, " ", what));
  };
  switch (flag.kind) {
    case FlagKind::kSwitch: return absl::OkStatus();
    case FlagKind::kInt: {
      int64_t v = 0;
      if (!absl::SimpleAtoi(value, &v)) return error("is not a whole number");
      return CheckRange(flag, spelled, value, static_cast<double>(v));
    }
    case FlagKind::kNumber: {
      double v = 0;
      if (!absl::SimpleAtod(value, &v) || !std::isfinite(v)) return error("is not a number");
      return CheckRange(flag, spelled, value, v);
    }
    case FlagKind::kText:
      if (value.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(spelled, " needs a value: ", spelled, "=", flag.value));
      }
      return absl::OkStatus();
    case FlagKind::kChoice: {
      const std::vector<absl::string_view> choices = absl::StrSplit(flag.value, '|');
      if (std::find(choices.begin(), choices.end(), value) != choices.end()) return absl::OkStatus();
      return error(absl::StrCat("is not one of ", absl::StrJoin(choices, ", ")));
    }
  }
  return absl::OkStatus();
}

const std::string* FlagValues::Find(const Flag& flag) const {
  bool declared = false;
  for (const Flag* d : declared_) declared = declared || d->name == flag.name;
  // A command reading a flag it does not declare would silently see the
  // default; that is a bug in the command table, not a user error.
  KILN_CHECK(declared);
  auto it = given_.find(std::string(flag.name));
  return it == given_.end() ? nullptr : &it->second;
}

std::string FlagValues::ValueOrDefault(const Flag& flag) const {
  const std::string* value = Find(flag);
  KILN_CHECK(value != nullptr || !flag.default_value.empty());
  return value != nullptr ? *value : std::string(flag.default_value);
}

bool FlagValues::Has(const Flag& flag) const { return Find(flag) != nullptr; }

bool FlagValues::Switch(const Flag& flag) const {
  KILN_CHECK(flag.kind == FlagKind::kSwitch);
  return Has(flag);
}

int64_t FlagValues::Int(const Flag& flag) const {
  KILN_CHECK(flag.kind == FlagKind::kInt);
  int64_t v = 0;
  KILN_CHECK(absl::SimpleAtoi(ValueOrDefault(flag), &v));
  return v;
}

double FlagValues::Number(const Flag& flag) const {
  KILN_CHECK(flag.kind == FlagKind::kNumber);
  double v = 0;
  KILN_CHECK(absl::SimpleAtod(ValueOrDefault(flag), &v));
  return v;
}

std::string FlagValues::Text(const Flag& flag) const {
  KILN_CHECK(flag.kind == FlagKind::kText || flag.kind == FlagKind::kChoice);
  const std::string* value = Find(flag);
  return value != nullptr ? *value : std::string(flag.default_value);
}

std::vector<std::string> FlagValues::Given(absl::Span<const Flag* const> flags) const {
  std::vector<std::string> args;
  for (const Flag* flag : flags) {
    const std::string* value = Find(*flag);
    if (value == nullptr) continue;
    args.push_back(flag->kind == FlagKind::kSwitch ? absl::StrCat("--", flag->name)
                                                   : absl::StrCat("--", flag->name, "=", *value));
  }
  return args;
}

}  // namespace kiln
