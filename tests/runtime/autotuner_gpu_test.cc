// Tuning on a GPU: the first compile of a matmul kernel times its candidates
// and keeps the winner; a second compile, and a second process (a fresh
// TuningCache on the same folder), take it from the cache without timing;
// the tuned kernel still matches the reference. Skips without a device.
#include <chrono>
#include <filesystem>

#include "frontends/workloads.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "tests/differential.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

class AutotunerGpuTest : public SharedDeviceTest {
 protected:
  void SetUp() override {
    SharedDeviceTest::SetUp();
    dir_ = fs::temp_directory_path() / ("kiln_autotuner_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AutotunerGpuTest, TunesOnceAndReusesTheChoiceAcrossProcesses) {
  const Graph graph = *MatmulRelu(DType::kBF16, 2048, 2048, 1024);
  KernelCache kernels({.use_disk = false});
  std::vector<std::string> progress;
  TuningCache first({.dir = dir_.string()});
  absl::StatusOr<std::unique_ptr<Executable>> tuned = Executable::Compile(
      graph, device(), kernels,
      {.tuning_cache = &first, .tuning = {.progress = [&](absl::string_view line) { progress.emplace_back(line); }}});
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  ASSERT_EQ((*tuned)->tuning().size(), 1u);
  const TuningReport& report = (*tuned)->tuning()[0];
  EXPECT_EQ(report.source, "tuned");
  EXPECT_GE(report.candidates, 6);
  EXPECT_GT(report.best_us, 0);
  EXPECT_GE(report.heuristic_us, report.best_us);
  EXPECT_EQ((*tuned)->plan().kernels[0].matmul().config, report.config);
  EXPECT_EQ((*tuned)->plan().kernels[0].matmul().config_source, "tuned");
  EXPECT_GE(progress.size(), static_cast<size_t>(report.candidates) + 2);
  EXPECT_EQ(first.stats().stores, 1);
  std::printf("tuned %s in %.2f s: %s, %.1f us (heuristic %.1f us)\n", report.kernel.c_str(), report.seconds,
              report.config.ToString().c_str(), report.best_us, report.heuristic_us);

  // The tuned kernel computes the product.
  std::vector<HostTensor> inputs = {RandomTensor(DType::kBF16, {2048, 1024}, 1), RandomTensor(DType::kBF16, {1024, 2048}, 2)};
  absl::StatusOr<std::vector<HostTensor>> out = (*tuned)->RunOnHost(inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_LT(RelativeError((*out)[0], (*EvaluateReference(graph, inputs))[0]), CheckTolerance(graph));

  // Same process: from memory. Another process: from disk, with no timing.
  for (TuningCache* cache : {&first, new TuningCache({.dir = dir_.string()})}) {
    absl::StatusOr<std::unique_ptr<Executable>> again =
        Executable::Compile(graph, device(), kernels, {.tuning_cache = cache});
    ASSERT_TRUE(again.ok()) << again.status();
    ASSERT_EQ((*again)->tuning().size(), 1u);
    EXPECT_EQ((*again)->tuning()[0].source, "tuning cache");
    EXPECT_EQ((*again)->tuning()[0].candidates, 0);
    EXPECT_EQ((*again)->tuning()[0].config, report.config);
    EXPECT_EQ((*again)->plan().kernels[0].matmul().config_source, "tuning cache");
    std::printf("warm from %s: %.2f ms\n", cache == &first ? "memory" : "disk", (*again)->tuning()[0].seconds * 1e3);
  }
}

TEST_F(AutotunerGpuTest, OffKeepsTheHeuristicAndFixedConfigsAreNotTuned) {
  const Graph graph = *MatmulRelu(DType::kF16, 512, 512, 512);
  KernelCache kernels({.use_disk = false});
  TuningCache cache({.dir = dir_.string()});
  absl::StatusOr<std::unique_ptr<Executable>> off =
      Executable::Compile(graph, device(), kernels, {.autotune = false, .tuning_cache = &cache});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_TRUE((*off)->tuning().empty());
  EXPECT_EQ((*off)->plan().kernels[0].matmul().config_source, "heuristic");
  const MatmulConfig fixed{.block_m = 128, .block_n = 128, .block_k = 64, .stages = 4, .group_m = 8};
  absl::StatusOr<std::unique_ptr<Executable>> asked =
      Executable::Compile(graph, device(), kernels, {.matmul_config = fixed, .tuning_cache = &cache});
  ASSERT_TRUE(asked.ok()) << asked.status();
  EXPECT_TRUE((*asked)->tuning().empty());
  EXPECT_EQ((*asked)->plan().kernels[0].matmul().config, fixed);
  EXPECT_EQ(cache.stats().stores, 0);
}

}  // namespace
}  // namespace kiln
