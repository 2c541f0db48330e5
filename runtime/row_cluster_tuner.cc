#include "runtime/row_cluster_tuner.h"

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "graph/int_math.h"
#include "runtime/kernel_timing.h"
#include "runtime/tuning_key.h"

namespace kiln {
namespace {

int64_t Waves(int64_t rows, int resident) {
  return resident > 0 ? CeilDiv(rows, resident) : std::numeric_limits<int64_t>::max();
}

absl::StatusOr<int> ResidentClusters(const TunedKernel& kernel) {
  LaunchConfig config = LaunchConfigOf(kernel.generated);
  config.cluster_x = kernel.generated.launch.cluster;
  return kernel.loaded->ResidentClusters(config);
}

// Where `tuning` holds a size for the kernel as planned (clusters of
// `planned` blocks), that size.
std::optional<int> CachedSize(TuningCache& tuning, const Hash128& key, int planned) {
  const std::optional<RowClusterSize> cached = tuning.Find<RowClusterSize>(key);
  if (!cached.has_value()) return std::nullopt;
  // Tuning times the planned size and its halves; any other is no choice of this kernel's.
  for (int size = planned; size >= 2; size /= 2) {
    if (size == cached->cluster_blocks) return size;
  }
  return std::nullopt;
}

// Clusters of `size` blocks for `row`, its reason saying where they came from.
void SetClusterSize(RowSchedule& row, int size, absl::string_view source) {
  if (size == row.cluster_blocks) return;
  absl::StrAppend(&row.reason, "; clusters of ", size, " blocks ", source);
  row.cluster_blocks = size;
}

// `note` after what loading the kernel noted.
void AppendNote(TunedKernel& kernel, absl::string_view note) {
  kernel.note = kernel.note.empty() ? std::string(note) : absl::StrCat(kernel.note, "; ", note);
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
                                                     const Device& device, KernelCache& cache, TuningCache& tuning,
                                                     bool tune) {
  auto load = [&](const Kernel& k) { return LoadWithTunedLaunchBound(graph, k, limits, device, cache, tuning, tune); };
  if (!tune || kernel.kind != KernelKind::kRowReduction || kernel.row().strategy != RowStrategy::kClusterLooped) {
    return load(kernel);
  }
  RowSchedule& row = kernel.row();
  absl::StatusOr<Hash128> key = KernelTuningKey(TuningKind::kRowClusters, graph, kernel, limits, device.info());
  if (!key.ok()) return key.status();
  if (const std::optional<int> size = CachedSize(tuning, *key, row.cluster_blocks)) {
    SetClusterSize(row, *size, "from the tuning cache");
    absl::StatusOr<TunedKernel> cached = load(kernel);
    if (cached.ok()) {
      AppendNote(*cached,
                 absl::StrCat("clusters of ", *size, " blocks for ", row.rows, " rows (from the tuning cache)"));
    }
    return cached;
  }

  absl::StatusOr<TunedKernel> planned = load(kernel);
  if (!planned.ok()) return planned;
  std::map<int, TunedKernel> loaded;
  loaded.emplace(row.cluster_blocks, *std::move(planned));
  absl::Status compile_error;
  absl::StatusOr<std::vector<ClusterCount>> candidates =
      RowClusterCandidates(row.rows, row.cluster_blocks, [&](int size) -> absl::StatusOr<int> {
        if (!loaded.contains(size)) {
          Kernel variant = kernel;
          variant.row().cluster_blocks = size;
          absl::StatusOr<TunedKernel> k = load(variant);
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
  tuning.Store(*key, RowClusterSize{.cluster_blocks = best});
  SetClusterSize(row, best, "as tuned at run time");
  TunedKernel chosen = std::move(loaded.at(best));
  AppendNote(chosen, absl::StrCat("clusters tuned to ", best, " blocks for ", row.rows, " rows: ", timed));
  return chosen;
}

}  // namespace kiln
