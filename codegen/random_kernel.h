// The CUDA source that draws a seeded random tensor on the device, the same
// values RandomTensor draws on the host (codegen/device/kiln_random.cuh).
//
//   RandomKernels k = RandomFillKernels(DType::kBF16);
//   k.source        // device library + two kernels, ready for NVRTC
//   k.fill          // "kiln_random_bf16": (out, count, seed, nonzero flag), grid-stride
//   k.finish        // "kiln_random_bf16_finish": (out, flag), one thread, after fill
#ifndef KILN_CODEGEN_RANDOM_KERNEL_H_
#define KILN_CODEGEN_RANDOM_KERNEL_H_

#include <string>

#include "graph/dtype.h"

namespace kiln {

struct RandomKernels {
  std::string source;
  std::string fill;
  std::string finish;
};

RandomKernels RandomFillKernels(DType dtype);

}  // namespace kiln

#endif  // KILN_CODEGEN_RANDOM_KERNEL_H_
