#include "runtime/kernel_cache.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/atomic_file.h"
#include "runtime/cache_entry.h"
#include "runtime/kernel_source.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/stable_hash.h"

namespace kiln {
namespace {

// Larger files are not cubins kiln wrote; refuse them before reading them.
constexpr int64_t kMaxEntryBytes = int64_t{256} << 20;

// The file's bytes, or nullopt when it does not exist or cannot be read (a
// plain miss). A file too large to be an entry is returned as an empty string,
// which decoding refuses as corrupt.
std::optional<std::string> ReadEntryFile(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return std::nullopt;
  std::string bytes;
  char chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    if (static_cast<int64_t>(bytes.size() + n) > kMaxEntryBytes) {
      bytes.clear();
      break;
    }
    bytes.append(chunk, n);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return std::nullopt;
  return bytes;
}

// Failure to write is not an error for the cache: it only loses the disk copy.
void StoreOnDisk(const std::string& dir, const std::string& path, absl::string_view bytes) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec) WriteFileAtomically(path, bytes).IgnoreError();
}

std::string GetEnv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

}  // namespace

Hash128 KernelCacheKey(absl::string_view code, absl::string_view nvrtc_version,
                       const std::vector<std::string>& nvrtc_options, absl::string_view arch) {
  StableHasher h;
  h.Add("kiln kernel cache");
  h.Add(uint64_t{kCacheEntryFormatVersion});
  h.Add(code);
  h.Add(nvrtc_version);
  h.Add(uint64_t{nvrtc_options.size()});
  for (const std::string& option : nvrtc_options) h.Add(option);
  h.Add(arch);
  return h.Finish();
}

Hash128 KernelCacheKey(const KernelSource& src, absl::string_view arch) {
  return KernelCacheKey(src.code, NvrtcVersion(), NvrtcOptions(arch), arch);
}

std::string DefaultKernelCacheDir() {
  if (std::string dir = GetEnv("KILN_CACHE_DIR"); !dir.empty()) return dir;
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (std::string xdg = GetEnv("XDG_CACHE_HOME"); !xdg.empty() && xdg[0] == '/') {
    return absl::StrCat(xdg, "/kiln");
  }
  if (std::string home = GetEnv("HOME"); !home.empty()) {
    return absl::StrCat(home, "/.cache/kiln");
  }
  return "";
}

KernelCache::KernelCache(KernelCacheOptions options)
    : dir_(!options.use_disk     ? ""
           : options.dir.empty() ? DefaultKernelCacheDir()
                                 : std::move(options.dir)) {}

std::string KernelCache::EntryPath(const Hash128& key) const {
  return absl::StrCat(dir_, "/", key.Hex(), ".cubin");
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

absl::StatusOr<std::shared_ptr<const CompiledKernel>> KernelCache::GetOrCompile(
    const KernelSource& src, absl::string_view arch) {
  if (absl::Status s = ValidateArch(arch); !s.ok()) return s;
  const Hash128 key = KernelCacheKey(src, arch);
  std::promise<Result> promise;
  std::shared_future<Result> shared;
  bool owner = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      owner = true;
      it = entries_.emplace(key, promise.get_future().share()).first;
    } else {
      ++stats_.memory_hits;
    }
    shared = it->second;
  }
  if (!owner) return shared.get();  // waits while the owner compiles
  Result result = LoadOrCompile(key, src, arch);
  if (!result.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.erase(key);
  }
  promise.set_value(result);
  return result;
}

KernelCache::Result KernelCache::LoadOrCompile(const Hash128& key, const KernelSource& src,
                                               absl::string_view arch) {
  const std::string path = dir_.empty() ? "" : EntryPath(key);
  if (!path.empty()) {
    if (std::optional<std::string> file = ReadEntryFile(path)) {
      absl::StatusOr<std::string> cubin = DecodeCacheEntry(*file, key);
      std::lock_guard<std::mutex> lock(mu_);
      if (cubin.ok()) {
        ++stats_.disk_hits;
        return std::make_shared<const CompiledKernel>(
            CompiledKernel{.key = key, .arch = std::string(arch), .cubin = *std::move(cubin)});
      }
      ++stats_.corrupt_entries;
    }
  }
  absl::StatusOr<std::string> cubin = CompileToCubin(src, arch);
  if (!cubin.ok()) return cubin.status();
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.compiles;
  }
  if (!path.empty()) StoreOnDisk(dir_, path, EncodeCacheEntry(key, *cubin));
  return std::make_shared<const CompiledKernel>(
      CompiledKernel{.key = key, .arch = std::string(arch), .cubin = *std::move(cubin)});
}

}  // namespace kiln
