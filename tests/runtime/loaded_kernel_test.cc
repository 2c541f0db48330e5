#include "runtime/loaded_kernel.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/device_buffer.h"
#include "runtime/kernel_cache.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/stream.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using runtime_testing::BigSharedSource;
using runtime_testing::ClusterIdsSource;
using runtime_testing::GpuTest;
using runtime_testing::SaxpySource;
using ::testing::HasSubstr;

TEST(ValidateLaunchConfigTest, AcceptsAPlainLaunchAndWholeClusters) {
  EXPECT_TRUE(ValidateLaunchConfig(LaunchConfig{}, "k").ok());
  EXPECT_TRUE(
      ValidateLaunchConfig({.grid = {8, 2, 1}, .block = {128, 1, 1}, .cluster_x = 4}, "k").ok());
}

TEST(ValidateLaunchConfigTest, RefusesEmptyDimensions) {
  absl::Status s = ValidateLaunchConfig({.grid = {4, 0, 1}, .block = {256, 1, 1}}, "k0_pointwise");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "kernel k0_pointwise: launch of grid (4,0,1) blocks (256,1,1) has an empty dimension");
  EXPECT_FALSE(ValidateLaunchConfig({.block = {0, 1, 1}}, "k").ok());
}

TEST(ValidateLaunchConfigTest, RefusesPartialClusters) {
  absl::Status s = ValidateLaunchConfig({.grid = {7, 1, 1}, .cluster_x = 2}, "k1_rows");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "kernel k1_rows: grid x of 7 blocks is not a multiple of cluster size 2");
  EXPECT_EQ(ValidateLaunchConfig({.cluster_x = 0}, "k").message(),
            "kernel k: grid x of 1 blocks is not a multiple of cluster size 0");
}

TEST(LoadedKernelTest, RefusesAnImageThatIsNotACubin) {
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
      LoadedKernel::Load(".version 8.0\n.target sm_90\n", "saxpy");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(kernel.status().message(),
            "kernel saxpy: the image to load is not a cubin (no ELF header)");
}

TEST(LoadedKernelTest, RefusesPtxWithoutAVersion) {
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = LoadedKernel::LoadPtx("\x7f" "ELF", "probe");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(kernel.status().message(), "kernel probe: the PTX to load does not begin with a .version directive");
}

class LoadedKernelGpuTest : public GpuTest {
 protected:
  std::unique_ptr<LoadedKernel> LoadOrDie(const KernelSource& src, const std::string& name) {
    absl::StatusOr<std::shared_ptr<const CompiledKernel>> compiled =
        cache_.GetOrCompile(src, device_->info().Arch());
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    if (!compiled.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
        LoadedKernel::Load((*compiled)->cubin, name);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    return kernel.ok() ? *std::move(kernel) : nullptr;
  }

  KernelCache cache_{{.use_disk = false}};
};

TEST_F(LoadedKernelGpuTest, SaxpyMatchesTheCpu) {
  std::unique_ptr<LoadedKernel> kernel = LoadOrDie(SaxpySource(), "saxpy");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->name(), "saxpy");

