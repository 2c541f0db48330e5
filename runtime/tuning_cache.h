// The matmul configs tuning chose, kept in memory and on disk beside the
// kernel cache, so a second process tunes nothing.
//
//   TuningCache cache;                          // <kernel cache dir>/tuning
//   const Hash128 key = TuningKey(source, device.info(), arch);
//   if (std::optional<MatmulConfig> c = cache.Find(key)) { ... }   // memory, then disk
//   cache.Store(key, chosen);
//
// An entry is `<dir>/<keyhex>.tune` in the checksummed format of
// runtime/cache_entry.h, holding the config as text ("128x256x64:3:8").
// Writes are atomic; an entry that fails any check, or holds no config, is
// counted in `corrupt_entries` and ignored (the kernel is tuned again and the
// entry rewritten). Thread-safe. A directory that cannot be written leaves
// the cache working from memory.
#ifndef KILN_RUNTIME_TUNING_CACHE_H_
#define KILN_RUNTIME_TUNING_CACHE_H_

#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "fusion/plan.h"
#include "runtime/device.h"
#include "runtime/stable_hash.h"

namespace kiln {

// The key of a tuning result: the kernel's source generated with the
// heuristic config under a fixed name (it spells out shapes, dtypes, operand
// layouts, batches and the epilogue), the GPU's name and SM count, the
// architecture and the NVRTC version.
Hash128 TuningKey(absl::string_view heuristic_source, const DeviceInfo& device, absl::string_view arch);

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

  std::optional<MatmulConfig> Find(const Hash128& key);
  void Store(const Hash128& key, const MatmulConfig& config);

  TuningCacheStats stats() const;
  const std::string& dir() const { return dir_; }
  std::string EntryPath(const Hash128& key) const;  // `<dir>/<keyhex>.tune`

 private:
  const std::string dir_;
  mutable std::mutex mu_;
  absl::flat_hash_map<Hash128, MatmulConfig> entries_;  // guarded by mu_, as is stats_
  TuningCacheStats stats_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_TUNING_CACHE_H_
