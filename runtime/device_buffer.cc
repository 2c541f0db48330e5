#include "runtime/device_buffer.h"

#include <cuda.h>

#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/cuda_driver.h"

namespace kiln {

absl::StatusOr<DeviceBuffer> DeviceBuffer::Allocate(int64_t bytes) {
  if (bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot allocate a device buffer of ", bytes, " bytes"));
  }
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) return driver.status();
  // cuMemAlloc refuses 0 bytes; an empty tensor still deserves a buffer.
  if (bytes == 0) return DeviceBuffer(*driver, 0, 0);
  CUdeviceptr ptr = 0;
  if (absl::Status s = CudaCall((*driver)->MemAlloc(&ptr, static_cast<size_t>(bytes)), "cuMemAlloc",
                                absl::StrCat(bytes, " bytes"));
      !s.ok()) {
    return s;
  }
  return DeviceBuffer(*driver, ptr, bytes);
}

absl::StatusOr<DeviceBuffer> DeviceBuffer::FromHost(const void* data, int64_t bytes) {
  absl::StatusOr<DeviceBuffer> buffer = Allocate(bytes);
  if (!buffer.ok()) return buffer.status();
  if (absl::Status s = buffer->CopyFromHost(data, bytes); !s.ok()) return s;
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : driver_(other.driver_),
      ptr_(std::exchange(other.ptr_, 0)),
      size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Free();
    driver_ = other.driver_;
    ptr_ = std::exchange(other.ptr_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Free(); }

void DeviceBuffer::Free() {
  // A failing cuMemFree means the context is already gone; nothing is left to do.
  if (ptr_ != 0) driver_->MemFree(ptr_);
  ptr_ = 0;
  size_ = 0;
}

absl::Status DeviceBuffer::CheckCopy(const void* data, int64_t bytes) const {
  if (bytes < 0 || bytes > size_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a copy of ", bytes, " bytes does not fit a device buffer of ", size_, " bytes"));
  }
  if (data == nullptr && bytes > 0) {
    return absl::InvalidArgumentError("a copy to or from a device buffer got a null host pointer");
  }
  return absl::OkStatus();
}

absl::Status DeviceBuffer::CopyFromHost(const void* data, int64_t bytes) {
  if (absl::Status s = CheckCopy(data, bytes); !s.ok()) return s;
  if (bytes == 0) return absl::OkStatus();
  return CudaCall(driver_->MemcpyHtoD(ptr_, data, static_cast<size_t>(bytes)), "cuMemcpyHtoD",
                  absl::StrCat(bytes, " bytes"));
}

absl::Status DeviceBuffer::CopyToHost(void* data, int64_t bytes) const {
  if (absl::Status s = CheckCopy(data, bytes); !s.ok()) return s;
  if (bytes == 0) return absl::OkStatus();
  return CudaCall(driver_->MemcpyDtoH(data, ptr_, static_cast<size_t>(bytes)), "cuMemcpyDtoH",
                  absl::StrCat(bytes, " bytes"));
}

absl::Status DeviceBuffer::Memset8(uint8_t value) {
  if (size_ == 0) return absl::OkStatus();
  return CudaCall(driver_->MemsetD8(ptr_, value, static_cast<size_t>(size_)), "cuMemsetD8",
                  absl::StrCat(size_, " bytes"));
}

absl::Status DeviceBuffer::Memset32(uint32_t value) {
  if (size_ % 4 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot fill a device buffer of ", size_, " bytes with 4-byte words"));
  }
  if (size_ == 0) return absl::OkStatus();
  return CudaCall(driver_->MemsetD32(ptr_, value, static_cast<size_t>(size_ / 4)), "cuMemsetD32",
                  absl::StrCat(size_, " bytes"));
}

}  // namespace kiln
