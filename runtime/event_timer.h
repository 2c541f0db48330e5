// Times a region of work on a stream with a pair of CUDA events: device time,
// free of host launch overhead.
//
//   absl::StatusOr<EventTimer> timer = EventTimer::Create();
//   timer->Start(stream);
//   ... launches on `stream` ...
//   timer->Stop(stream);
//   absl::StatusOr<float> ms = timer->ElapsedMs();   // waits for the stop event
//
// A timer can be started again after ElapsedMs to time the next repetition.
#ifndef KILN_RUNTIME_EVENT_TIMER_H_
#define KILN_RUNTIME_EVENT_TIMER_H_

#include <cuda.h>

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace kiln {

class EventTimer {
 public:
  // Two events on the context current on the calling thread.
  static absl::StatusOr<EventTimer> Create();

  EventTimer(EventTimer&& other) noexcept;
  EventTimer& operator=(EventTimer&& other) noexcept;
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer();

  absl::Status Start(CUstream stream);
  absl::Status Stop(CUstream stream);
  // Milliseconds between Start and Stop; FailedPreconditionError unless both
  // were recorded, Start first.
  absl::StatusOr<float> ElapsedMs() const;

 private:
  EventTimer(const CudaDriver* driver, CUevent start, CUevent stop)
      : driver_(driver), start_(start), stop_(stop) {}
  void Destroy();

  const CudaDriver* driver_;
  CUevent start_;
  CUevent stop_;
  bool started_ = false;
  bool stopped_ = false;
};

// The median device time, in microseconds, of `work` (which enqueues on
// `stream`) over `samples` repetitions after `warmup` untimed ones. All
// repetitions are queued back to back before any is read, so each start event
// fires as the previous work ends and host launch latency stays out.
absl::StatusOr<double> MedianMicros(const std::function<absl::Status()>& work, int samples, int warmup,
                                    CUstream stream);

}  // namespace kiln

#endif  // KILN_RUNTIME_EVENT_TIMER_H_
