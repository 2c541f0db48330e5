#include "runtime/tuning_key.h"

#include <cstdint>

#include "codegen/kernel_codegen.h"
#include "runtime/cache_entry.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

// What each kind's keys start with.
absl::string_view KeyDomain(TuningKind kind) {
  switch (kind) {
    case TuningKind::kMatmulConfig:
      return "kiln matmul tuning";
    case TuningKind::kLaunchBound:
      return "kiln launch bound tuning";
    case TuningKind::kRowClusters:
      return "kiln row cluster tuning";
  }
  return "";
}

}  // namespace

Hash128 TuningKey(TuningKind kind, absl::string_view heuristic_source, const DeviceInfo& device,
                  absl::string_view arch) {
  StableHasher h;
  h.Add(KeyDomain(kind));
  h.Add(uint64_t{kCacheEntryFormatVersion});
  h.Add(heuristic_source);
  h.Add(device.name);
  h.Add(uint64_t(device.sm_count));
  h.Add(arch);
  h.Add(NvrtcVersion());
  return h.Finish();
}

absl::StatusOr<Hash128> KernelTuningKey(TuningKind kind, const Graph& graph, const Kernel& kernel,
                                        const DeviceLimits& limits, const DeviceInfo& device) {
  Kernel keyed = kernel;
  keyed.name = "kiln_tuning_key";
  absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, keyed, limits);
  if (!generated.ok()) return generated.status();
  return TuningKey(kind, generated->Source(), device, limits.Arch());
}

}  // namespace kiln
