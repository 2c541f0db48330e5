#include "runtime/event_series.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kiln {

absl::StatusOr<EventSeries> EventSeries::Create(int count) {
  absl::StatusOr<const CudaDriver*> loaded = CudaDriver::Get();
  if (!loaded.ok()) return loaded.status();
  const CudaDriver& driver = **loaded;
  std::vector<CUevent> events;
  for (int i = 0; i < count; ++i) {
    CUevent event = nullptr;
    if (absl::Status s = CudaCall(driver.EventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate", "event series");
        !s.ok()) {
      for (CUevent e : events) driver.EventDestroy(e);
      return s;
    }
    events.push_back(event);
  }
  return EventSeries(&driver, std::move(events));
}

EventSeries::EventSeries(EventSeries&& other) noexcept
    : driver_(other.driver_), events_(std::move(other.events_)), recorded_(std::move(other.recorded_)) {
  other.events_.clear();
}

EventSeries::~EventSeries() {
  for (CUevent event : events_) driver_->EventDestroy(event);
}

absl::Status EventSeries::Record(int i, CUstream stream) {
  if (i < 0 || i >= static_cast<int>(events_.size())) {
    return absl::OutOfRangeError(absl::StrCat("event ", i, " of a series of ", events_.size()));
  }
  absl::Status s = CudaCall(driver_->EventRecord(events_[i], stream), "cuEventRecord", "event series");
  recorded_[i] = s.ok();
  return s;
}

absl::StatusOr<std::vector<double>> EventSeries::MicrosSinceFirst() const {
  for (size_t i = 0; i < recorded_.size(); ++i) {
    if (!recorded_[i]) return absl::FailedPreconditionError(absl::StrCat("event ", i, " was never recorded"));
  }
  std::vector<double> us;
  if (events_.empty()) return us;
  if (absl::Status s = CudaCall(driver_->EventSynchronize(events_.back()), "cuEventSynchronize", "event series");
      !s.ok()) {
    return s;
  }
  for (CUevent event : events_) {
    float ms = 0;
    if (absl::Status s = CudaCall(driver_->EventElapsedTime(&ms, events_.front(), event), "cuEventElapsedTime",
                                  "event series");
        !s.ok()) {
      return s;
    }
    us.push_back(ms * 1000.0);
  }
  return us;
}

}  // namespace kiln
