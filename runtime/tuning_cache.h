// What the tuners chose, kept in memory and on disk beside the kernel cache,
// so that a second process (kiln run --measure's child under ncu among them)
// times nothing: a matmul kernel's config (runtime/autotuner.h), the blocks
// per SM a spilling row kernel's launch bound asks for
// (runtime/launch_bound_tuner.h), and the cluster size of a cluster-looped
// row kernel (runtime/row_cluster_tuner.h).
//
//   TuningCache cache;                          // <kernel cache dir>/tuning
//   const Hash128 key = TuningKey(TuningKind::kLaunchBound, source, device.info(), arch);
//   if (std::optional<LaunchBoundAsk> ask = cache.Find<LaunchBoundAsk>(key)) { ... }   // memory, then disk
//   cache.Store(key, LaunchBoundAsk{.blocks_per_sm = 3});
//
// An entry is `<dir>/<keyhex>.tune` in the checksummed format of
// runtime/cache_entry.h, holding the choice as text: a config as
// MatmulConfig::ToString writes it ("128x256x64:3:8"), "launch-bound 3", or
// "row-clusters 4". Each kind has keys of its own (TuningKey hashes the kind)
// and reads only its own text. Writes are atomic; an entry that fails any
// check, or holds no choice of the kind asked for, is counted in
// `corrupt_entries` and ignored (the kernel is tuned again and the entry
// rewritten). Thread-safe. A directory that cannot be written leaves the
// cache working from memory.
#ifndef KILN_RUNTIME_TUNING_CACHE_H_
#define KILN_RUNTIME_TUNING_CACHE_H_

#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "fusion/plan.h"
#include "runtime/stable_hash.h"
#include "runtime/tuning_key.h"

namespace kiln {

// The blocks per SM a row kernel's launch bound asks for (GeneratedKernel::min_blocks_per_sm).
struct LaunchBoundAsk {
  int blocks_per_sm = 0;
  bool operator==(const LaunchBoundAsk&) const = default;
};

// The blocks of each cluster of a cluster-looped row kernel (RowSchedule::cluster_blocks).
struct RowClusterSize {
  int cluster_blocks = 0;
  bool operator==(const RowClusterSize&) const = default;
};

// What one tuner chose for one kernel; the alternative says which tuner.
using TuningChoice = std::variant<MatmulConfig, LaunchBoundAsk, RowClusterSize>;

inline TuningKind KindOf(const MatmulConfig&) { return TuningKind::kMatmulConfig; }
inline TuningKind KindOf(const LaunchBoundAsk&) { return TuningKind::kLaunchBound; }
inline TuningKind KindOf(const RowClusterSize&) { return TuningKind::kRowClusters; }

struct TuningCacheStats {
  int64_t memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t stores = 0;
  int64_t corrupt_entries = 0;
};

struct TuningCacheOptions {
  std::string dir;       // empty: DefaultKernelCacheDir() + "/tuning"
  bool use_disk = true;  // false: memory only
};

class TuningCache {
 public:
  explicit TuningCache(TuningCacheOptions options = {});

  // The choice of type `Choice` (a TuningChoice alternative) stored under `key`.
  template <typename Choice>
  std::optional<Choice> Find(const Hash128& key) {
    std::optional<TuningChoice> found = FindOfKind(key, KindOf(Choice{}));
    if (!found.has_value()) return std::nullopt;
    return std::get<Choice>(*std::move(found));
  }
  void Store(const Hash128& key, const TuningChoice& choice);

  TuningCacheStats stats() const;
  const std::string& dir() const { return dir_; }
  std::string EntryPath(const Hash128& key) const;  // `<dir>/<keyhex>.tune`

 private:
  // Memory, then disk; only a choice of `kind`.
  std::optional<TuningChoice> FindOfKind(const Hash128& key, TuningKind kind);

  const std::string dir_;
  mutable std::mutex mu_;
  absl::flat_hash_map<Hash128, TuningChoice> entries_;  // guarded by mu_, as is stats_
  TuningCacheStats stats_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_TUNING_CACHE_H_
