// TMA descriptors (CUtensorMap) for the kernel parameters code generation
// asks for, encoded by the driver over a device address.
//
//   absl::StatusOr<CUtensorMap> map = EncodeTensorMap(driver, spec, ptr, "f0_matmul");
//   // passed by value: void* arg = &*map;
//
// The driver checks TMA's rules (16-byte aligned address and strides, boxes
// of at most 256 per dim); a spec that breaks one is an error naming the
// kernel. Code generation only asks for specs within them.
#ifndef KILN_RUNTIME_TENSOR_MAP_H_
#define KILN_RUNTIME_TENSOR_MAP_H_

#include <cuda.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/generated_kernel.h"
#include "runtime/cuda_driver.h"

namespace kiln {

absl::StatusOr<CUtensorMap> EncodeTensorMap(const CudaDriver& driver, const TensorMapSpec& spec,
                                            CUdeviceptr address, absl::string_view kernel);

}  // namespace kiln

#endif  // KILN_RUNTIME_TENSOR_MAP_H_
