#include "runtime/device_random.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/random_kernel.h"
#include "graph/int_math.h"
#include "runtime/loaded_kernel.h"

namespace kiln {
namespace {

constexpr unsigned kThreads = 256;
// Resident blocks per SM the grid-stride fill asks for: enough to hide the
// stores' latency, few enough that every block draws many elements.
constexpr int64_t kBlocksPerSm = 8;

}  // namespace

absl::Status FillRandom(const Device& device, KernelCache& cache, DType dtype, int64_t count, uint64_t seed,
                        DeviceBuffer& out) {
  if (count < 0 || count > out.size() / DTypeSize(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot draw ", count, " ", DTypeName(dtype), " elements into ",
                                                   out.size(), " bytes"));
  }
  if (count == 0) return absl::OkStatus();
  if (absl::Status s = device.Activate(); !s.ok()) return s;
  const RandomKernels kernels = RandomFillKernels(dtype);
  absl::StatusOr<std::shared_ptr<const CompiledKernel>> compiled =
      cache.GetOrCompile({kernels.source, kernels.fill}, device.info().Arch());
  if (!compiled.ok()) return compiled.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> fill = LoadedKernel::Load((*compiled)->cubin, kernels.fill);
  if (!fill.ok()) return fill.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> finish = LoadedKernel::Load((*compiled)->cubin, kernels.finish);
  if (!finish.ok()) return finish.status();
  absl::StatusOr<DeviceBuffer> nonzero = DeviceBuffer::Allocate(sizeof(unsigned));
  if (!nonzero.ok()) return nonzero.status();
  if (absl::Status s = nonzero->Memset32(0); !s.ok()) return s;

  CUdeviceptr out_ptr = out.ptr();
  CUdeviceptr flag_ptr = nonzero->ptr();
  unsigned long long elements = static_cast<unsigned long long>(count);
  unsigned long long seed_arg = seed;
  const int64_t blocks = std::min(CeilDiv(count, int64_t{kThreads}), kBlocksPerSm * device.info().sm_count);
  void* fill_args[] = {&out_ptr, &elements, &seed_arg, &flag_ptr};
  if (absl::Status s = (*fill)->Launch({.grid = {static_cast<unsigned>(blocks), 1, 1}, .block = {kThreads, 1, 1}},
                                       fill_args);
      !s.ok()) {
    return s;
  }
  void* finish_args[] = {&out_ptr, &flag_ptr};
  if (absl::Status s = (*finish)->Launch({}, finish_args); !s.ok()) return s;
  return device.Synchronize();
}

}  // namespace kiln
