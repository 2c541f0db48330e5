// A CUDA stream owned by one object; move-only.
//
//   absl::StatusOr<Stream> stream = Stream::Create();
//   kernel.Launch(config, args, stream->get());
//   stream->Synchronize();
//
// By default the stream is blocking (CU_STREAM_DEFAULT): it orders with the
// legacy default stream, which DeviceBuffer's synchronous copies use, so a
// copy back to the host waits for kernels launched here. A stream that only
// captures CUDA graphs is independent of it (CU_STREAM_NON_BLOCKING): work
// other threads queue on the legacy stream meanwhile must not join the capture.
#ifndef KILN_RUNTIME_STREAM_H_
#define KILN_RUNTIME_STREAM_H_

#include <cuda.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace kiln {

class Stream {
 public:
  enum class Ordering { kWithLegacyStream, kIndependent };
  // A new stream on the context current on the calling thread.
  static absl::StatusOr<Stream> Create(Ordering ordering = Ordering::kWithLegacyStream);

  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();

  CUstream get() const { return stream_; }
  absl::Status Synchronize() const;

 private:
  Stream(const CudaDriver* driver, CUstream stream) : driver_(driver), stream_(stream) {}
  void Destroy();

  const CudaDriver* driver_;
  CUstream stream_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_STREAM_H_
