#include "runtime/device_buffer.h"

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using runtime_testing::GpuTest;

using DeviceBufferGpuTest = GpuTest;

TEST(DeviceBufferTest, NegativeSizeIsInvalidArgument) {
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(-4);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(buffer.status().message(), "cannot allocate a device buffer of -4 bytes");
}

TEST(DeviceBufferTest, DefaultBufferIsEmpty) {
  DeviceBuffer buffer;
  EXPECT_EQ(buffer.ptr(), 0u);
  EXPECT_EQ(buffer.size(), 0);
}

TEST_F(DeviceBufferGpuTest, BufferRoundTripsHostData) {
  std::vector<int32_t> host(4099);
  std::iota(host.begin(), host.end(), -2000);
  const int64_t bytes = static_cast<int64_t>(host.size() * 4);
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::FromHost(host.data(), bytes);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  EXPECT_NE(buffer->ptr(), 0u);
  EXPECT_EQ(buffer->size(), bytes);
  std::vector<int32_t> back(host.size(), 7);
  ASSERT_TRUE(buffer->CopyToHost(back.data(), bytes).ok());
  EXPECT_EQ(back, host);
}

TEST_F(DeviceBufferGpuTest, MemsetFillsEveryWord) {
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(1024);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  ASSERT_TRUE(buffer->Memset32(0x7fc00000u).ok());
  std::vector<uint32_t> words(256);
  ASSERT_TRUE(buffer->CopyToHost(words.data(), 1024).ok());
  for (uint32_t w : words) ASSERT_EQ(w, 0x7fc00000u);
  ASSERT_TRUE(buffer->Memset8(0xab).ok());
  ASSERT_TRUE(buffer->CopyToHost(words.data(), 1024).ok());
  for (uint32_t w : words) ASSERT_EQ(w, 0xababababu);
}

TEST_F(DeviceBufferGpuTest, OversizedCopiesAndOddWordFillsAreRefused) {
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(6);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  std::vector<char> host(8);
  absl::Status s = buffer->CopyFromHost(host.data(), 8);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "a copy of 8 bytes does not fit a device buffer of 6 bytes");
  EXPECT_EQ(buffer->CopyToHost(host.data(), 8).code(), absl::StatusCode::kInvalidArgument);
  s = buffer->Memset32(0);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "cannot fill a device buffer of 6 bytes with 4-byte words");
}

TEST_F(DeviceBufferGpuTest, ZeroBytesIsAnEmptyBuffer) {
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(0);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  EXPECT_EQ(buffer->ptr(), 0u);
  EXPECT_TRUE(buffer->Memset32(1).ok());
  EXPECT_TRUE(buffer->CopyToHost(nullptr, 0).ok());
}

TEST_F(DeviceBufferGpuTest, MovingTransfersOwnership) {
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(64);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  const CUdeviceptr ptr = buffer->ptr();
  DeviceBuffer moved = *std::move(buffer);
  EXPECT_EQ(moved.ptr(), ptr);
  EXPECT_EQ(moved.size(), 64);
  DeviceBuffer assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.ptr(), ptr);
  EXPECT_EQ(moved.ptr(), 0u);
  EXPECT_EQ(moved.size(), 0);
}

}  // namespace
}  // namespace kiln
