#include "runtime/kernel_cache.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <latch>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cache_entry.h"
#include "runtime/kernel_source.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using runtime_testing::SaxpySource;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

// A saxpy variant per index, so each compiles to its own key.
KernelSource Variant(int i) {
  KernelSource src = SaxpySource();
  src.code += absl::StrCat("// variant ", i, "\n");
  return src;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::vector<std::string> FileNames(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  return names;
}

// Results of `threads` threads that each ask `cache` for source_of(thread),
// all released at once so the requests overlap.
std::vector<absl::StatusOr<std::shared_ptr<const CompiledKernel>>> CompileConcurrently(
    KernelCache& cache, int threads, const std::function<KernelSource(int)>& source_of) {
  std::latch start(threads);
  std::vector<absl::StatusOr<std::shared_ptr<const CompiledKernel>>> results(threads,
                                                                             absl::UnknownError("not run"));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      start.arrive_and_wait();
      results[t] = cache.GetOrCompile(source_of(t), "sm_90");
    });
  }
  for (std::thread& w : workers) w.join();
  return results;
}

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "kiln_cache_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST(KernelCacheKeyTest, NamesEverythingThatChangesTheBinary) {
  const std::vector<std::string> options = NvrtcOptions("sm_90");
  const Hash128 base = KernelCacheKey("code", "13.0", options, "sm_90");
  EXPECT_EQ(KernelCacheKey("code", "13.0", options, "sm_90"), base);
  EXPECT_NE(KernelCacheKey("code ", "13.0", options, "sm_90"), base);
  EXPECT_NE(KernelCacheKey("code", "13.1", options, "sm_90"), base);
  EXPECT_NE(KernelCacheKey("code", "13.0", options, "sm_80"), base);
  std::vector<std::string> more = options;
  more.push_back("--extra-device-vectorization");
  EXPECT_NE(KernelCacheKey("code", "13.0", more, "sm_90"), base);
  std::vector<std::string> fewer(options.begin(), options.end() - 1);
  EXPECT_NE(KernelCacheKey("code", "13.0", fewer, "sm_90"), base);
}

TEST(KernelCacheKeyTest, IsStableAcrossProcessesAndBuilds) {
  // Pinned: a key that drifted (e.g. a per-process salt) would orphan every
  // disk entry. Changing the key scheme on purpose means updating this value.
  EXPECT_EQ(KernelCacheKey("code", "13.0", {"--a", "--b"}, "sm_90").Hex(),
            "f0fc5f829039c890c2717aebcf8f74e0");
}

TEST(KernelCacheKeyTest, SourceFormUsesTheCompilerSettings) {
  const KernelSource src = SaxpySource();
  EXPECT_EQ(KernelCacheKey(src, "sm_90"),
            KernelCacheKey(src.code, NvrtcVersion(), NvrtcOptions("sm_90"), "sm_90"));
  EXPECT_NE(KernelCacheKey(src, "sm_90"), KernelCacheKey(src, "sm_80"));
  // The label for errors does not change the binary, so it is not in the key.
  KernelSource renamed = src;
  renamed.name_for_errors = "other";
  EXPECT_EQ(KernelCacheKey(renamed, "sm_90"), KernelCacheKey(src, "sm_90"));
}

TEST_F(KernelCacheTest, SecondRequestIsAMemoryHit) {
  KernelCache cache({.dir = dir_.string()});
  auto first = cache.GetOrCompile(SaxpySource(), "sm_90");
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = cache.GetOrCompile(SaxpySource(), "sm_90");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->get(), second->get());
  const CacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 1);
  EXPECT_EQ(stats.memory_hits, 1);
  EXPECT_EQ(stats.disk_hits, 0);
  EXPECT_EQ(stats.corrupt_entries, 0);
  EXPECT_EQ((*first)->key, KernelCacheKey(SaxpySource(), "sm_90"));
  EXPECT_EQ((*first)->arch, "sm_90");
  EXPECT_EQ((*first)->cubin.compare(0, 4,
                                    "\x7f"
                                    "ELF"),
            0);
}

