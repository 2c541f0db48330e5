// One CUDA device and its primary context, plus the limits planning and code
// generation need.
//
//   absl::StatusOr<std::unique_ptr<Device>> device = Device::Open(0);
//   if (!device.ok()) return device.status();
//   (*device)->info().Arch()        // "sm_90a" on an H100/H200
//   (*device)->info().sm_count      // 132 on an H200
//
// Open() makes the context current on the calling thread; another thread that
// uses the device calls Activate() first. Every buffer, kernel, stream and
// event made on the device must be destroyed before the Device.
#ifndef KILN_RUNTIME_DEVICE_H_
#define KILN_RUNTIME_DEVICE_H_

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fusion/device_limits.h"
#include "runtime/cuda_driver.h"

namespace kiln {

struct DeviceInfo {
  std::string name;  // "NVIDIA H200"
  int sm_major = 0;
  int sm_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t shared_memory_per_block_optin = 0;  // the most a kernel may opt in to
  int64_t shared_memory_per_sm = 0;
  int registers_per_sm = 0;  // 32-bit registers
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  bool supports_clusters = false;  // thread-block clusters (sm_90+)
  // Counted by the driver at Open (MeasureClusterResidency); all 0 without
  // clusters or where the driver cannot count them.
  ClusterResidency cluster_residency;

  // The architecture NVRTC compiles for: "sm_90a" (CompileArch).
  std::string Arch() const;
};

class Device {
 public:
  // cuInit, retains the primary context of device `ordinal`, reads its
  // DeviceInfo and makes the context current. Without a driver or device the
  // error says so ("no CUDA driver: ...", "no CUDA device: ...").
  static absl::StatusOr<std::unique_ptr<Device>> Open(int ordinal = 0);

  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device();  // releases the primary context

  // Makes this device's context current on the calling thread.
  absl::Status Activate() const;
  // Waits for all work on the device.
  absl::Status Synchronize() const;

  int ordinal() const { return ordinal_; }
  const DeviceInfo& info() const { return info_; }
  CUcontext context() const { return context_; }
  const CudaDriver& driver() const { return *driver_; }

 private:
  Device(const CudaDriver* driver, int ordinal, CUdevice device, CUcontext context)
      : driver_(driver), ordinal_(ordinal), device_(device), context_(context) {}

  const CudaDriver* driver_;
  int ordinal_;
  CUdevice device_;
  CUcontext context_;
  DeviceInfo info_;
};

// The number of CUDA devices: 0 when the driver finds none, an error when
// there is no driver.
absl::StatusOr<int> DeviceCount();

}  // namespace kiln

#endif  // KILN_RUNTIME_DEVICE_H_
