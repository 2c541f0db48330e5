#include "runtime/row_cluster_tuner.h"

#include <limits>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codegen/kernel_codegen.h"
#include "graph/int_math.h"
#include "runtime/kernel_timing.h"

namespace kiln {
namespace {

int64_t Waves(int64_t rows, int resident) {
  return resident > 0 ? CeilDiv(rows, resident) : std::numeric_limits<int64_t>::max();
}

absl::StatusOr<TunedKernel> Load(const Graph& graph, const Kernel& kernel, const DeviceLimits& limits,
                                 const Device& device, KernelCache& cache, bool tune) {
  absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, kernel, limits);
  if (!generated.ok()) return generated.status();
  return LoadWithTunedLaunchBound(graph, *std::move(generated), device, cache, limits.Arch(), tune);
}

absl::StatusOr<int> ResidentClusters(const TunedKernel& kernel) {
  LaunchConfig config = LaunchConfigOf(kernel.generated);
  config.cluster_x = kernel.generated.launch.cluster;
  return kernel.loaded->ResidentClusters(config);
}

}  // namespace

absl::StatusOr<std::vector<ClusterCount>> RowClusterCandidates(
    int64_t rows, int planned, const std::function<absl::StatusOr<int>(int cluster_blocks)>& resident) {
  std::vector<ClusterCount> candidates;
  for (int size = planned; size >= 2; size /= 2) {
    absl::StatusOr<int> count = resident(size);
    if (!count.ok()) return count.status();
    if (!candidates.empty() && Waves(rows, *count) >= Waves(rows, candidates.back().resident)) break;
    candidates.push_back({size, *count});
    if (Waves(rows, *count) <= 1) break;
  }
  return candidates;
}

absl::StatusOr<TunedKernel> LoadWithTunedRowClusters(const Graph& graph, Kernel& kernel, const DeviceLimits& limits,
                                                     const Device& device, KernelCache& cache, bool tune) {
  absl::StatusOr<TunedKernel> planned = Load(graph, kernel, limits, device, cache, tune);
  if (!planned.ok() || !tune || kernel.kind != KernelKind::kRowReduction ||
      kernel.row().strategy != RowStrategy::kClusterLooped) {
    return planned;
  }
  RowSchedule& row = kernel.row();
  std::map<int, TunedKernel> loaded;
  loaded.emplace(row.cluster_blocks, *std::move(planned));
  absl::Status compile_error;
  absl::StatusOr<std::vector<ClusterCount>> candidates =
      RowClusterCandidates(row.rows, row.cluster_blocks, [&](int size) -> absl::StatusOr<int> {
        if (!loaded.contains(size)) {
          Kernel variant = kernel;
          variant.row().cluster_blocks = size;
          absl::StatusOr<TunedKernel> k = Load(graph, variant, limits, device, cache, tune);
          if (!k.ok()) return compile_error = k.status();
          loaded.emplace(size, *std::move(k));
        }
        return ResidentClusters(loaded.at(size));
      });
  if (!compile_error.ok()) return compile_error;
  // Where the driver cannot count clusters the planned size stays; the
  // kernel's residency note says why.
  if (!candidates.ok() || candidates->size() < 2) return std::move(loaded.at(row.cluster_blocks));

  absl::StatusOr<std::map<NodeId, DeviceBuffer>> buffers =
      TuningBuffers(graph, loaded.at(row.cluster_blocks).generated, device, cache);
  if (!buffers.ok()) return buffers.status();
  std::string timed;
  int best = row.cluster_blocks;
  double best_us = std::numeric_limits<double>::infinity();
  for (const ClusterCount& c : *candidates) {
    const TunedKernel& k = loaded.at(c.cluster_blocks);
    absl::StatusOr<double> us = TimeKernelAlone(device, k.generated, *k.loaded, *buffers);
    if (!us.ok()) return us.status();
    if (*us < best_us) {
      best_us = *us;
      best = c.cluster_blocks;
    }
    const int64_t waves = Waves(row.rows, c.resident);
    absl::StrAppendFormat(&timed, "%sof %d blocks %d%s (%d %s) %.1f us", timed.empty() ? "" : ", ", c.cluster_blocks,
                          c.resident, timed.empty() ? " fit on the GPU at once" : "", waves,
                          waves == 1 ? "wave" : "waves", *us);
  }
  if (best != row.cluster_blocks) {
    absl::StrAppend(&row.reason, "; clusters of ", best, " blocks as tuned at run time");
    row.cluster_blocks = best;
  }
  TunedKernel chosen = std::move(loaded.at(best));
  const std::string note = absl::StrCat("clusters tuned to ", best, " blocks for ", row.rows, " rows: ", timed);
  chosen.note = chosen.note.empty() ? note : absl::StrCat(chosen.note, "; ", note);
  return chosen;
}

}  // namespace kiln
