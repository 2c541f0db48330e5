#include "runtime/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "graph/checked_math.h"
#include "runtime/cuda_driver.h"

namespace kiln {
namespace {

// The first whitespace-separated number of a one-line file; nullopt when the
// file is missing or holds something else ("max" for an unlimited cgroup).
std::optional<int64_t> ReadNumber(const char* path) {
  std::ifstream in(path);
  std::string word;
  int64_t value = 0;
  if (!(in >> word) || !absl::SimpleAtoi(word, &value)) return std::nullopt;
  return value;
}

// MemAvailable from /proc/meminfo, in bytes; the free pages where the line
// is missing.
int64_t OsAvailableBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    absl::string_view rest = line;
    int64_t kib = 0;
    if (absl::ConsumePrefix(&rest, "MemAvailable:") && absl::ConsumeSuffix(&rest, " kB") &&
        absl::SimpleAtoi(rest, &kib)) {
      return CheckedMul(kib, 1024).value_or(std::numeric_limits<int64_t>::max());
    }
  }
  return CheckedMul(sysconf(_SC_AVPHYS_PAGES), sysconf(_SC_PAGESIZE)).value_or(0);
}

// A budget of `available` bytes, or of the environment's limit when that is lower.
absl::StatusOr<MemoryBudget> WithEnvLimit(std::string memory, int64_t available, std::string source,
                                          const char* variable) {
  absl::StatusOr<std::optional<int64_t>> limit = MemoryLimitFromEnv(variable);
  if (!limit.ok()) return limit.status();
  if (limit->has_value() && **limit < available) {
    available = **limit;
    source = variable;
  }
  return MemoryBudget(std::move(memory), available, std::move(source));
}

}  // namespace

absl::StatusOr<std::optional<int64_t>> MemoryLimitFromEnv(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::optional<int64_t>();
  int64_t bytes = 0;
  if (!absl::SimpleAtoi(text, &bytes) || bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, "=\"", absl::CEscape(text), "\" is not a byte count (a non-negative integer)"));
  }
  return std::optional<int64_t>(bytes);
}

absl::StatusOr<MemoryBudget> MemoryBudget::ForDevice() {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) return driver.status();
  size_t free = 0, total = 0;
  if (absl::Status s = CudaCall((*driver)->MemGetInfo(&free, &total), "cuMemGetInfo", ""); !s.ok()) return s;
  return WithEnvLimit("device", static_cast<int64_t>(std::min<size_t>(free, std::numeric_limits<int64_t>::max())),
                      "free on the device", "KILN_DEVICE_MEMORY_LIMIT");
}

absl::StatusOr<MemoryBudget> MemoryBudget::ForHost() {
  int64_t available = OsAvailableBytes();
  std::string source = "available on the host";
  // In a container the cgroup's limit, not the machine's memory, is what runs out.
  const std::optional<int64_t> limit = ReadNumber("/sys/fs/cgroup/memory.max");
  const std::optional<int64_t> used = ReadNumber("/sys/fs/cgroup/memory.current");
  if (limit.has_value() && used.has_value() && *limit - *used < available) {
    available = std::max<int64_t>(*limit - *used, 0);
    source = "left under the cgroup's memory.max";
  }
  return WithEnvLimit("host", available, std::move(source), "KILN_HOST_MEMORY_LIMIT");
}

absl::Status MemoryBudget::Take(const Node& node, int64_t bytes, int64_t added) {
  const std::optional<int64_t> total = CheckedAdd(taken_, added);
  if (!total.has_value() || *total > available_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "not enough ", memory_, " memory for ", NodeLabel(node), ", ", DTypeName(node.dtype),
        DimsString(node.shape), " of ", bytes, " bytes: the graph's buffers would take ",
        total.has_value() ? absl::StrCat(*total) : "more than 2^63", " bytes, and ", available_, " are available (",
        source_, ")"));
  }
  taken_ = *total;
  return absl::OkStatus();
}

}  // namespace kiln
