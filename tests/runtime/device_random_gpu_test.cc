#include "runtime/device_random.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "codegen/random_kernel.h"
#include "gtest/gtest.h"
#include "graph/host_tensor.h"
#include "graph/tensor_bytes.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using runtime_testing::GpuTest;

using DeviceRandomGpuTest = GpuTest;

constexpr DType kDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kI32, DType::kBool};

// The bytes the device drew for `count` elements, or a failure.
std::string DrawOnDevice(const Device& device, KernelCache& cache, DType dtype, int64_t count, uint64_t seed) {
  const int64_t bytes = count * DTypeSize(dtype);
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(bytes);
  EXPECT_TRUE(buffer.ok()) << buffer.status();
  if (!buffer.ok()) return "";
  EXPECT_TRUE(buffer->Memset8(0xa5).ok());
  absl::Status s = FillRandom(device, cache, dtype, count, seed, *buffer);
  EXPECT_TRUE(s.ok()) << s;
  std::string out(static_cast<size_t>(bytes), '\0');
  EXPECT_TRUE(buffer->CopyToHost(out.data(), bytes).ok());
  return out;
}

TEST(DeviceRandomTest, KernelsCompileForEveryDType) {
  for (DType dtype : kDTypes) {
    const RandomKernels kernels = RandomFillKernels(dtype);
    absl::StatusOr<CompiledCubin> compiled = Compile({kernels.source, kernels.fill}, "sm_90a");
    ASSERT_TRUE(compiled.ok()) << DTypeName(dtype) << ": " << compiled.status();
    EXPECT_NE(compiled->cubin.find(kernels.fill), std::string::npos);
    EXPECT_NE(compiled->cubin.find(kernels.finish), std::string::npos);
  }
}

TEST_F(DeviceRandomGpuTest, DrawsTheHostsValuesBitForBit) {
  KernelCache cache({.use_disk = false});
  // Past one grid's worth of threads (8 blocks of 256 on each SM), so the
  // grid-stride loop goes round more than once, and odd counts.
  const int64_t many = int64_t{8} * 256 * device_->info().sm_count * 3 + 7;
  for (DType dtype : kDTypes) {
    for (int64_t count : {int64_t{1}, int64_t{3}, int64_t{4099}, many}) {
      for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0x9e3779b97f4a7c15}}) {
        const std::string want = EncodeTensor(RandomTensor(dtype, {count}, seed));
        EXPECT_EQ(DrawOnDevice(*device_, cache, dtype, count, seed), want)
            << DTypeName(dtype) << " count " << count << " seed " << seed;
      }
    }
  }
}

TEST_F(DeviceRandomGpuTest, AnAllZeroDrawGetsAOneFirstLikeTheHost) {
  // A seed whose one-element i32 draw is zero: element 0 of a longer tensor
  // with that seed shows the raw draw, which the host keeps there.
  uint64_t seed = 0;
  while (RandomTensor(DType::kI32, {2}, seed).data[0] != 0.0) ++seed;
  ASSERT_EQ(RandomTensor(DType::kI32, {1}, seed).data[0], 1.0);
  KernelCache cache({.use_disk = false});
  EXPECT_EQ(DrawOnDevice(*device_, cache, DType::kI32, 1, seed), EncodeTensor(RandomTensor(DType::kI32, {1}, seed)));
}

TEST_F(DeviceRandomGpuTest, TooSmallABufferIsRefused) {
  KernelCache cache({.use_disk = false});
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(6);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  absl::Status s = FillRandom(*device_, cache, DType::kF32, 2, 1, *buffer);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "cannot draw 2 f32 elements into 6 bytes");
}

}  // namespace
}  // namespace kiln
