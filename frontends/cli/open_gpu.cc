#include "frontends/cli/open_gpu.h"

#include "absl/strings/str_cat.h"

namespace kiln {

absl::StatusOr<std::unique_ptr<Device>> OpenGpu(absl::string_view purpose) {
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open(0);
  if (device.ok()) return device;
  return absl::Status(device.status().code(),
                      absl::StrCat("no GPU to ", purpose, ": ", device.status().message()));
}

}  // namespace kiln