TEST_F(KernelCacheTest, WritesOneEntryAndNoTemporaryFiles) {
  KernelCache cache({.dir = dir_.string()});
  auto kernel = cache.GetOrCompile(SaxpySource(), "sm_90");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const std::string name = absl::StrCat((*kernel)->key.Hex(), ".cubin");
  EXPECT_THAT(FileNames(dir_), ::testing::ElementsAre(name));
  EXPECT_EQ(cache.EntryPath((*kernel)->key), (dir_ / name).string());
  absl::StatusOr<std::string> payload = DecodeCacheEntry(ReadFile(dir_ / name), (*kernel)->key);
  ASSERT_TRUE(payload.ok()) << payload.status();
  EXPECT_EQ(*payload, (*kernel)->cubin);
}

TEST_F(KernelCacheTest, AnotherCacheOnTheSameDirectoryHitsTheDisk) {
  std::string cubin;
  {
    KernelCache writer({.dir = dir_.string()});
    auto kernel = writer.GetOrCompile(SaxpySource(), "sm_90");
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    cubin = (*kernel)->cubin;
  }
  KernelCache reader({.dir = dir_.string()});
  auto kernel = reader.GetOrCompile(SaxpySource(), "sm_90");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ((*kernel)->cubin, cubin);
  const CacheStats stats = reader.stats();
  EXPECT_EQ(stats.disk_hits, 1);
  EXPECT_EQ(stats.compiles, 0);
  EXPECT_EQ(stats.memory_hits, 0);
}

TEST_F(KernelCacheTest, DifferentArchitecturesAreDifferentEntries) {
  KernelCache cache({.dir = dir_.string()});
  auto sm90 = cache.GetOrCompile(SaxpySource(), "sm_90");
  auto sm80 = cache.GetOrCompile(SaxpySource(), "sm_80");
  ASSERT_TRUE(sm90.ok()) << sm90.status();
  ASSERT_TRUE(sm80.ok()) << sm80.status();
  EXPECT_NE((*sm90)->key, (*sm80)->key);
  EXPECT_EQ(cache.stats().compiles, 2);
  EXPECT_EQ(FileNames(dir_).size(), 2u);
}

// Each way an entry can go bad on disk.
struct Corruption {
  const char* name;
  std::string (*damage)(std::string file);
};

class CorruptEntryTest : public KernelCacheTest,
                         public ::testing::WithParamInterface<Corruption> {};

TEST_P(CorruptEntryTest, IsDetectedRecompiledAndRewritten) {
  fs::path entry;
  std::string cubin;
  {
    KernelCache writer({.dir = dir_.string()});
    auto kernel = writer.GetOrCompile(SaxpySource(), "sm_90");
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    entry = writer.EntryPath((*kernel)->key);
    cubin = (*kernel)->cubin;
  }
  const std::string good = ReadFile(entry);
  WriteFile(entry, GetParam().damage(good));

  KernelCache repairer({.dir = dir_.string()});
  auto kernel = repairer.GetOrCompile(SaxpySource(), "sm_90");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ((*kernel)->cubin, cubin);
  CacheStats stats = repairer.stats();
  EXPECT_EQ(stats.corrupt_entries, 1);
  EXPECT_EQ(stats.compiles, 1);
  EXPECT_EQ(stats.disk_hits, 0);
  EXPECT_EQ(ReadFile(entry), good);

  KernelCache reader({.dir = dir_.string()});
  ASSERT_TRUE(reader.GetOrCompile(SaxpySource(), "sm_90").ok());
  EXPECT_EQ(reader.stats().disk_hits, 1);
  EXPECT_EQ(reader.stats().corrupt_entries, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Damage, CorruptEntryTest,
    ::testing::Values(
        Corruption{"FlippedPayloadByte",
                   [](std::string f) {
                     f[f.size() / 2] = static_cast<char>(f[f.size() / 2] ^ 0xff);
                     return f;
                   }},
        Corruption{"FlippedKeyByte",
                   [](std::string f) {
                     f[20] = static_cast<char>(f[20] ^ 0x01);
                     return f;
                   }},
        Corruption{"TruncatedToHalf", [](std::string f) { return f.substr(0, f.size() / 2); }},
        Corruption{"TruncatedInHeader", [](std::string f) { return f.substr(0, 10); }},
        Corruption{"Empty", [](std::string) { return std::string(); }},
        Corruption{"RawCubinWithoutHeader",
                   [](std::string f) { return f.substr(kCacheEntryHeaderBytes); }}),
    [](const ::testing::TestParamInfo<Corruption>& info) { return info.param.name; });

TEST_F(KernelCacheTest, EightThreadsAskingForOneKernelCompileItOnce) {
  KernelCache cache({.dir = dir_.string()});
  constexpr int kThreads = 8;
  const auto results = CompileConcurrently(cache, kThreads, [](int) { return SaxpySource(); });
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->get(), results[0]->get());
  }
  const CacheStats stats = cache.stats();
  EXPECT_EQ(stats.compiles, 1);
  EXPECT_EQ(stats.memory_hits, kThreads - 1);
  EXPECT_EQ(stats.disk_hits, 0);
}

