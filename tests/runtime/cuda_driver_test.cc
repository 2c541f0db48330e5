#include "runtime/cuda_driver.h"

#include <cuda.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/device.h"

namespace kiln {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(CudaDriverTest, GetEitherLoadsOrExplainsWhy) {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) {
    EXPECT_EQ(driver.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(driver.status().message()),
                StartsWith("no CUDA driver: libcuda.so.1 could not be loaded ("));
    EXPECT_THAT(std::string(driver.status().message()), EndsWith(")"));
    // Asking again gives the same answer, without retrying the load.
    EXPECT_EQ(CudaDriver::Get().status(), driver.status());
    return;
  }
  EXPECT_EQ((*driver)->library(), "libcuda.so.1");
  EXPECT_EQ(*CudaDriver::Get(), *driver);
  // With a driver, opening a device works or fails cleanly (a driver without
  // a GPU); either way nothing crashes.
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
  if (!device.ok()) {
    EXPECT_FALSE(device.status().message().empty());
  }
}

TEST(CudaDriverTest, MissingLibraryIsFailedPrecondition) {
  absl::StatusOr<std::unique_ptr<CudaDriver>> driver =
      CudaDriver::Load("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(driver.status().message(),
            "no CUDA driver: /nonexistent/libcuda.so.1 could not be loaded "
            "(/nonexistent/libcuda.so.1: cannot open shared object file: No such file or "
            "directory)");
}

TEST(CudaDriverTest, LibraryWithoutTheEntryPointsIsRefused) {
  // Any shared library that is not a CUDA driver: NVRTC is always there.
  absl::StatusOr<std::unique_ptr<CudaDriver>> driver = CudaDriver::Load("libnvrtc.so.13");
  if (!driver.ok() && driver.status().message().find("could not be loaded") != std::string::npos) {
    GTEST_SKIP() << "libnvrtc.so.13 not loadable here: " << driver.status().message();
  }
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(driver.status().message()),
              StartsWith("CUDA driver libnvrtc.so.13 lacks cuInit, cuDriverGetVersion, "));
  EXPECT_THAT(std::string(driver.status().message()), EndsWith("; the driver is too old for kiln"));
}

// The toolkit's stub libcuda exports every driver entry point and answers
// CUDA_ERROR_STUB_LIBRARY: it proves, without a GPU, that every symbol kiln
// binds exists under the name kiln asks for.
std::string StubDriverPath() {
  const char* roots[] = {std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH"), "/usr/local/cuda"};
  for (const char* root : roots) {
    if (root == nullptr) continue;
    for (const char* lib :
         {"/lib64/stubs/libcuda.so", "/targets/x86_64-linux/lib/stubs/libcuda.so"}) {
      const std::string path = std::string(root) + lib;
      if (std::filesystem::exists(path)) return path;
    }
  }
  return "";
}

TEST(CudaDriverTest, BindsEveryEntryPointOfTheStubDriver) {
  const std::string path = StubDriverPath();
  if (path.empty()) GTEST_SKIP() << "no CUDA stub driver found";
  absl::StatusOr<std::unique_ptr<CudaDriver>> driver = CudaDriver::Load(path);
  ASSERT_TRUE(driver.ok()) << driver.status();
  const CudaDriver& d = **driver;
  EXPECT_EQ(d.library(), path);
  const void* entry_points[] = {
      reinterpret_cast<const void*>(d.Init),
      reinterpret_cast<const void*>(d.DriverGetVersion),
      reinterpret_cast<const void*>(d.DeviceGetCount),
      reinterpret_cast<const void*>(d.DeviceGet),
      reinterpret_cast<const void*>(d.DeviceGetName),
      reinterpret_cast<const void*>(d.DeviceGetAttribute),
      reinterpret_cast<const void*>(d.DevicePrimaryCtxRetain),
      reinterpret_cast<const void*>(d.DevicePrimaryCtxRelease),
      reinterpret_cast<const void*>(d.CtxSetCurrent),
      reinterpret_cast<const void*>(d.CtxSynchronize),
      reinterpret_cast<const void*>(d.ModuleLoadData),
      reinterpret_cast<const void*>(d.ModuleUnload),
      reinterpret_cast<const void*>(d.ModuleGetFunction),
      reinterpret_cast<const void*>(d.FuncSetAttribute),
      reinterpret_cast<const void*>(d.FuncGetAttribute),
      reinterpret_cast<const void*>(d.LaunchKernel),
      reinterpret_cast<const void*>(d.LaunchKernelEx),
      reinterpret_cast<const void*>(d.MemAlloc),
      reinterpret_cast<const void*>(d.MemFree),
      reinterpret_cast<const void*>(d.MemGetInfo),
      reinterpret_cast<const void*>(d.MemcpyHtoD),
      reinterpret_cast<const void*>(d.MemcpyDtoH),
      reinterpret_cast<const void*>(d.MemsetD8),
      reinterpret_cast<const void*>(d.MemsetD32),
      reinterpret_cast<const void*>(d.StreamCreate),
      reinterpret_cast<const void*>(d.StreamDestroy),
      reinterpret_cast<const void*>(d.StreamSynchronize),
      reinterpret_cast<const void*>(d.EventCreate),
      reinterpret_cast<const void*>(d.EventDestroy),
      reinterpret_cast<const void*>(d.EventRecord),
      reinterpret_cast<const void*>(d.EventSynchronize),
      reinterpret_cast<const void*>(d.EventElapsedTime),
      reinterpret_cast<const void*>(d.GetErrorName),
      reinterpret_cast<const void*>(d.GetErrorString),
  };
  for (const void* entry : entry_points) EXPECT_NE(entry, nullptr);
  // The CUDA graph entry points bind to the symbols cuda.h names
  // (cuStreamBeginCapture_v2, cuGraphInstantiateWithFlags, ...).
  EXPECT_TRUE(d.HasGraphs());
  EXPECT_EQ(d.Init(0), CUDA_ERROR_STUB_LIBRARY);
}

TEST(CudaCallTest, SuccessIsOk) { EXPECT_TRUE(CudaCall(CUDA_SUCCESS, "cuInit", "").ok()); }

TEST(CudaCallTest, ErrorNamesTheCallTheContextAndTheError) {
  const absl::Status s =
      CudaCall(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel", "kernel k0_pointwise");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  // The driver names errors; without one only the number is known.
  const std::string error =
      CudaDriver::Get().ok() ? "CUDA_ERROR_INVALID_VALUE (invalid argument)" : "CUDA error 1";
  EXPECT_EQ(s.message(), "cuLaunchKernel failed for kernel k0_pointwise: " + error);
  EXPECT_EQ(CudaErrorText(CUDA_ERROR_INVALID_VALUE), error);
}

TEST(CudaCallTest, EmptyContextIsLeftOut) {
  const absl::Status s = CudaCall(CUDA_ERROR_INVALID_VALUE, "cuInit", "");
  EXPECT_THAT(std::string(s.message()), StartsWith("cuInit failed: "));
}

TEST(CudaCallTest, OutOfMemoryIsResourceExhausted) {
  const absl::Status s = CudaCall(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc", "1024 bytes");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(s.message()), StartsWith("cuMemAlloc failed for 1024 bytes: "));
}

}  // namespace
}  // namespace kiln
