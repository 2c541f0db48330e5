// The CUDA C++ text of one generated kernel, as the runtime receives it.
//
//   KernelSource src{.code = "extern \"C\" __global__ void k0(float* y) { ... }",
//                    .name_for_errors = "k0"};
//
// `code` must be self-contained (kiln emits its own bf16/f16 conversions, so
// nothing from the toolkit is included). `name_for_errors` labels compile and
// launch errors only; it never changes the compiled binary.
#ifndef KILN_RUNTIME_KERNEL_SOURCE_H_
#define KILN_RUNTIME_KERNEL_SOURCE_H_

#include <string>

namespace kiln {

struct KernelSource {
  std::string code;
  std::string name_for_errors;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_KERNEL_SOURCE_H_
