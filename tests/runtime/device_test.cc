#include "runtime/device.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "fusion/device_limits.h"
#include "gtest/gtest.h"
#include "runtime/cuda_driver.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using runtime_testing::GpuTest;
using ::testing::MatchesRegex;

using DeviceGpuTest = GpuTest;

TEST(DeviceInfoTest, ArchIsTheRealArchitecture) {
  EXPECT_EQ((DeviceInfo{.sm_major = 9, .sm_minor = 0}).Arch(), "sm_90a");
  EXPECT_EQ((DeviceInfo{.sm_major = 12, .sm_minor = 1}).Arch(), "sm_121");
}

TEST(DeviceTest, OpenWithoutADriverReportsTheDriverError) {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (driver.ok()) GTEST_SKIP() << "a CUDA driver is present";
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status(), driver.status());
  EXPECT_EQ(DeviceCount().status(), driver.status());
}

TEST(DeviceTest, OpenFailsCleanlyOrDescribesTheDevice) {
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
  if (!device.ok()) {
    EXPECT_NE(device.status().code(), absl::StatusCode::kOk);
    EXPECT_FALSE(device.status().message().empty());
    return;
  }
  const DeviceInfo& info = (*device)->info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_THAT(info.Arch(), MatchesRegex("sm_[0-9]+a?"));
}

TEST_F(DeviceGpuTest, InfoHoldsPlausibleLimits) {
  const DeviceInfo& info = device_->info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.sm_major, 5);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 0);
  EXPECT_GE(info.shared_memory_per_block_optin, 48 * 1024);
  EXPECT_GE(info.shared_memory_per_sm, info.shared_memory_per_block_optin);
  EXPECT_GT(info.registers_per_sm, 0);
  EXPECT_GE(info.max_threads_per_sm, info.max_threads_per_block);
  EXPECT_GT(info.max_threads_per_block, 0);
  EXPECT_EQ(info.supports_clusters, info.sm_major >= 9);
  EXPECT_EQ(info.Arch(), CompileArch(info.sm_major, info.sm_minor));
  EXPECT_EQ(device_->ordinal(), 0);
  EXPECT_TRUE(device_->Activate().ok());
  EXPECT_TRUE(device_->Synchronize().ok());
}

TEST_F(DeviceGpuTest, CountIncludesTheOpenDevice) {
  absl::StatusOr<int> count = DeviceCount();
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_GE(*count, 1);
}

TEST_F(DeviceGpuTest, OrdinalOutOfRangeIsInvalidArgument) {
  absl::StatusOr<int> count = DeviceCount();
  ASSERT_TRUE(count.ok()) << count.status();
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open(*count);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(device.status().message(), "CUDA device " + std::to_string(*count) +
                                           " does not exist: the driver sees " +
                                           std::to_string(*count) + " device(s)");
  EXPECT_EQ(Device::Open(-1).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln
