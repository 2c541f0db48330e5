// Compiles kernel source to a cubin for one real GPU architecture with NVRTC.
//
//   absl::StatusOr<std::string> cubin = CompileToCubin(src, "sm_90");
//   // *cubin is an ELF image for cuModuleLoadData
//
// All NVRTC options come from NvrtcOptions(), and the kernel cache hashes
// them, so a change of options is a change of cache key.
#ifndef KILN_RUNTIME_NVRTC_COMPILER_H_
#define KILN_RUNTIME_NVRTC_COMPILER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/kernel_source.h"

namespace kiln {

// The options for `arch` ("sm_90"): a real architecture, so NVRTC can emit a
// cubin, and exactly the default IEEE math (no fast math, no flush to zero):
// kiln must not change the numbers the reference interpreter checks.
std::vector<std::string> NvrtcOptions(absl::string_view arch);

// The linked NVRTC's version, "13.0".
std::string NvrtcVersion();

// OK when `arch` names a real architecture, "sm_" followed by digits and an
// optional "a" or "f" suffix ("sm_90", "sm_90a", "sm_100f"); otherwise
// InvalidArgumentError naming it.
absl::Status ValidateArch(absl::string_view arch);

// The cubin for `src`. A compile error is InvalidArgumentError carrying the
// kernel name, the NVRTC log and the numbered source:
//   NVRTC could not compile kernel k0 for sm_90:
//   k0.cu(3): error: identifier "y" is undefined
//   ...
//   source:
//      1 | extern "C" __global__ void k0(float* x) {
absl::StatusOr<std::string> CompileToCubin(const KernelSource& src, absl::string_view arch);

// A compiled kernel with what NVRTC said about it: on success the log holds
// ptxas's remarks, such as its "Potential Performance Loss" notes, which
// tests use to hold generated kernels to the code ptxas can schedule well.
struct CompiledCubin {
  std::string cubin;
  std::string log;  // empty when NVRTC had nothing to say
};
// kResourceUsage adds ptxas's verbose report to the log: each entry
// function's registers, stack frame, spills and static shared memory
// (runtime/kernel_resources.h reads it). It changes the log, not the cubin.
enum class PtxasLog { kRemarks, kResourceUsage };
absl::StatusOr<CompiledCubin> Compile(const KernelSource& src, absl::string_view arch,
                                      PtxasLog ptxas_log = PtxasLog::kRemarks);

}  // namespace kiln

#endif  // KILN_RUNTIME_NVRTC_COMPILER_H_
