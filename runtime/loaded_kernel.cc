#include "runtime/loaded_kernel.h"

#include <cuda.h>

#include <algorithm>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/cuda_driver.h"

namespace kiln {

absl::Status ValidateLaunchConfig(const LaunchConfig& config, absl::string_view kernel) {
  const unsigned* g = config.grid;
  const unsigned* b = config.block;
  if (g[0] == 0 || g[1] == 0 || g[2] == 0 || b[0] == 0 || b[1] == 0 || b[2] == 0) {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", kernel, ": launch of grid (", g[0],
                                                   ",", g[1], ",", g[2], ") blocks (", b[0], ",",
                                                   b[1], ",", b[2], ") has an empty dimension"));
  }
  if (config.cluster_x == 0 || g[0] % config.cluster_x != 0) {
    return absl::InvalidArgumentError(absl::StrCat("kernel ", kernel, ": grid x of ", g[0],
                                                   " blocks is not a multiple of cluster size ",
                                                   config.cluster_x));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadedKernel::Load(absl::string_view cubin,
                                                                 const std::string& function) {
  // cuModuleLoadData would read anything that is not ELF as NUL-terminated PTX.
  if (cubin.substr(0, 4) != absl::string_view("\x7f"
                                              "ELF",
                                              4)) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel ", function, ": the image to load is not a cubin (no ELF header)"));
  }
  return LoadImage(cubin.data(), function);
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadedKernel::LoadPtx(const std::string& ptx,
                                                                    const std::string& function) {
  if (!absl::StartsWith(absl::StripLeadingAsciiWhitespace(ptx), ".version")) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel ", function, ": the PTX to load does not begin with a .version directive"));
  }
  return LoadImage(ptx.c_str(), function);
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadedKernel::LoadImage(const void* image,
                                                                      const std::string& function) {
  absl::StatusOr<const CudaDriver*> loaded = CudaDriver::Get();
  if (!loaded.ok()) return loaded.status();
  const CudaDriver& driver = **loaded;
  const std::string where = absl::StrCat("kernel ", function);
  CUmodule module = nullptr;
  if (absl::Status s =
          CudaCall(driver.ModuleLoadData(&module, image), "cuModuleLoadData", where);
      !s.ok()) {
    return s;
  }
  CUfunction handle = nullptr;
  if (absl::Status s = CudaCall(driver.ModuleGetFunction(&handle, module, function.c_str()),
                                "cuModuleGetFunction", where);
      !s.ok()) {
    driver.ModuleUnload(module);
    return s;
  }
  // A block's static shared memory (a split kernel's arrival flag) counts
  // against the limit too: 48 KiB of dynamic memory beside it needs the opt-in.
  int static_bytes = 0;
  if (absl::Status s = CudaCall(driver.FuncGetAttribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, handle),
                                "cuFuncGetAttribute", where);
      !s.ok()) {
    driver.ModuleUnload(module);
    return s;
  }
  const unsigned dynamic_limit =
      kDefaultSharedLimit - std::min(static_cast<unsigned>(static_bytes), kDefaultSharedLimit);
  return std::unique_ptr<LoadedKernel>(new LoadedKernel(&driver, function, module, handle, dynamic_limit));
}

LoadedKernel::~LoadedKernel() { driver_->ModuleUnload(module_); }

namespace {

// The cuLaunchKernelEx form of `config`, its cluster size in `cluster`.
CUlaunchConfig ClusterLaunchConfig(const LaunchConfig& config, CUstream stream, CUlaunchAttribute& cluster) {
  cluster = {};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = config.cluster_x;
  cluster.value.clusterDim.y = 1;
  cluster.value.clusterDim.z = 1;
  CUlaunchConfig launch = {};
  launch.gridDimX = config.grid[0];
  launch.gridDimY = config.grid[1];
  launch.gridDimZ = config.grid[2];
  launch.blockDimX = config.block[0];
  launch.blockDimY = config.block[1];
  launch.blockDimZ = config.block[2];
  launch.sharedMemBytes = config.shared_bytes;
  launch.hStream = stream;
  launch.attrs = &cluster;
  launch.numAttrs = 1;
  return launch;
}

}  // namespace

absl::Status LoadedKernel::AllowSharedBytes(unsigned shared_bytes) const {
  if (shared_bytes <= shared_limit_.load()) return absl::OkStatus();
  const CUresult result =
      driver_->FuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(shared_bytes));
  if (result != CUDA_SUCCESS) return CudaCall(result, "cuFuncSetAttribute", absl::StrCat("kernel ", name_));
  shared_limit_.store(shared_bytes);
  return absl::OkStatus();
}

