// EventSeries: times of recorded points relative to the first, and its
// refusals (a point never recorded, one past the end). Needs a GPU.
#include "runtime/event_series.h"

#include <cmath>

#include "gtest/gtest.h"
#include "runtime/device_buffer.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using EventSeriesGpuTest = runtime_testing::GpuTest;

TEST_F(EventSeriesGpuTest, PointsAreTimedFromTheFirst) {
  absl::StatusOr<EventSeries> points = EventSeries::Create(3);
  ASSERT_TRUE(points.ok()) << points.status();
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(64 << 20);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  ASSERT_TRUE(points->Record(0, nullptr).ok());
  ASSERT_TRUE(buffer->Memset32(0).ok());  // on the legacy default stream, the one recorded
  ASSERT_TRUE(points->Record(1, nullptr).ok());
  ASSERT_TRUE(buffer->Memset32(1).ok());
  ASSERT_TRUE(points->Record(2, nullptr).ok());
  absl::StatusOr<std::vector<double>> us = points->MicrosSinceFirst();
  ASSERT_TRUE(us.ok()) << us.status();
  ASSERT_EQ(us->size(), 3u);
  EXPECT_EQ((*us)[0], 0.0);
  EXPECT_GE((*us)[1], (*us)[0]);
  EXPECT_GE((*us)[2], (*us)[1]);
  EXPECT_TRUE(std::isfinite((*us)[2]));
}

TEST_F(EventSeriesGpuTest, EveryPointMustBeRecordedOnce) {
  absl::StatusOr<EventSeries> points = EventSeries::Create(2);
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_TRUE(points->Record(0, nullptr).ok());
  absl::StatusOr<std::vector<double>> us = points->MicrosSinceFirst();
  EXPECT_EQ(us.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(us.status().message(), "event 1 was never recorded");
  const absl::Status past = points->Record(2, nullptr);
  EXPECT_EQ(past.code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(past.message(), "event 2 of a series of 2");
}

}  // namespace
}  // namespace kiln