  // Not a multiple of the block size, so the bounds check matters.
  const int n = 1000003;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  float a = uniform(rng);
  std::vector<float> x(n);
  std::vector<float> y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = uniform(rng);
    y[i] = uniform(rng);
  }
  const int64_t bytes = int64_t{n} * 4;
  absl::StatusOr<DeviceBuffer> dx = DeviceBuffer::FromHost(x.data(), bytes);
  absl::StatusOr<DeviceBuffer> dy = DeviceBuffer::FromHost(y.data(), bytes);
  absl::StatusOr<DeviceBuffer> dout = DeviceBuffer::Allocate(bytes);
  ASSERT_TRUE(dx.ok() && dy.ok() && dout.ok());
  // NaN everywhere first: an element the kernel misses cannot pass.
  ASSERT_TRUE(dout->Memset32(0x7fc00000u).ok());

  absl::StatusOr<Stream> stream = Stream::Create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  CUdeviceptr px = dx->ptr();
  CUdeviceptr py = dy->ptr();
  CUdeviceptr pout = dout->ptr();
  int count = n;
  void* args[] = {&count, &a, &px, &py, &pout};
  const unsigned block = 256;
  const LaunchConfig config{.grid = {(n + block - 1) / block, 1, 1}, .block = {block, 1, 1}};
  absl::Status launched = kernel->Launch(config, args, stream->get());
  ASSERT_TRUE(launched.ok()) << launched;
  ASSERT_TRUE(stream->Synchronize().ok());

  std::vector<float> out(n);
  ASSERT_TRUE(dout->CopyToHost(out.data(), bytes).ok());
  double err2 = 0.0;
  double ref2 = 0.0;
  for (int i = 0; i < n; ++i) {
    ASSERT_FALSE(std::isnan(out[i])) << "element " << i << " was not written";
    const double ref = double{a} * x[i] + y[i];
    err2 += (out[i] - ref) * (out[i] - ref);
    ref2 += ref * ref;
  }
  EXPECT_LT(std::sqrt(err2 / ref2), 1e-6);

  absl::StatusOr<int> registers = kernel->RegisterCount();
  ASSERT_TRUE(registers.ok()) << registers.status();
  EXPECT_GT(*registers, 0);
  EXPECT_LE(*registers, 255);
}

TEST_F(LoadedKernelGpuTest, ClusterLaunchGroupsBlocksInPairs) {
  if (!device_->info().supports_clusters) GTEST_SKIP() << "device has no thread-block clusters";
  std::unique_ptr<LoadedKernel> kernel = LoadOrDie(ClusterIdsSource(), "cluster_ids");
  ASSERT_NE(kernel, nullptr);
  constexpr unsigned kBlocks = 8;
  absl::StatusOr<DeviceBuffer> out = DeviceBuffer::Allocate(kBlocks * 4);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(out->Memset32(0xffffffffu).ok());
  CUdeviceptr pout = out->ptr();
  void* args[] = {&pout};
  absl::Status launched =
      kernel->Launch({.grid = {kBlocks, 1, 1}, .block = {32, 1, 1}, .cluster_x = 2}, args);
  ASSERT_TRUE(launched.ok()) << launched;
  ASSERT_TRUE(device_->Synchronize().ok());
  std::vector<uint32_t> got(kBlocks);
  ASSERT_TRUE(out->CopyToHost(got.data(), kBlocks * 4).ok());
  for (unsigned b = 0; b < kBlocks; ++b) {
    // Block b is rank b % 2 of a cluster of 2.
    EXPECT_EQ(got[b], 100 * b + 10 * (b % 2) + 2) << "block " << b;
  }
}

