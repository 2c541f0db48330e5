#include "fusion/device_limits.h"

#include "absl/strings/str_cat.h"

namespace kiln {

std::string CompileArch(int major, int minor) {
  return absl::StrCat("sm_", major, minor, major == 9 && minor == 0 ? "a" : "");
}

std::string DeviceLimits::Arch() const { return CompileArch(compute_capability / 10, compute_capability % 10); }

}  // namespace kiln
