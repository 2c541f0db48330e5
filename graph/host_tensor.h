// Host-side tensors for the reference interpreter, tests and the CLI.
//
//   HostTensor x = RandomTensor(DType::kBF16, {64, 128}, /*seed=*/7);
//   x.data[0]   // a double that is exactly representable in bf16
#ifndef KILN_GRAPH_HOST_TENSOR_H_
#define KILN_GRAPH_HOST_TENSOR_H_

#include <cstdint>
#include <vector>

#include "graph/dtype.h"
#include "graph/shape.h"

namespace kiln {

// Values are stored as doubles, each already rounded to `dtype`, so every
// dtype (i32 included) is held exactly and the interpreter needs one code path.
struct HostTensor {
  DType dtype = DType::kF32;
  Dims shape;
  std::vector<double> data;
};

// Fresh random values, never all zeros: floats uniform in [-2, 2), i32 uniform
// in [-100, 100], bool a fair coin. The same seed gives the same tensor.
HostTensor RandomTensor(DType dtype, const Dims& shape, uint64_t seed);

// Relative L2 error ||out - ref|| / ||ref||; infinity when the shapes differ or
// any value of `out` is NaN where `ref` is not.
// Also infinity when the dtypes differ, when `ref` is NaN where `out` is not,
// or when an infinity in either is not matched exactly by the other. NaNs and
// infinities matched in place contribute nothing; when `ref` is all zeros the
// absolute error ||out - ref|| is returned.
double RelativeError(const HostTensor& out, const HostTensor& ref);

}  // namespace kiln

#endif  // KILN_GRAPH_HOST_TENSOR_H_
