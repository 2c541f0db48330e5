#include "frontends/cli/version.h"

#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "runtime/cuda_driver.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

std::string DriverText() {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) {
    absl::string_view why = driver.status().message();
    absl::ConsumePrefix(&why, "no CUDA driver: ");
    return absl::StrCat("none, ", why);
  }
  int version = 0;
  if (absl::Status s = CudaCall((*driver)->DriverGetVersion(&version), "cuDriverGetVersion", ""); !s.ok()) {
    return std::string(s.message());
  }
  // cuDriverGetVersion encodes 12.4 as 12040.
  return absl::StrCat(version / 1000, ".", version % 1000 / 10);
}

}  // namespace

std::string KilnBuildText() { return absl::StrCat(kKilnVersion, " (git ", kGitRevision, ")"); }

std::string VersionText() {
  return absl::StrCat("kiln ", KilnBuildText(), "\nNVRTC ", NvrtcVersion(), "\nCUDA driver: ", DriverText(), "\n");
}

}  // namespace kiln
