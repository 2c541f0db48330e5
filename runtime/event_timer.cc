#include "runtime/event_timer.h"

#include <algorithm>
#include <vector>

#include <cuda.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace kiln {

absl::StatusOr<EventTimer> EventTimer::Create() {
  absl::StatusOr<const CudaDriver*> loaded = CudaDriver::Get();
  if (!loaded.ok()) return loaded.status();
  const CudaDriver& driver = **loaded;
  CUevent start = nullptr;
  CUevent stop = nullptr;
  if (absl::Status s =
          CudaCall(driver.EventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate", "timer start");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CudaCall(driver.EventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate", "timer stop");
      !s.ok()) {
    driver.EventDestroy(start);
    return s;
  }
  return EventTimer(&driver, start, stop);
}

EventTimer::EventTimer(EventTimer&& other) noexcept
    : driver_(other.driver_),
      start_(std::exchange(other.start_, nullptr)),
      stop_(std::exchange(other.stop_, nullptr)),
      started_(std::exchange(other.started_, false)),
      stopped_(std::exchange(other.stopped_, false)) {}

EventTimer& EventTimer::operator=(EventTimer&& other) noexcept {
  if (this != &other) {
    Destroy();
    driver_ = other.driver_;
    start_ = std::exchange(other.start_, nullptr);
    stop_ = std::exchange(other.stop_, nullptr);
    started_ = std::exchange(other.started_, false);
    stopped_ = std::exchange(other.stopped_, false);
  }
  return *this;
}

EventTimer::~EventTimer() { Destroy(); }

void EventTimer::Destroy() {
  if (start_ != nullptr) driver_->EventDestroy(start_);
  if (stop_ != nullptr) driver_->EventDestroy(stop_);
  start_ = nullptr;
  stop_ = nullptr;
}

absl::Status EventTimer::Start(CUstream stream) {
  stopped_ = false;
  absl::Status s = CudaCall(driver_->EventRecord(start_, stream), "cuEventRecord", "timer start");
  started_ = s.ok();
  return s;
}

absl::Status EventTimer::Stop(CUstream stream) {
  if (!started_) return absl::FailedPreconditionError("EventTimer::Stop called before Start");
  absl::Status s = CudaCall(driver_->EventRecord(stop_, stream), "cuEventRecord", "timer stop");
  stopped_ = s.ok();
  return s;
}

absl::StatusOr<float> EventTimer::ElapsedMs() const {
  if (!started_ || !stopped_) {
    return absl::FailedPreconditionError("EventTimer::ElapsedMs needs Start and Stop first");
  }
  if (absl::Status s =
          CudaCall(driver_->EventSynchronize(stop_), "cuEventSynchronize", "timer stop");
      !s.ok()) {
    return s;
  }
  float ms = 0.0f;
  if (absl::Status s =
          CudaCall(driver_->EventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime", "timer");
      !s.ok()) {
    return s;
  }
  return ms;
}

absl::StatusOr<double> MedianMicros(const std::function<absl::Status()>& work, int samples, int warmup,
                                    CUstream stream) {
  for (int i = 0; i < warmup; ++i) {
    if (absl::Status s = work(); !s.ok()) return s;
  }
  std::vector<EventTimer> timers;
  for (int i = 0; i < samples; ++i) {
    absl::StatusOr<EventTimer> timer = EventTimer::Create();
    if (!timer.ok()) return timer.status();
    timers.push_back(*std::move(timer));
  }
  for (EventTimer& timer : timers) {
    if (absl::Status s = timer.Start(stream); !s.ok()) return s;
    if (absl::Status s = work(); !s.ok()) return s;
    if (absl::Status s = timer.Stop(stream); !s.ok()) return s;
  }
  std::vector<double> micros;
  for (const EventTimer& timer : timers) {
    absl::StatusOr<float> ms = timer.ElapsedMs();
    if (!ms.ok()) return ms.status();
    micros.push_back(*ms * 1000.0);
  }
  if (micros.empty()) return absl::InvalidArgumentError("MedianMicros needs at least one sample");
  std::nth_element(micros.begin(), micros.begin() + micros.size() / 2, micros.end());
  return micros[micros.size() / 2];
}

}  // namespace kiln
