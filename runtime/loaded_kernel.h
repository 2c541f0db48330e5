// One kernel of a cubin, loaded into the current context and ready to launch.
//
//   absl::StatusOr<std::unique_ptr<LoadedKernel>> k =
//       LoadedKernel::Load(compiled->cubin, "k0_pointwise");
//   LaunchConfig config{.grid = {132, 1, 1}, .block = {256, 1, 1}};
//   void* args[] = {&x_ptr, &y_ptr, &n};
//   absl::Status s = (*k)->Launch(config, args, stream.get());
//
// Errors name the kernel: "cuLaunchKernel failed for kernel k0_pointwise: ...".
// The Device (its context) must outlive the kernel.
#ifndef KILN_RUNTIME_LOADED_KERNEL_H_
#define KILN_RUNTIME_LOADED_KERNEL_H_

#include <cuda.h>

#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/cuda_driver.h"

namespace kiln {

struct LaunchConfig {
  unsigned grid[3] = {1, 1, 1};   // blocks
  unsigned block[3] = {1, 1, 1};  // threads per block
  unsigned shared_bytes = 0;      // dynamic shared memory per block
  // Blocks per thread-block cluster along x (sm_90+); grid[0] must be a
  // multiple of it. 1 launches without clusters.
  unsigned cluster_x = 1;
};

// Shared memory, static and dynamic together, a block may use without its
// kernel opting in.
inline constexpr unsigned kDefaultSharedLimit = 48 * 1024;

// OK when `config` is launchable in shape: no empty grid or block dimension,
// cluster_x >= 1 and dividing grid[0]. Otherwise InvalidArgumentError naming
// `kernel`. (Limits of the device are left to the driver.)
absl::Status ValidateLaunchConfig(const LaunchConfig& config, absl::string_view kernel);

class LoadedKernel {
 public:
  // Loads `cubin` (an ELF image; anything else is InvalidArgumentError) into
  // the context current on the calling thread and finds `function`, the
  // kernel's extern "C" name.
  static absl::StatusOr<std::unique_ptr<LoadedKernel>> Load(absl::string_view cubin,
                                                            const std::string& function);
  // As Load, from PTX text (beginning with its ".version" directive), which
  // the driver compiles for the device.
  static absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadPtx(const std::string& ptx, const std::string& function);

  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;
  ~LoadedKernel();  // unloads the module

  // Enqueues the kernel on `stream` (nullptr: the legacy default stream).
  // `args` points to one pointer per kernel parameter, as for cuLaunchKernel.
  // More dynamic shared bytes than fit beside the kernel's static ones in
  // kDefaultSharedLimit first raise the kernel's limit; cluster_x > 1 launches through cuLaunchKernelEx and is
  // FailedPreconditionError on a driver without it.
  absl::Status Launch(const LaunchConfig& config, void** args, CUstream stream = nullptr) const;

  // How many clusters of `config` (cluster_x > 1, else InvalidArgumentError)
  // the GPU holds at once. A cluster's blocks share one GPC, so this can be
  // fewer than the SMs' block slots divided by the cluster size; a grid of
  // more clusters runs in waves. FailedPreconditionError on a driver
  // without cuOccupancyMaxActiveClusters.
  absl::StatusOr<int> ResidentClusters(const LaunchConfig& config) const;

  // Registers per thread, for reports.
  absl::StatusOr<int> RegisterCount() const;
  // Local memory per thread: what ptxas spilled, since generated kernels keep
  // no arrays in local memory.
  absl::StatusOr<int> LocalBytesPerThread() const;

  const std::string& name() const { return name_; }
  CUfunction function() const { return function_; }

 private:
  // Loads `image`, a cubin or NUL-terminated PTX, and finds `function`.
  static absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadImage(const void* image, const std::string& function);
  absl::StatusOr<int> Attribute(CUfunction_attribute attribute) const;
  // Raises the function's dynamic shared memory limit to `shared_bytes`
  // where it is lower.
  absl::Status AllowSharedBytes(unsigned shared_bytes) const;

  LoadedKernel(const CudaDriver* driver, std::string name, CUmodule module, CUfunction function,
               unsigned dynamic_shared_limit)
      : driver_(driver),
        name_(std::move(name)),
        module_(module),
        function_(function),
        shared_limit_(dynamic_shared_limit) {}

  const CudaDriver* driver_;
  std::string name_;
  CUmodule module_;
  CUfunction function_;
  // The dynamic shared memory limit already set on the function (at first,
  // what its static shared memory leaves of kDefaultSharedLimit), so
  // repeated launches skip cuFuncSetAttribute.
  mutable std::atomic<unsigned> shared_limit_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_LOADED_KERNEL_H_
