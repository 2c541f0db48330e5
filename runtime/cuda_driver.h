// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"): kiln
// must start, plan and compile on machines without a GPU or a driver, so
// libcuda is never linked and <cuda.h> is used for its types only.
//
//   absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
//   if (!driver.ok()) return driver.status();  // "no CUDA driver: ..."
//   int version = 0;
//   absl::Status s = CudaCall((*driver)->DriverGetVersion(&version),
//                             "cuDriverGetVersion", "");
//
// Each member has the exact signature of the cuda.h function it is named
// after (`MemAlloc` is cuMemAlloc, which cuda.h maps to cuMemAlloc_v2), and is
// bound to the versioned symbol cuda.h maps that name to, the ABI a program
// linked against this header would call.
#ifndef KILN_RUNTIME_CUDA_DRIVER_H_
#define KILN_RUNTIME_CUDA_DRIVER_H_

#include <cuda.h>

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln {

class CudaDriver {
 public:
  // The process-wide driver, loaded from libcuda.so.1 on first use (thread-safe,
  // once). Without a driver: FailedPreconditionError("no CUDA driver:
  // libcuda.so.1 could not be loaded (<dlerror>)"), on every call.
  static absl::StatusOr<const CudaDriver*> Get();

  // Loads a driver from `library` (a file name or path for dlopen). Get() uses
  // it for libcuda.so.1; tests use it on the toolkit's stub library. The
  // library is closed when the result is destroyed.
  static absl::StatusOr<std::unique_ptr<CudaDriver>> Load(const std::string& library);

  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;
  ~CudaDriver();

  const std::string& library() const { return library_; }

  decltype(&::cuInit) Init = nullptr;
  decltype(&::cuDriverGetVersion) DriverGetVersion = nullptr;
  decltype(&::cuDeviceGetCount) DeviceGetCount = nullptr;
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDeviceGetName) DeviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) DevicePrimaryCtxRelease = nullptr;
  decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
  decltype(&::cuCtxSynchronize) CtxSynchronize = nullptr;
  decltype(&::cuModuleLoadData) ModuleLoadData = nullptr;
  decltype(&::cuModuleUnload) ModuleUnload = nullptr;
  decltype(&::cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&::cuFuncSetAttribute) FuncSetAttribute = nullptr;
  decltype(&::cuFuncGetAttribute) FuncGetAttribute = nullptr;
  decltype(&::cuLaunchKernel) LaunchKernel = nullptr;
  // Null when the driver predates CUDA 12.0; only cluster launches need it.
  decltype(&::cuLaunchKernelEx) LaunchKernelEx = nullptr;
  // Null when the driver predates CUDA 12.0; only residency reports need it.
  decltype(&::cuOccupancyMaxActiveClusters) OccupancyMaxActiveClusters = nullptr;
  // Null when the driver predates CUDA 12.0; only TMA descriptors need it.
  decltype(&::cuTensorMapEncodeTiled) TensorMapEncodeTiled = nullptr;
  // CUDA graphs (runtime/graph_replay.h). Null when the driver lacks any of
  // them; the plan is then launched kernel by kernel.
  decltype(&::cuStreamBeginCapture) StreamBeginCapture = nullptr;
  decltype(&::cuStreamEndCapture) StreamEndCapture = nullptr;
  decltype(&::cuGraphInstantiate) GraphInstantiate = nullptr;
  decltype(&::cuGraphExecUpdate) GraphExecUpdate = nullptr;
  decltype(&::cuGraphLaunch) GraphLaunch = nullptr;
  decltype(&::cuGraphExecDestroy) GraphExecDestroy = nullptr;
  decltype(&::cuGraphDestroy) GraphDestroy = nullptr;
  bool HasGraphs() const {
    return StreamBeginCapture && StreamEndCapture && GraphInstantiate && GraphExecUpdate && GraphLaunch &&
           GraphExecDestroy && GraphDestroy;
  }
  decltype(&::cuMemAlloc) MemAlloc = nullptr;
  decltype(&::cuMemFree) MemFree = nullptr;
  decltype(&::cuMemGetInfo) MemGetInfo = nullptr;
  decltype(&::cuMemcpyHtoD) MemcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) MemcpyDtoH = nullptr;
  decltype(&::cuMemcpyDtoDAsync) MemcpyDtoDAsync = nullptr;
  decltype(&::cuMemsetD8) MemsetD8 = nullptr;
  decltype(&::cuMemsetD32) MemsetD32 = nullptr;
  decltype(&::cuStreamCreate) StreamCreate = nullptr;
  decltype(&::cuStreamDestroy) StreamDestroy = nullptr;
  decltype(&::cuStreamSynchronize) StreamSynchronize = nullptr;
  decltype(&::cuEventCreate) EventCreate = nullptr;
  decltype(&::cuEventDestroy) EventDestroy = nullptr;
  decltype(&::cuEventRecord) EventRecord = nullptr;
  decltype(&::cuEventSynchronize) EventSynchronize = nullptr;
  decltype(&::cuEventElapsedTime) EventElapsedTime = nullptr;
  decltype(&::cuGetErrorName) GetErrorName = nullptr;
  decltype(&::cuGetErrorString) GetErrorString = nullptr;

 private:
  CudaDriver(std::string library, void* handle) : library_(std::move(library)), handle_(handle) {}

  std::string library_;
  void* handle_;
};

// OK for CUDA_SUCCESS; otherwise an error naming the call, the context and the
// driver's error:
//   CudaCall(r, "cuLaunchKernel", "kernel k0_pointwise")
//   -> InternalError("cuLaunchKernel failed for kernel k0_pointwise:
//                     CUDA_ERROR_INVALID_VALUE (invalid argument)")
// An empty context drops " for ...". CUDA_ERROR_OUT_OF_MEMORY gives
// ResourceExhaustedError instead, so callers can tell "too big" from "broken".
absl::Status CudaCall(CUresult result, absl::string_view call, absl::string_view context);

// "CUDA_ERROR_INVALID_VALUE (invalid argument)"; "CUDA error 1" when the
// driver cannot name it.
std::string CudaErrorText(CUresult result);

}  // namespace kiln

#endif  // KILN_RUNTIME_CUDA_DRIVER_H_
