#include "runtime/event_timer.h"

#include <cmath>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "runtime/device_buffer.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using runtime_testing::GpuTest;

using EventTimerGpuTest = GpuTest;

TEST_F(EventTimerGpuTest, TimerNeedsStartAndStop) {
  absl::StatusOr<EventTimer> timer = EventTimer::Create();
  ASSERT_TRUE(timer.ok()) << timer.status();
  absl::StatusOr<float> ms = timer->ElapsedMs();
  EXPECT_EQ(ms.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ms.status().message(), "EventTimer::ElapsedMs needs Start and Stop first");
  absl::Status stop = timer->Stop(nullptr);
  EXPECT_EQ(stop.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(stop.message(), "EventTimer::Stop called before Start");
}

TEST_F(EventTimerGpuTest, TimerMeasuresWorkOnTheDefaultStream) {
  absl::StatusOr<EventTimer> timer = EventTimer::Create();
  ASSERT_TRUE(timer.ok()) << timer.status();
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(64 << 20);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  // Two repetitions: a timer is reusable.
  for (int rep = 0; rep < 2; ++rep) {
    ASSERT_TRUE(timer->Start(nullptr).ok());
    // Memset runs on the legacy default stream, the one timed here.
    ASSERT_TRUE(buffer->Memset32(0).ok());
    ASSERT_TRUE(timer->Stop(nullptr).ok());
    absl::StatusOr<float> ms = timer->ElapsedMs();
    ASSERT_TRUE(ms.ok()) << ms.status();
    // Only sanity: timing itself is never a pass/fail criterion.
    EXPECT_TRUE(std::isfinite(*ms));
    EXPECT_GE(*ms, 0.0f);
  }
}

}  // namespace
}  // namespace kiln
