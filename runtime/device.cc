#include "runtime/device.h"

#include <cuda.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "fusion/device_limits.h"
#include "runtime/cluster_residency.h"
#include "runtime/cuda_driver.h"

namespace kiln {
namespace {

// cuInit is idempotent and cheap after the first call; a machine with a driver
// but no GPU answers CUDA_ERROR_NO_DEVICE, which callers treat as "none".
absl::StatusOr<int> InitAndCount(const CudaDriver& driver) {
  CUresult r = driver.Init(0);
  if (r == CUDA_ERROR_NO_DEVICE) return 0;
  if (absl::Status s = CudaCall(r, "cuInit", ""); !s.ok()) return s;
  int count = 0;
  if (absl::Status s = CudaCall(driver.DeviceGetCount(&count), "cuDeviceGetCount", ""); !s.ok()) {
    return s;
  }
  return count;
}

}  // namespace

std::string DeviceInfo::Arch() const { return CompileArch(sm_major, sm_minor); }

absl::StatusOr<int> DeviceCount() {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) return driver.status();
  return InitAndCount(**driver);
}

absl::StatusOr<std::unique_ptr<Device>> Device::Open(int ordinal) {
  absl::StatusOr<const CudaDriver*> loaded = CudaDriver::Get();
  if (!loaded.ok()) return loaded.status();
  const CudaDriver& driver = **loaded;
  absl::StatusOr<int> count = InitAndCount(driver);
  if (!count.ok()) return count.status();
  if (*count == 0) {
    return absl::FailedPreconditionError("no CUDA device: the driver found no GPU");
  }
  if (ordinal < 0 || ordinal >= *count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CUDA device ", ordinal, " does not exist: the driver sees ", *count, " device(s)"));
  }
  const std::string where = absl::StrCat("device ", ordinal);
  CUdevice handle = 0;
  if (absl::Status s = CudaCall(driver.DeviceGet(&handle, ordinal), "cuDeviceGet", where);
      !s.ok()) {
    return s;
  }
  CUcontext context = nullptr;
  if (absl::Status s = CudaCall(driver.DevicePrimaryCtxRetain(&context, handle),
                                "cuDevicePrimaryCtxRetain", where);
      !s.ok()) {
    return s;
  }
  // From here the destructor releases the context on every path.
  std::unique_ptr<Device> device(new Device(&driver, ordinal, handle, context));

  char name[256] = {};
  if (absl::Status s =
          CudaCall(driver.DeviceGetName(name, sizeof(name) - 1, handle), "cuDeviceGetName", where);
      !s.ok()) {
    return s;
  }
  DeviceInfo& info = device->info_;
  info.name = name;
  absl::Status status;
  auto attribute = [&](CUdevice_attribute a, const char* what) {
    int value = 0;
    if (status.ok()) {
      status = CudaCall(driver.DeviceGetAttribute(&value, a, handle), "cuDeviceGetAttribute",
                        absl::StrCat(where, " (", what, ")"));
    }
    return value;
  };
  info.sm_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability");
  info.sm_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability");
  info.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
  info.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size");
  info.shared_memory_per_block_optin =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "shared memory");
  info.shared_memory_per_sm =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "shared memory");
  info.registers_per_sm =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "registers");
  info.max_threads_per_sm =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "threads");
  info.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads");
  info.supports_clusters = attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "clusters") != 0;
  if (!status.ok()) return status;
  if (absl::Status s = device->Activate(); !s.ok()) return s;
  if (info.supports_clusters) {
    absl::StatusOr<ClusterResidency> residency = MeasureClusterResidency(info.shared_memory_per_sm);
    // Planning then divides the block slots by the cluster size instead, and
    // each cluster kernel's run note still counts its own.
    if (residency.ok()) info.cluster_residency = *residency;
  }
  return device;
}

Device::~Device() { driver_->DevicePrimaryCtxRelease(device_); }

absl::Status Device::Activate() const {
  return CudaCall(driver_->CtxSetCurrent(context_), "cuCtxSetCurrent",
                  absl::StrCat("device ", ordinal_));
}

absl::Status Device::Synchronize() const {
  if (absl::Status s = Activate(); !s.ok()) return s;
  return CudaCall(driver_->CtxSynchronize(), "cuCtxSynchronize", absl::StrCat("device ", ordinal_));
}

}  // namespace kiln
