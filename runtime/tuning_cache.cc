#include "runtime/tuning_cache.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "graph/atomic_file.h"
#include "runtime/cache_entry.h"
#include "runtime/kernel_cache.h"

namespace kiln {
namespace {

// A tuning entry is a header and a short choice; anything larger is not one.
constexpr std::streamsize kMaxEntryBytes = 4096;

// The words before a count's value; a matmul config is its text alone.
constexpr absl::string_view kLaunchBoundWord = "launch-bound ";
constexpr absl::string_view kRowClustersWord = "row-clusters ";

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes(kMaxEntryBytes + 1, '\0');
  in.read(bytes.data(), kMaxEntryBytes + 1);
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

// "launch-bound 3" as 3: `word`, then a count of at least 1.
std::optional<int> ParseCount(absl::string_view text, absl::string_view word) {
  int count = 0;
  if (!absl::ConsumePrefix(&text, word) || !absl::SimpleAtoi(text, &count) || count < 1) return std::nullopt;
  return count;
}

std::string ChoiceText(const TuningChoice& choice) {
  struct Text {
    std::string operator()(const MatmulConfig& c) const { return c.ToString(); }
    std::string operator()(const LaunchBoundAsk& a) const { return absl::StrCat(kLaunchBoundWord, a.blocks_per_sm); }
    std::string operator()(const RowClusterSize& s) const { return absl::StrCat(kRowClustersWord, s.cluster_blocks); }
  };
  return std::visit(Text{}, choice);
}

// The choice of `kind` that `text` holds; nullopt for another kind's or none.
std::optional<TuningChoice> ParseChoice(TuningKind kind, absl::string_view text) {
  switch (kind) {
    case TuningKind::kMatmulConfig:
      if (std::optional<MatmulConfig> config = ParseMatmulConfig(text)) return *config;
      return std::nullopt;
    case TuningKind::kLaunchBound:
      if (std::optional<int> blocks = ParseCount(text, kLaunchBoundWord)) return LaunchBoundAsk{*blocks};
      return std::nullopt;
    case TuningKind::kRowClusters:
      if (std::optional<int> blocks = ParseCount(text, kRowClustersWord)) return RowClusterSize{*blocks};
      return std::nullopt;
  }
  return std::nullopt;
}

TuningKind KindOfChoice(const TuningChoice& choice) {
  return std::visit([](const auto& c) { return KindOf(c); }, choice);
}

}  // namespace

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

std::optional<TuningChoice> TuningCache::FindOfKind(const Hash128& key, TuningKind kind) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = entries_.find(key); it != entries_.end()) {
      // Keys of different kinds differ, so another kind's choice here means
      // the caller asked with a key of another kind: not found.
      if (KindOfChoice(it->second) != kind) return std::nullopt;
      ++stats_.memory_hits;
      return it->second;
    }
  }
  if (dir_.empty()) return std::nullopt;
  const std::optional<std::string> file = ReadSmallFile(EntryPath(key));
  if (!file.has_value()) return std::nullopt;
  absl::StatusOr<std::string> payload = DecodeCacheEntry(*file, key, kTuningEntryMagic);
  std::optional<TuningChoice> choice;
  if (payload.ok()) choice = ParseChoice(kind, *payload);
  std::lock_guard<std::mutex> lock(mu_);
  if (!choice.has_value()) {
    ++stats_.corrupt_entries;
    return std::nullopt;
  }
  ++stats_.disk_hits;
  entries_[key] = *choice;
  return choice;
}

void TuningCache::Store(const Hash128& key, const TuningChoice& choice) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries_[key] = choice;
    ++stats_.stores;
  }
  if (dir_.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  // A failed write only loses the disk copy: the next process tunes again.
  if (!ec) (void)WriteFileAtomically(EntryPath(key), EncodeCacheEntry(key, ChoiceText(choice), kTuningEntryMagic));
}

}  // namespace kiln
