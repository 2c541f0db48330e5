// The GPU a command needs (run, tune, sweep --run), or the error it reports
// without one, in one wording: "no GPU to run on: no CUDA driver: ...".
#ifndef KILN_FRONTENDS_CLI_OPEN_GPU_H_
#define KILN_FRONTENDS_CLI_OPEN_GPU_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/device.h"

namespace kiln {

// Device 0; `purpose` completes "no GPU to ..." ("run on", "tune on").
absl::StatusOr<std::unique_ptr<Device>> OpenGpu(absl::string_view purpose);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_OPEN_GPU_H_
