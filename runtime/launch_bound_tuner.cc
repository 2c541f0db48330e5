#include "runtime/launch_bound_tuner.h"

#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/kernel_timing.h"

namespace kiln {
namespace {

struct Variant {
  TunedKernel kernel;
  int spill_bytes = 0;
  double us = 0;
};

absl::StatusOr<Variant> CompileVariant(GeneratedKernel generated, KernelCache& cache, const std::string& arch) {
  absl::StatusOr<std::shared_ptr<const CompiledKernel>> compiled =
      cache.GetOrCompile({generated.Source(), generated.name}, arch);
  if (!compiled.ok()) return compiled.status();
  absl::StatusOr<std::unique_ptr<LoadedKernel>> loaded = LoadedKernel::Load((*compiled)->cubin, generated.name);
  if (!loaded.ok()) return loaded.status();
  absl::StatusOr<int> spill = (*loaded)->LocalBytesPerThread();
  if (!spill.ok()) return spill.status();
  return Variant{.kernel = {.generated = std::move(generated), .loaded = *std::move(loaded)}, .spill_bytes = *spill};
}

}  // namespace

absl::StatusOr<TunedKernel> LoadWithTunedLaunchBound(const Graph& graph, GeneratedKernel generated, const Device& device,
                                                     KernelCache& cache, const std::string& arch, bool tune) {
  const int asked = generated.min_blocks_per_sm;
  absl::StatusOr<Variant> first = CompileVariant(std::move(generated), cache, arch);
  if (!first.ok()) return first.status();
  if (!tune || asked <= 1 || first->spill_bytes == 0) return std::move(first->kernel);

  std::vector<Variant> variants;
  variants.push_back(*std::move(first));
  for (int blocks = asked - 1; blocks >= 1 && variants.back().spill_bytes > 0; --blocks) {
    absl::StatusOr<Variant> v = CompileVariant(variants.front().kernel.generated.WithMinBlocks(blocks), cache, arch);
    if (!v.ok()) return v.status();
    variants.push_back(*std::move(v));
  }
  absl::StatusOr<std::map<NodeId, DeviceBuffer>> buffers = TuningBuffers(graph, variants.front().kernel.generated, device, cache);
  if (!buffers.ok()) return buffers.status();
  size_t best = 0;
  for (size_t i = 0; i < variants.size(); ++i) {
    absl::StatusOr<double> us =
        TimeKernelAlone(device, variants[i].kernel.generated, *variants[i].kernel.loaded, *buffers);
    if (!us.ok()) return us.status();
    variants[i].us = *us;
    if (*us < variants[best].us) best = i;
  }
  std::string timed;
  for (const Variant& v : variants) {
    absl::StrAppendFormat(&timed, "%s%d %.1f us", timed.empty() ? "" : ", ", v.kernel.generated.min_blocks_per_sm,
                          v.us);
    if (v.spill_bytes > 0) absl::StrAppend(&timed, " (spilled ", v.spill_bytes, " B a thread)");
  }
  TunedKernel chosen = std::move(variants[best].kernel);
  chosen.note = absl::StrCat("launch bound tuned to ", chosen.generated.min_blocks_per_sm, " blocks per SM: ", timed);
  return chosen;
}

}  // namespace kiln
