#include "runtime/tuning_cache.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "graph/atomic_file.h"
#include "runtime/cache_entry.h"
#include "runtime/kernel_cache.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

// A tuning entry is a header and a short config; anything larger is not one.
constexpr std::streamsize kMaxEntryBytes = 4096;

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes(kMaxEntryBytes + 1, '\0');
  in.read(bytes.data(), kMaxEntryBytes + 1);
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

}  // namespace

Hash128 TuningKey(absl::string_view heuristic_source, const DeviceInfo& device, absl::string_view arch) {
  StableHasher h;
  h.Add("kiln matmul tuning");
  h.Add(uint64_t{kCacheEntryFormatVersion});
  h.Add(heuristic_source);
  h.Add(device.name);
  h.Add(uint64_t(device.sm_count));
  h.Add(arch);
  h.Add(NvrtcVersion());
  return h.Finish();
}

TuningCache::TuningCache(TuningCacheOptions options)
    : dir_(!options.use_disk ? ""
           : !options.dir.empty()
               ? std::move(options.dir)
               : (DefaultKernelCacheDir().empty() ? "" : absl::StrCat(DefaultKernelCacheDir(), "/tuning"))) {}

std::string TuningCache::EntryPath(const Hash128& key) const { return absl::StrCat(dir_, "/", key.Hex(), ".tune"); }

TuningCacheStats TuningCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::optional<MatmulConfig> TuningCache::Find(const Hash128& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = entries_.find(key); it != entries_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
  }
  if (dir_.empty()) return std::nullopt;
  const std::optional<std::string> file = ReadSmallFile(EntryPath(key));
  if (!file.has_value()) return std::nullopt;
  absl::StatusOr<std::string> payload = DecodeCacheEntry(*file, key, kTuningEntryMagic);
  std::optional<MatmulConfig> config;
  if (payload.ok()) config = ParseMatmulConfig(*payload);
  std::lock_guard<std::mutex> lock(mu_);
  if (!config.has_value()) {
    ++stats_.corrupt_entries;
    return std::nullopt;
  }
  ++stats_.disk_hits;
  entries_[key] = *config;
  return config;
}

void TuningCache::Store(const Hash128& key, const MatmulConfig& config) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries_[key] = config;
    ++stats_.stores;
  }
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  // A failed write only loses the disk copy: the next process tunes again.
  if (!ec) (void)WriteFileAtomically(EntryPath(key), EncodeCacheEntry(key, config.ToString(), kTuningEntryMagic));
}

}  // namespace kiln
