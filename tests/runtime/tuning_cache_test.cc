#include "runtime/tuning_cache.h"

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

class TuningCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kiln_tuning_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

const DeviceInfo kH200{.name = "NVIDIA H200", .sm_major = 9, .sm_minor = 0, .sm_count = 132};
const MatmulConfig kChosen{.block_m = 256, .block_n = 128, .block_k = 64, .stages = 3, .group_m = 8};

TEST(TuningKeyTest, NamesSourceDeviceAndArchitecture) {
  const Hash128 key = TuningKey("kernel source", kH200, "sm_90a");
  EXPECT_EQ(TuningKey("kernel source", kH200, "sm_90a"), key);
  EXPECT_NE(TuningKey("kernel source ", kH200, "sm_90a"), key);
  DeviceInfo h100 = kH200;
  h100.name = "NVIDIA H100";
  EXPECT_NE(TuningKey("kernel source", h100, "sm_90a"), key);
  DeviceInfo fewer = kH200;
  fewer.sm_count = 114;
  EXPECT_NE(TuningKey("kernel source", fewer, "sm_90a"), key);
  EXPECT_NE(TuningKey("kernel source", kH200, "sm_90"), key);
}

TEST_F(TuningCacheTest, AStoredConfigIsFoundByASecondProcessCache) {
  const Hash128 key = TuningKey("k", kH200, "sm_90a");
  {
    TuningCache cache({.dir = dir_.string()});
    EXPECT_FALSE(cache.Find(key).has_value());
    cache.Store(key, kChosen);
    EXPECT_EQ(cache.Find(key), kChosen);
    EXPECT_EQ(cache.stats().memory_hits, 1);
    EXPECT_EQ(cache.stats().stores, 1);
  }
  TuningCache fresh({.dir = dir_.string()});
  EXPECT_EQ(fresh.Find(key), kChosen);
  EXPECT_EQ(fresh.stats().disk_hits, 1);
  EXPECT_TRUE(fs::exists(fresh.EntryPath(key)));
  EXPECT_EQ(fresh.EntryPath(key), (dir_ / (key.Hex() + ".tune")).string());
}

TEST_F(TuningCacheTest, CorruptOrForeignEntriesAreIgnored) {
  const Hash128 key = TuningKey("k", kH200, "sm_90a");
  TuningCache writer({.dir = dir_.string()});
  writer.Store(key, kChosen);
  const std::string path = writer.EntryPath(key);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (const std::string& damaged : {bytes.substr(0, bytes.size() - 2), std::string(bytes).replace(60, 1, "9"),
                                     std::string("KILNCUBN") + bytes.substr(8), std::string(10000, 'x')}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
    TuningCache reader({.dir = dir_.string()});
    EXPECT_FALSE(reader.Find(key).has_value());
    EXPECT_EQ(reader.stats().corrupt_entries, 1);
  }
  // The next store rewrites the entry.
  TuningCache again({.dir = dir_.string()});
  again.Store(key, kChosen);
  EXPECT_EQ(TuningCache({.dir = dir_.string()}).Find(key), kChosen);
}

TEST_F(TuningCacheTest, MemoryOnlyWritesNothing) {
  TuningCache cache({.dir = dir_.string(), .use_disk = false});
  cache.Store(TuningKey("k", kH200, "sm_90a"), kChosen);
  EXPECT_EQ(cache.dir(), "");
  EXPECT_FALSE(fs::exists(dir_));
}

TEST(MatmulConfigTextTest, RoundTripsAndRefusesOtherText) {
  EXPECT_EQ(ParseMatmulConfig(kChosen.ToString()), kChosen);
  EXPECT_EQ(ParseMatmulConfig("128x256x64:3"),
            (MatmulConfig{.block_m = 128, .block_n = 256, .block_k = 64, .stages = 3, .group_m = 16}));
  for (const MatmulConfig& c : {MatmulConfig{.stages = 5, .group_m = 8, .pingpong = true},
                                MatmulConfig{.stages = 3, .group_m = 8, .epilogue_warps = true},
                                MatmulConfig{.stages = 6, .group_m = 8, .split_k = 4},
                                MatmulConfig{.stages = 3, .group_m = 8, .epilogue_warps = true, .cluster_m = 2},
                                MatmulConfig{.stages = 5, .group_m = 8, .pingpong = true, .cluster_n = 2}}) {
    EXPECT_EQ(ParseMatmulConfig(c.ToString()), c) << c.ToString();
  }
  EXPECT_EQ(MatmulConfig{.epilogue_warps = true}.ToString(), "128x128x32:4:16:epilogue-warps");
  EXPECT_EQ(MatmulConfig{.split_k = 8}.ToString(), "128x128x32:4:16:split-k=8");
  EXPECT_EQ(MatmulConfig{.cluster_m = 2}.ToString(), "128x128x32:4:16:cluster=2x1");
  EXPECT_EQ(ParseMatmulConfig("128x256x64:3:8:epilogue-warps:cluster=2x1"),
            (MatmulConfig{.block_m = 128, .block_n = 256, .block_k = 64, .stages = 3, .group_m = 8,
                          .epilogue_warps = true, .cluster_m = 2}));
  EXPECT_EQ(ParseMatmulConfig("128x64x64:8:8:split-k=16"),
            (MatmulConfig{.block_m = 128, .block_n = 64, .block_k = 64, .stages = 8, .group_m = 8, .split_k = 16}));
  for (const char* bad : {"", "128x256", "128x256x64", "128x256x64:3:8:1", "axbxc:1", "128x256x64:three",
                          "128x256x64:3:8:pingpong:epilogue-warps", "128x256x64:3:8:split-k=0",
                          "128x256x64:3:8:split-k=two", "128x256x64:3:8:split-k=2:pingpong",
                          "128x256x64:3:8:split-k=2:split-k=2", "128x256x64:3:8:cluster=2",
                          "128x256x64:3:8:cluster=0x1", "128x256x64:3:8:cluster=2x1x1",
                          "128x256x64:3:8:split-k=2:cluster=2x1", "128x256x64:3:8:cluster=2x1:pingpong"}) {
    EXPECT_FALSE(ParseMatmulConfig(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace kiln
