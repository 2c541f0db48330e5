// Seeded random tensors drawn on the device: the bytes EncodeTensor would
// upload for RandomTensor(dtype, shape, seed), without building them on the
// host. `kiln run` times on inputs drawn this way when nothing needs them on
// the host, so a gigabyte of input costs milliseconds instead of seconds.
//
//   absl::StatusOr<DeviceBuffer> x = DeviceBuffer::Allocate(count * DTypeSize(dtype));
//   absl::Status s = FillRandom(*device, cache, dtype, count, /*seed=*/1, *x);
#ifndef KILN_RUNTIME_DEVICE_RANDOM_H_
#define KILN_RUNTIME_DEVICE_RANDOM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "graph/dtype.h"
#include "runtime/device.h"
#include "runtime/device_buffer.h"
#include "runtime/kernel_cache.h"

namespace kiln {

// Writes `count` elements of `dtype` to the start of `out`, element i what
// RandomTensor's element i is, bit for bit. The kernels for `dtype` compile
// once through `cache`. Returns after the device has written them. A buffer
// smaller than the elements is InvalidArgumentError.
absl::Status FillRandom(const Device& device, KernelCache& cache, DType dtype, int64_t count, uint64_t seed,
                        DeviceBuffer& out);

}  // namespace kiln

#endif  // KILN_RUNTIME_DEVICE_RANDOM_H_
