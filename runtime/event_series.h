// A row of CUDA events recorded at points of one stream, for a timeline:
// the time of each point relative to the first, on the device's clock.
//
//   absl::StatusOr<EventSeries> points = EventSeries::Create(3);
//   points->Record(0, stream); launch(a); points->Record(1, stream); launch(b); points->Record(2, stream);
//   absl::StatusOr<std::vector<double>> us = points->MicrosSinceFirst();   // {0, end of a, end of b}
#ifndef KILN_RUNTIME_EVENT_SERIES_H_
#define KILN_RUNTIME_EVENT_SERIES_H_

#include <cuda.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace kiln {

class EventSeries {
 public:
  // `count` events on the context current on the calling thread.
  static absl::StatusOr<EventSeries> Create(int count);

  EventSeries(EventSeries&& other) noexcept;
  EventSeries& operator=(EventSeries&& other) = delete;
  EventSeries(const EventSeries&) = delete;
  EventSeries& operator=(const EventSeries&) = delete;
  ~EventSeries();

  absl::Status Record(int i, CUstream stream);
  // Waits for the last event; every event must have been recorded.
  absl::StatusOr<std::vector<double>> MicrosSinceFirst() const;

 private:
  EventSeries(const CudaDriver* driver, std::vector<CUevent> events) : driver_(driver), events_(std::move(events)) {}

  const CudaDriver* driver_;
  std::vector<CUevent> events_;
  std::vector<bool> recorded_ = std::vector<bool>(events_.size(), false);
};

}  // namespace kiln

#endif  // KILN_RUNTIME_EVENT_SERIES_H_