TEST_F(KernelCacheTest, EightThreadsWithEightKernelsAllSucceed) {
  KernelCache cache({.dir = dir_.string()});
  constexpr int kThreads = 8;
  const auto results = CompileConcurrently(cache, kThreads, Variant);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(results[t].ok()) << results[t].status();
    EXPECT_EQ((*results[t])->key, KernelCacheKey(Variant(t), "sm_90"));
    EXPECT_EQ((*results[t])
                  ->cubin.compare(0, 4,
                                  "\x7f"
                                  "ELF"),
              0);
  }
  EXPECT_EQ(cache.stats().compiles, kThreads);
  EXPECT_EQ(FileNames(dir_).size(), static_cast<size_t>(kThreads));
}

TEST_F(KernelCacheTest, UnwritableDirectoryFallsBackToMemory) {
  // A regular file where a directory should be: unwritable even for root.
  const fs::path blocker = dir_ / "file";
  WriteFile(blocker, "not a directory");
  const std::string unwritable = (blocker / "kiln").string();
  KernelCache cache({.dir = unwritable});
  auto first = cache.GetOrCompile(SaxpySource(), "sm_90");
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = cache.GetOrCompile(SaxpySource(), "sm_90");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(cache.stats().compiles, 1);
  EXPECT_EQ(cache.stats().memory_hits, 1);
  EXPECT_THAT(FileNames(dir_), ::testing::ElementsAre("file"));
}

TEST_F(KernelCacheTest, DiskCanBeTurnedOff) {
  KernelCache cache({.dir = dir_.string(), .use_disk = false});
  EXPECT_EQ(cache.dir(), "");
  ASSERT_TRUE(cache.GetOrCompile(SaxpySource(), "sm_90").ok());
  EXPECT_EQ(cache.stats().compiles, 1);
  EXPECT_TRUE(FileNames(dir_).empty());
}

TEST_F(KernelCacheTest, CompileErrorsAreReturnedAndNotRemembered) {
  KernelCache cache({.dir = dir_.string()});
  const KernelSource broken{.code = "extern \"C\" __global__ void k() { nope; }\n",
                            .name_for_errors = "k"};
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto kernel = cache.GetOrCompile(broken, "sm_90");
    ASSERT_FALSE(kernel.ok());
    EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(kernel.status().message()),
                HasSubstr("NVRTC could not compile kernel k"));
  }
  EXPECT_EQ(cache.stats().compiles, 0);
  EXPECT_EQ(cache.stats().memory_hits, 0);
  EXPECT_TRUE(FileNames(dir_).empty());
}

TEST_F(KernelCacheTest, BadArchitectureIsInvalidArgument) {
  KernelCache cache({.dir = dir_.string()});
  auto kernel = cache.GetOrCompile(SaxpySource(), "compute_90");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
}

// Sets environment variables for one test and restores them afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DefaultKernelCacheDirTest, FollowsTheOverrideThenXdgThenHome) {
  {
    ScopedEnv kiln("KILN_CACHE_DIR", "/kiln/cache");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(DefaultKernelCacheDir(), "/kiln/cache");
  }
  {
    ScopedEnv kiln("KILN_CACHE_DIR", nullptr);
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(DefaultKernelCacheDir(), "/xdg/kiln");
    EXPECT_EQ(KernelCache().dir(), "/xdg/kiln");
  }
  {
    ScopedEnv kiln("KILN_CACHE_DIR", "");
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/is/ignored");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(DefaultKernelCacheDir(), "/home/u/.cache/kiln");
  }
  {
    ScopedEnv kiln("KILN_CACHE_DIR", nullptr);
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    ScopedEnv home("HOME", nullptr);
    EXPECT_EQ(DefaultKernelCacheDir(), "");
    EXPECT_EQ(KernelCache().dir(), "");
  }
}

}  // namespace
}  // namespace kiln
