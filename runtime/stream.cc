#include "runtime/stream.h"

#include <cuda.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace kiln {

absl::StatusOr<Stream> Stream::Create(Ordering ordering) {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) return driver.status();
  CUstream stream = nullptr;
  if (absl::Status s =
          CudaCall((*driver)->StreamCreate(&stream, ordering == Ordering::kWithLegacyStream ? CU_STREAM_DEFAULT : CU_STREAM_NON_BLOCKING), "cuStreamCreate", "");
      !s.ok()) {
    return s;
  }
  return Stream(*driver, stream);
}

Stream::Stream(Stream&& other) noexcept
    : driver_(other.driver_), stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Destroy();
    driver_ = other.driver_;
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

Stream::~Stream() { Destroy(); }

void Stream::Destroy() {
  if (stream_ != nullptr) driver_->StreamDestroy(stream_);
  stream_ = nullptr;
}

absl::Status Stream::Synchronize() const {
  return CudaCall(driver_->StreamSynchronize(stream_), "cuStreamSynchronize", "");
}

}  // namespace kiln
