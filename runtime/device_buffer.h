// Device memory owned by one object: allocated with cuMemAlloc, freed with
// cuMemFree when the buffer dies; move-only.
//
//   absl::StatusOr<DeviceBuffer> x = DeviceBuffer::FromHost(host.data(), bytes);
//   absl::StatusOr<DeviceBuffer> y = DeviceBuffer::Allocate(bytes);
//   y->Memset32(0x7fc00000);        // poison with f32 NaN before a test run
//   ... launch with x->ptr(), y->ptr() ...
//   y->CopyToHost(out.data(), bytes);
//
// Allocation and copies use the context current on the calling thread
// (Device::Open or Device::Activate). The copies are synchronous and go
// through the legacy default stream, so they wait for work on every blocking
// stream (Stream creates those). The Device must outlive its buffers.
#ifndef KILN_RUNTIME_DEVICE_BUFFER_H_
#define KILN_RUNTIME_DEVICE_BUFFER_H_

#include <cuda.h>

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace kiln {

class DeviceBuffer {
 public:
  // `bytes` of uninitialized device memory; 0 bytes gives an empty buffer
  // whose ptr() is 0. Negative sizes are InvalidArgumentError.
  static absl::StatusOr<DeviceBuffer> Allocate(int64_t bytes);
  // A buffer of `bytes` holding a copy of `data`.
  static absl::StatusOr<DeviceBuffer> FromHost(const void* data, int64_t bytes);

  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  CUdeviceptr ptr() const { return ptr_; }
  int64_t size() const { return size_; }

  // Copy the first `bytes` of the buffer from / to host memory; more bytes
  // than the buffer holds is InvalidArgumentError.
  absl::Status CopyFromHost(const void* data, int64_t bytes);
  absl::Status CopyToHost(void* data, int64_t bytes) const;
  // Fill the whole buffer with a byte, or with a 32-bit word (the size must
  // then be a multiple of 4).
  absl::Status Memset8(uint8_t value);
  absl::Status Memset32(uint32_t value);

 private:
  DeviceBuffer(const CudaDriver* driver, CUdeviceptr ptr, int64_t size)
      : driver_(driver), ptr_(ptr), size_(size) {}
  absl::Status CheckCopy(const void* data, int64_t bytes) const;
  void Free();

  const CudaDriver* driver_ = nullptr;
  CUdeviceptr ptr_ = 0;
  int64_t size_ = 0;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_DEVICE_BUFFER_H_
