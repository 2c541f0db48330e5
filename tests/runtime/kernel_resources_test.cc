// Reading ptxas's report: the figures of the entry function asked for, a
// report that lacks them, real NVRTC compiles (no GPU needed), and
// fusion/occupancy.h held to NVIDIA's own occupancy calculator.
#include "runtime/kernel_resources.h"

#include <cuda_occupancy.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "fusion/device_limits.h"
#include "fusion/occupancy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

// As NVRTC 13.0 logs two entry functions and a callee with --ptxas-options=-v.
constexpr absl::string_view kLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'f0_row' for 'sm_90a'\n"
    "ptxas info    : Function properties for f0_row\n"
    "ptxas         .     48 bytes stack frame, 102 bytes spill stores, 136 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 48 bytes cumulative stack size, 2048 bytes smem\n"
    "ptxas info    : Function properties for helper\n"
    "ptxas         .     16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'f0_row2' for 'sm_90a'\n"
    "ptxas info    : Function properties for f0_row2\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 1 barriers\n"
    "ptxas info    : Compile time = 18.847 ms\n";

TEST(ParsePtxasResourcesTest, ReadsTheEntryFunctionAskedFor) {
  absl::StatusOr<KernelResources> row = ParsePtxasResources(kLog, "f0_row");
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(*row, (KernelResources{.registers = 32,
                                   .stack_bytes = 48,
                                   .spill_store_bytes = 102,
                                   .spill_load_bytes = 136,
                                   .static_shared_bytes = 2048}));
  EXPECT_TRUE(row->Spills());

  absl::StatusOr<KernelResources> row2 = ParsePtxasResources(kLog, "f0_row2");
  ASSERT_TRUE(row2.ok()) << row2.status();
  EXPECT_EQ(*row2, (KernelResources{.registers = 40}));
  EXPECT_FALSE(row2->Spills());
}

TEST(ParsePtxasResourcesTest, AReportWithoutTheKernelOrItsRegistersIsAnError) {
  absl::StatusOr<KernelResources> missing = ParsePtxasResources(kLog, "f0_ro");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("f0_ro"));

  absl::StatusOr<KernelResources> cut = ParsePtxasResources(
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\nptxas info    : Function properties for k\n", "k");
  EXPECT_FALSE(cut.ok());
  EXPECT_THAT(cut.status().message(), HasSubstr("names no register count"));
  EXPECT_FALSE(ParsePtxasResources("", "k").ok());
}

// A thread keeps 64 loaded values live at once; a launch bound of two
// blocks of 1024 threads leaves it 32 registers, so ptxas spills.
std::string SpillingSource(int min_blocks) {
  return absl::StrCat(
      "extern \"C\" __global__ void __launch_bounds__(1024, ", min_blocks,
      ") k(const float* x, float* y) {\n"
      "  __shared__ float s[256];\n"
      "  float a[64];\n"
      "  for (int i = 0; i < 64; ++i) a[i] = x[threadIdx.x * 64 + i];\n"
      "  float t = 0;\n"
      "  for (int i = 0; i < 64; ++i) t += a[i] * a[63 - i] * x[i];\n"
      "  s[threadIdx.x % 256] = t;\n"
      "  __syncthreads();\n"
      "  y[threadIdx.x] = s[(threadIdx.x + 1) % 256];\n"
      "}\n");
}

TEST(CompiledResourcesTest, NvrtcReportsRegistersSpillsAndSharedMemory) {
  absl::StatusOr<KernelResources> tight = CompiledResources({SpillingSource(2), "k"}, "sm_90a");
  ASSERT_TRUE(tight.ok()) << tight.status();
  EXPECT_LE(tight->registers, 32);
  EXPECT_TRUE(tight->Spills());
  EXPECT_GT(tight->stack_bytes, 0);
  EXPECT_EQ(tight->static_shared_bytes, 1024);

  absl::StatusOr<KernelResources> loose = CompiledResources({SpillingSource(1), "k"}, "sm_90a");
  ASSERT_TRUE(loose.ok()) << loose.status();
  EXPECT_GT(loose->registers, 32);
  EXPECT_FALSE(loose->Spills());
}

TEST(CompiledResourcesTest, ACompileErrorNamesTheKernel) {
  absl::StatusOr<KernelResources> r = CompiledResources({"extern \"C\" __global__ void k0() { y; }", "k0"}, "sm_90a");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("kernel k0"));
}

// NVIDIA's calculator (cuda_occupancy.h, header-only) for an H200.
int CalculatorBlocks(int threads, int registers, size_t shared_bytes) {
  cudaOccDeviceProp prop;
  prop.computeMajor = 9;
  prop.computeMinor = 0;
  prop.maxThreadsPerBlock = 1024;
  prop.maxThreadsPerMultiprocessor = 2048;
  prop.regsPerBlock = 65536;
  prop.regsPerMultiprocessor = 65536;
  prop.warpSize = 32;
  prop.sharedMemPerBlock = 48 * 1024;
  prop.sharedMemPerMultiprocessor = 228 * 1024;
  prop.numSms = 132;
  prop.sharedMemPerBlockOptin = 227 * 1024;
  prop.reservedSharedMemPerBlock = 1024;
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = 1024;
  attributes.numRegs = registers;
  attributes.sharedSizeBytes = 0;
  attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attributes.maxDynamicSharedSizeBytes = 227 * 1024;
  cudaOccDeviceState state;
  cudaOccResult result;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attributes, &state, threads, shared_bytes) !=
      CUDA_OCC_SUCCESS) {
    return -1;
  }
  return result.activeBlocksPerMultiprocessor;
}

TEST(OccupancyCalculatorTest, BlocksPerSmAgreesWithNvidiasCalculator) {
  for (int threads = 32; threads <= 1024; threads += 32) {
    for (int registers = 16; registers <= 255; registers += 7) {
      for (int64_t shared : {int64_t{0}, int64_t{4096}, int64_t{34816}, int64_t{57 * 1024 + 1}, int64_t{100000},
                             int64_t{227 * 1024}}) {
        const int expected = CalculatorBlocks(threads, registers, static_cast<size_t>(shared));
        ASSERT_GE(expected, 0) << threads << " threads, " << registers << " registers, " << shared << " B";
        EXPECT_EQ(BlocksPerSm({.threads = threads, .registers_per_thread = registers, .shared_bytes = shared},
                              DeviceLimits{})
                      .blocks,
                  expected)
            << threads << " threads, " << registers << " registers, " << shared << " B";
      }
    }
  }
}

}  // namespace
}  // namespace kiln
