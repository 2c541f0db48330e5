// The text of the .cuh files in codegen/device/ (helpers, the tiled matmul
// main loops, the Hopper building blocks and GEMM), embedded at build time.
#ifndef KILN_CODEGEN_DEVICE_LIBRARY_H_
#define KILN_CODEGEN_DEVICE_LIBRARY_H_

#include "absl/strings/string_view.h"

namespace kiln {

absl::string_view DeviceLibrarySource();

}  // namespace kiln

#endif  // KILN_CODEGEN_DEVICE_LIBRARY_H_
