// Compiled kernels, cached in memory and on disk, keyed by everything that
// changes the binary.
//
//   KernelCache cache;                                 // default disk directory
//   KernelCache scratch({.dir = "/tmp/k", .use_disk = true});
//   absl::StatusOr<std::shared_ptr<const CompiledKernel>> k =
//       cache.GetOrCompile(src, "sm_90");
//   (*k)->cubin                                        // ELF image for the driver
//
// Lookup order: the in-memory map, then `<dir>/<keyhex>.cubin`, then NVRTC
// (and the result is written to disk). Thread-safe: concurrent requests for
// one key compile it once, the others wait for that result. Disk writes are
// atomic (a unique temporary file, then rename); an entry that fails any check
// of its header or checksum is counted in `corrupt_entries`, recompiled and
// rewritten, never loaded. A directory that cannot be written leaves the cache
// working from memory.
#ifndef KILN_RUNTIME_KERNEL_CACHE_H_
#define KILN_RUNTIME_KERNEL_CACHE_H_

#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/kernel_source.h"
#include "runtime/stable_hash.h"

namespace kiln {

struct CompiledKernel {
  Hash128 key;
  std::string arch;   // "sm_90"
  std::string cubin;  // ELF image
};

struct CacheStats {
  int64_t memory_hits = 0;  // includes requests that waited for another thread's compile
  int64_t disk_hits = 0;
  int64_t compiles = 0;         // successful NVRTC compiles
  int64_t corrupt_entries = 0;  // disk entries refused (and then rewritten)
};

struct KernelCacheOptions {
  std::string dir;       // empty: DefaultKernelCacheDir()
  bool use_disk = true;  // false: memory only
};

// The cache key: a stable hash of the source text, the NVRTC version, every
// NVRTC option, the architecture and kCacheEntryFormatVersion.
Hash128 KernelCacheKey(absl::string_view code, absl::string_view nvrtc_version,
                       const std::vector<std::string>& nvrtc_options, absl::string_view arch);
// The key GetOrCompile uses: NvrtcVersion() and NvrtcOptions(arch).
Hash128 KernelCacheKey(const KernelSource& src, absl::string_view arch);

// $KILN_CACHE_DIR if set, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln;
// empty when none of them is set.
std::string DefaultKernelCacheDir();

class KernelCache {
 public:
  explicit KernelCache(KernelCacheOptions options = {});

  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The compiled kernel for `src` on `arch`. Errors are those of
  // CompileToCubin (a bad arch, a compile error with log and source); a failed
  // key is not remembered, so a later call tries again.
  absl::StatusOr<std::shared_ptr<const CompiledKernel>> GetOrCompile(const KernelSource& src,
                                                                     absl::string_view arch);

  CacheStats stats() const;

  // The directory entries live in; empty when the cache is memory-only.
  const std::string& dir() const { return dir_; }
  // `<dir>/<keyhex>.cubin`.
  std::string EntryPath(const Hash128& key) const;

 private:
  using Result = absl::StatusOr<std::shared_ptr<const CompiledKernel>>;

  // Disk, then NVRTC; runs outside the lock, once per key at a time.
  Result LoadOrCompile(const Hash128& key, const KernelSource& src, absl::string_view arch);

  const std::string dir_;
  // std::mutex rather than absl::Mutex: ThreadSanitizer sees through it even
  // with the system's uninstrumented Abseil.
  mutable std::mutex mu_;
  // Finished and in-flight results; a waiter shares the owner's future.
  // Guarded by mu_, as is stats_.
  absl::flat_hash_map<Hash128, std::shared_future<Result>> entries_;
  CacheStats stats_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_KERNEL_CACHE_H_