TEST_F(LoadedKernelGpuTest, ResidentClustersFitTheBlockSlots) {
  if (!device_->info().supports_clusters) GTEST_SKIP() << "device has no thread-block clusters";
  std::unique_ptr<LoadedKernel> kernel = LoadOrDie(ClusterIdsSource(), "cluster_ids");
  ASSERT_NE(kernel, nullptr);
  const DeviceInfo& info = device_->info();
  // Blocks of 1024 threads: an SM holds max_threads_per_sm / 1024 of them.
  const int slots = info.sm_count * (info.max_threads_per_sm / 1024);
  for (unsigned cluster : {2u, 8u}) {
    absl::StatusOr<int> resident =
        kernel->ResidentClusters({.grid = {cluster * 64, 1, 1}, .block = {1024, 1, 1}, .cluster_x = cluster});
    ASSERT_TRUE(resident.ok()) << resident.status();
    EXPECT_GT(*resident, 0) << "clusters of " << cluster;
    EXPECT_LE(*resident, slots / static_cast<int>(cluster)) << "clusters of " << cluster;
  }
  absl::StatusOr<int> plain = kernel->ResidentClusters({.grid = {64, 1, 1}, .block = {1024, 1, 1}});
  EXPECT_EQ(plain.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(plain.status().message(), HasSubstr("cluster_ids"));
}

// The device's table, counted at Open: no more clusters than the slots
// allow, and never fewer for more blocks an SM or smaller clusters.
TEST_F(LoadedKernelGpuTest, TheDeviceCountsItsResidentClusters) {
  const DeviceInfo& info = device_->info();
  if (!info.supports_clusters) GTEST_SKIP() << "device has no thread-block clusters";
  const ClusterResidency& r = info.cluster_residency;
  for (int cluster : {2, 4, 8}) {
    for (int blocks = 1; blocks <= ClusterResidency::kMaxBlocksPerSm; ++blocks) {
      SCOPED_TRACE(absl::StrCat(cluster, " blocks a cluster, ", blocks, " an SM"));
      EXPECT_GT(r.At(cluster, blocks), 0);
      EXPECT_LE(r.At(cluster, blocks), info.sm_count * blocks / cluster);
      if (blocks > 1) EXPECT_GE(r.At(cluster, blocks), r.At(cluster, blocks - 1));
      if (cluster > 2) EXPECT_GE(r.At(cluster / 2, blocks), r.At(cluster, blocks));
    }
  }
  // Two blocks an SM hold a cluster of 2 on every SM.
  EXPECT_EQ(r.At(2, 2), info.sm_count);
}

TEST_F(LoadedKernelGpuTest, LargeDynamicSharedMemoryIsOptedInto) {
  constexpr unsigned kShared = 96 * 1024;
  if (device_->info().shared_memory_per_block_optin < kShared) {
    GTEST_SKIP() << "device allows less than 96 KiB of shared memory per block";
  }
  std::unique_ptr<LoadedKernel> kernel = LoadOrDie(BigSharedSource(), "big_shared");
  ASSERT_NE(kernel, nullptr);
  constexpr unsigned kBlocks = 4;
  constexpr unsigned kThreads = 256;
  absl::StatusOr<DeviceBuffer> out = DeviceBuffer::Allocate(kBlocks * kThreads * 4);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(out->Memset32(0xffffffffu).ok());
  unsigned words = kShared / 4;
  CUdeviceptr pout = out->ptr();
  void* args[] = {&words, &pout};
  const LaunchConfig config{
      .grid = {kBlocks, 1, 1}, .block = {kThreads, 1, 1}, .shared_bytes = kShared};
  // Twice: the second launch reuses the limit set by the first.
  for (int launch = 0; launch < 2; ++launch) {
    absl::Status launched = kernel->Launch(config, args);
    ASSERT_TRUE(launched.ok()) << launched;
  }
  ASSERT_TRUE(device_->Synchronize().ok());
  std::vector<uint32_t> got(kBlocks * kThreads);
  ASSERT_TRUE(out->CopyToHost(got.data(), got.size() * 4).ok());
  for (unsigned i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], words - 1 - i % kThreads) << "element " << i;
  }
}

TEST_F(LoadedKernelGpuTest, LaunchErrorNamesTheKernel) {
  std::unique_ptr<LoadedKernel> kernel = LoadOrDie(SaxpySource(), "saxpy");
  ASSERT_NE(kernel, nullptr);
  int n = 0;
  float a = 1.0f;
  CUdeviceptr none = 0;
  void* args[] = {&n, &a, &none, &none, &none};
  // No GPU runs 4096 threads in one block.
  absl::Status s = kernel->Launch({.block = {4096, 1, 1}}, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(s.message()),
              ::testing::StartsWith("cuLaunchKernel failed for kernel saxpy: CUDA_ERROR_"));
  // A refused launch leaves the context usable.
  EXPECT_TRUE(device_->Synchronize().ok());
}

TEST_F(LoadedKernelGpuTest, UnknownFunctionNameIsReported) {
  absl::StatusOr<std::shared_ptr<const CompiledKernel>> compiled =
      cache_.GetOrCompile(SaxpySource(), device_->info().Arch());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
      LoadedKernel::Load((*compiled)->cubin, "no_such_kernel");
  ASSERT_FALSE(kernel.ok());
  EXPECT_THAT(std::string(kernel.status().message()),
              ::testing::StartsWith(
                  "cuModuleGetFunction failed for kernel no_such_kernel: CUDA_ERROR_NOT_FOUND"));
}

}  // namespace
}  // namespace kiln
