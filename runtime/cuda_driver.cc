#include "runtime/cuda_driver.h"

#include <cuda.h>
#include <dlfcn.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

// The symbol cuda.h binds an API name to: KILN_CUDA_SYMBOL(cuMemAlloc) is
// "cuMemAlloc_v2". Stringifying after expansion keeps the symbols in step with
// the header instead of a hand-written list of suffixes.
#define KILN_STRINGIFY_EXPANDED(x) #x
#define KILN_CUDA_SYMBOL(api) KILN_STRINGIFY_EXPANDED(api)

namespace kiln {

absl::StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::Load(const std::string& library) {
  dlerror();
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "no CUDA driver: ", library, " could not be loaded (", why ? why : "unknown reason", ")"));
  }
  std::unique_ptr<CudaDriver> d(new CudaDriver(library, handle));

  std::vector<std::string> missing;
  // Binds `slot` to the first of `names` the library exports.
  auto bind = [&](auto& slot, std::initializer_list<const char*> names) {
    for (const char* name : names) {
      if (void* symbol = dlsym(handle, name)) {
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol);
        return;
      }
    }
    missing.push_back(*names.begin());
  };
  bind(d->Init, {KILN_CUDA_SYMBOL(cuInit)});
  bind(d->DriverGetVersion, {KILN_CUDA_SYMBOL(cuDriverGetVersion)});
  bind(d->DeviceGetCount, {KILN_CUDA_SYMBOL(cuDeviceGetCount)});
  bind(d->DeviceGet, {KILN_CUDA_SYMBOL(cuDeviceGet)});
  bind(d->DeviceGetName, {KILN_CUDA_SYMBOL(cuDeviceGetName)});
  bind(d->DeviceGetAttribute, {KILN_CUDA_SYMBOL(cuDeviceGetAttribute)});
  bind(d->DevicePrimaryCtxRetain, {KILN_CUDA_SYMBOL(cuDevicePrimaryCtxRetain)});
  bind(d->DevicePrimaryCtxRelease, {KILN_CUDA_SYMBOL(cuDevicePrimaryCtxRelease)});
  bind(d->CtxSetCurrent, {KILN_CUDA_SYMBOL(cuCtxSetCurrent)});
  bind(d->CtxSynchronize, {KILN_CUDA_SYMBOL(cuCtxSynchronize)});
  bind(d->ModuleLoadData, {KILN_CUDA_SYMBOL(cuModuleLoadData)});
  bind(d->ModuleUnload, {KILN_CUDA_SYMBOL(cuModuleUnload)});
  bind(d->ModuleGetFunction, {KILN_CUDA_SYMBOL(cuModuleGetFunction)});
  bind(d->FuncSetAttribute, {KILN_CUDA_SYMBOL(cuFuncSetAttribute)});
  bind(d->FuncGetAttribute, {KILN_CUDA_SYMBOL(cuFuncGetAttribute)});
  bind(d->LaunchKernel, {KILN_CUDA_SYMBOL(cuLaunchKernel)});
  bind(d->MemAlloc, {KILN_CUDA_SYMBOL(cuMemAlloc)});
  bind(d->MemFree, {KILN_CUDA_SYMBOL(cuMemFree)});
  bind(d->MemGetInfo, {KILN_CUDA_SYMBOL(cuMemGetInfo)});
  bind(d->MemcpyHtoD, {KILN_CUDA_SYMBOL(cuMemcpyHtoD)});
  bind(d->MemcpyDtoH, {KILN_CUDA_SYMBOL(cuMemcpyDtoH)});
  bind(d->MemcpyDtoDAsync, {KILN_CUDA_SYMBOL(cuMemcpyDtoDAsync)});
  bind(d->MemsetD8, {KILN_CUDA_SYMBOL(cuMemsetD8)});
  bind(d->MemsetD32, {KILN_CUDA_SYMBOL(cuMemsetD32)});
  bind(d->StreamCreate, {KILN_CUDA_SYMBOL(cuStreamCreate)});
  bind(d->StreamDestroy, {KILN_CUDA_SYMBOL(cuStreamDestroy)});
  bind(d->StreamSynchronize, {KILN_CUDA_SYMBOL(cuStreamSynchronize)});
  bind(d->EventCreate, {KILN_CUDA_SYMBOL(cuEventCreate)});
  bind(d->EventDestroy, {KILN_CUDA_SYMBOL(cuEventDestroy)});
  bind(d->EventRecord, {KILN_CUDA_SYMBOL(cuEventRecord)});
  bind(d->EventSynchronize, {KILN_CUDA_SYMBOL(cuEventSynchronize)});
  // cuEventElapsedTime_v2 arrived in CUDA 12.8; the original has the same
  // signature and serves older drivers.
  bind(d->EventElapsedTime, {KILN_CUDA_SYMBOL(cuEventElapsedTime), "cuEventElapsedTime"});
  bind(d->GetErrorName, {KILN_CUDA_SYMBOL(cuGetErrorName)});
  bind(d->GetErrorString, {KILN_CUDA_SYMBOL(cuGetErrorString)});
  if (!missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("CUDA driver ", library, " lacks ",
                                                      absl::StrJoin(missing, ", "),
                                                      "; the driver is too old for kiln"));
  }
  // Optional: only cluster launches need it, and they report its absence.
  if (void* symbol = dlsym(handle, KILN_CUDA_SYMBOL(cuLaunchKernelEx))) {
    d->LaunchKernelEx = reinterpret_cast<decltype(d->LaunchKernelEx)>(symbol);
  }
  // Optional: only the residency of cluster kernels needs it (CUDA 12.0+).
  if (void* symbol = dlsym(handle, KILN_CUDA_SYMBOL(cuOccupancyMaxActiveClusters))) {
    d->OccupancyMaxActiveClusters = reinterpret_cast<decltype(d->OccupancyMaxActiveClusters)>(symbol);
  }
  // Optional: only kernels that read through TMA need it (CUDA 12.0+).
  if (void* symbol = dlsym(handle, KILN_CUDA_SYMBOL(cuTensorMapEncodeTiled))) {
    d->TensorMapEncodeTiled = reinterpret_cast<decltype(d->TensorMapEncodeTiled)>(symbol);
  }
  // Optional, all or none: CUDA graphs for plans of several kernels.
  auto optional = [&](auto& slot, const char* name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
  };
  optional(d->StreamBeginCapture, KILN_CUDA_SYMBOL(cuStreamBeginCapture));
  optional(d->StreamEndCapture, KILN_CUDA_SYMBOL(cuStreamEndCapture));
  optional(d->GraphInstantiate, KILN_CUDA_SYMBOL(cuGraphInstantiate));
  optional(d->GraphExecUpdate, KILN_CUDA_SYMBOL(cuGraphExecUpdate));
  optional(d->GraphLaunch, KILN_CUDA_SYMBOL(cuGraphLaunch));
  optional(d->GraphExecDestroy, KILN_CUDA_SYMBOL(cuGraphExecDestroy));
  optional(d->GraphDestroy, KILN_CUDA_SYMBOL(cuGraphDestroy));
  return d;
}

CudaDriver::~CudaDriver() { dlclose(handle_); }

absl::StatusOr<const CudaDriver*> CudaDriver::Get() {
  // Never destroyed: kernels and buffers may still be released during exit.
  static const auto* const loaded =
      new absl::StatusOr<std::unique_ptr<CudaDriver>>(Load("libcuda.so.1"));
  if (!loaded->ok()) return loaded->status();
  return loaded->value().get();
}

std::string CudaErrorText(CUresult result) {
  absl::StatusOr<const CudaDriver*> driver = CudaDriver::Get();
  const char* name = nullptr;
  const char* text = nullptr;
  if (driver.ok() && (*driver)->GetErrorName(result, &name) == CUDA_SUCCESS &&
      (*driver)->GetErrorString(result, &text) == CUDA_SUCCESS && name != nullptr &&
      text != nullptr) {
    return absl::StrCat(name, " (", text, ")");
  }
  return absl::StrCat("CUDA error ", static_cast<int>(result));
}

absl::Status CudaCall(CUresult result, absl::string_view call, absl::string_view context) {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(call, " failed", context.empty() ? "" : " for ", context, ": ",
                                     CudaErrorText(result));
  if (result == CUDA_ERROR_OUT_OF_MEMORY) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

}  // namespace kiln