absl::Status LoadedKernel::Launch(const LaunchConfig& config, void** args, CUstream stream) const {
  if (absl::Status s = ValidateLaunchConfig(config, name_); !s.ok()) return s;
  // Launching is a hot path: the error context is built only on failure.
  auto where = [&] { return absl::StrCat("kernel ", name_); };
  if (absl::Status s = AllowSharedBytes(config.shared_bytes); !s.ok()) return s;
  if (config.cluster_x == 1) {
    const CUresult result = driver_->LaunchKernel(function_, config.grid[0], config.grid[1], config.grid[2],
                                                  config.block[0], config.block[1], config.block[2],
                                                  config.shared_bytes, stream, args, nullptr);
    return result == CUDA_SUCCESS ? absl::OkStatus() : CudaCall(result, "cuLaunchKernel", where());
  }
  if (driver_->LaunchKernelEx == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        where(),
        ": a thread-block cluster launch needs cuLaunchKernelEx, which this CUDA driver "
        "lacks (CUDA 12.0 or newer has it)"));
  }
  CUlaunchAttribute cluster;
  const CUlaunchConfig launch = ClusterLaunchConfig(config, stream, cluster);
  const CUresult result = driver_->LaunchKernelEx(&launch, function_, args, nullptr);
  return result == CUDA_SUCCESS ? absl::OkStatus() : CudaCall(result, "cuLaunchKernelEx", where());
}

absl::StatusOr<int> LoadedKernel::ResidentClusters(const LaunchConfig& config) const {
  if (absl::Status s = ValidateLaunchConfig(config, name_); !s.ok()) return s;
  const std::string where = absl::StrCat("kernel ", name_);
  if (config.cluster_x < 2) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": resident clusters asked of a launch without clusters"));
  }
  if (driver_->OccupancyMaxActiveClusters == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": counting resident clusters needs cuOccupancyMaxActiveClusters, which this CUDA "
                            "driver lacks (CUDA 12.0 or newer has it)"));
  }
  // The count depends on the block's shared memory, so the limit a launch
  // would raise is raised first.
  if (absl::Status s = AllowSharedBytes(config.shared_bytes); !s.ok()) return s;
  CUlaunchAttribute cluster;
  const CUlaunchConfig launch = ClusterLaunchConfig(config, nullptr, cluster);
  int clusters = 0;
  if (absl::Status s = CudaCall(driver_->OccupancyMaxActiveClusters(&clusters, function_, &launch),
                                "cuOccupancyMaxActiveClusters", where);
      !s.ok()) {
    return s;
  }
  return clusters;
}

absl::StatusOr<int> LoadedKernel::Attribute(CUfunction_attribute attribute) const {
  int value = 0;
  if (absl::Status s = CudaCall(driver_->FuncGetAttribute(&value, attribute, function_), "cuFuncGetAttribute",
                                absl::StrCat("kernel ", name_));
      !s.ok()) {
    return s;
  }
  return value;
}

absl::StatusOr<int> LoadedKernel::RegisterCount() const { return Attribute(CU_FUNC_ATTRIBUTE_NUM_REGS); }

absl::StatusOr<int> LoadedKernel::LocalBytesPerThread() const {
  return Attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
}

}  // namespace kiln
