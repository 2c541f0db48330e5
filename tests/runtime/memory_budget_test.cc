// Memory budgets: a graph whose buffers do not fit in free device or host
// memory is refused before anything is allocated, naming the tensor and its
// bytes. Artificially small limits (KILN_*_MEMORY_LIMIT) make it testable.
#include "runtime/memory_budget.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "frontends/builder.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "runtime/executable.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

Node TensorNode(std::string name, OpKind op, DType dtype, Dims shape) {
  return Node{.name = std::move(name), .op = op, .operands = {}, .dtype = dtype, .shape = std::move(shape)};
}

void ExpectExhausted(const absl::Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_EQ(status.message(), message);
}

TEST(MemoryBudgetTest, TakesUpToWhatIsAvailableAndNamesTheTensorPastIt) {
  MemoryBudget budget("device", 6 << 20, "KILN_DEVICE_MEMORY_LIMIT");
  const Node x = TensorNode("x", OpKind::kInput, DType::kF32, {1024, 1024});
  const Node y = TensorNode("y", OpKind::kExp, DType::kF32, {1024, 1024});
  EXPECT_TRUE(budget.Take(x, 4 << 20).ok());
  EXPECT_TRUE(budget.Take(x, 4 << 20, 2 << 20).ok());  // a workspace tensor that adds 2 MiB
  EXPECT_EQ(budget.taken(), 6 << 20);
  ExpectExhausted(budget.Take(y, 4 << 20),
                  "not enough device memory for node \"y\" (exp), f32[1024,1024] of 4194304 bytes: the graph's "
                  "buffers would take 10485760 bytes, and 6291456 are available (KILN_DEVICE_MEMORY_LIMIT)");
  EXPECT_EQ(budget.taken(), 6 << 20);  // a refused buffer is not counted
  ExpectExhausted(budget.Take(y, std::numeric_limits<int64_t>::max()),
                  "not enough device memory for node \"y\" (exp), f32[1024,1024] of 9223372036854775807 bytes: the "
                  "graph's buffers would take more than 2^63 bytes, and 6291456 are available "
                  "(KILN_DEVICE_MEMORY_LIMIT)");
}

TEST(MemoryBudgetTest, LimitsComeFromTheEnvironment) {
  EXPECT_FALSE(MemoryLimitFromEnv("KILN_TEST_UNSET_LIMIT")->has_value());
  {
    ScopedEnv env("KILN_TEST_LIMIT", "12345");
    EXPECT_EQ(**MemoryLimitFromEnv("KILN_TEST_LIMIT"), 12345);
  }
  for (const char* bad : {"abc", "-5", "1e9", ""}) {
    ScopedEnv env("KILN_TEST_LIMIT", bad);
    const absl::Status s = MemoryLimitFromEnv("KILN_TEST_LIMIT").status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(s.message(), absl::StrCat("KILN_TEST_LIMIT=\"", bad, "\" is not a byte count (a non-negative integer)"));
  }
}

TEST(MemoryBudgetTest, HostBudgetIsWhatTheSystemHasOrTheLimit) {
  absl::StatusOr<MemoryBudget> host = MemoryBudget::ForHost();
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_GT(host->available(), 0);
  ScopedEnv env("KILN_HOST_MEMORY_LIMIT", "4096");
  host = MemoryBudget::ForHost();
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ(host->available(), 4096);
  ExpectExhausted(host->Take(TensorNode("y", OpKind::kExp, DType::kBF16, {4096}), 8192),
                  "not enough host memory for node \"y\" (exp), bf16[4096] of 8192 bytes: the graph's buffers "
                  "would take 8192 bytes, and 4096 are available (KILN_HOST_MEMORY_LIMIT)");
}

class MemoryBudgetGpuTest : public runtime_testing::GpuTest {
 protected:
  std::unique_ptr<Executable> Compile(const Graph& graph) {
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, *device_, cache_, {.fuse = true});
    EXPECT_TRUE(exe.ok()) << exe.status();
    return exe.ok() ? *std::move(exe) : nullptr;
  }

  KernelCache cache_{{.use_disk = false}};
};

TEST_F(MemoryBudgetGpuTest, DeviceBudgetIsTheFreeMemory) {
  absl::StatusOr<MemoryBudget> budget = MemoryBudget::ForDevice();
  ASSERT_TRUE(budget.ok()) << budget.status();
  EXPECT_GT(budget->available(), 0);
}

TEST_F(MemoryBudgetGpuTest, InputsPastTheDeviceLimitAreRefused) {
  GraphBuilder b;
  const Graph graph = *b.Build({Exp(b.Input("x", DType::kF32, {1024, 1024})).Named("y")});
  std::unique_ptr<Executable> exe = Compile(graph);
  ASSERT_NE(exe, nullptr);
  ScopedEnv env("KILN_DEVICE_MEMORY_LIMIT", "1048576");
  ExpectExhausted(exe->RunOnHost({RandomTensor(DType::kF32, {1024, 1024}, 1)}).status(),
                  "not enough device memory for node \"x\" (input), f32[1024,1024] of 4194304 bytes: the graph's "
                  "buffers would take 4194304 bytes, and 1048576 are available (KILN_DEVICE_MEMORY_LIMIT)");
}

TEST_F(MemoryBudgetGpuTest, IntermediatesPastTheDeviceLimitAreRefused) {
  // e is materialized for the transpose, in the workspace.
  GraphBuilder b;
  const Graph graph = *b.Build({Transpose(Exp(b.Input("x", DType::kF32, {256, 256})).Named("e"), {1, 0}).Named("t")});
  std::unique_ptr<Executable> exe = Compile(graph);
  ASSERT_NE(exe, nullptr);
  ScopedEnv env("KILN_DEVICE_MEMORY_LIMIT", "600000");
  ExpectExhausted(exe->RunOnHost({RandomTensor(DType::kF32, {256, 256}, 1)}).status(),
                  "not enough device memory for node \"e\" (exp), f32[256,256] of 262144 bytes: the graph's "
                  "buffers would take 786432 bytes, and 600000 are available (KILN_DEVICE_MEMORY_LIMIT)");
  // Run on the caller's buffers allocates only the workspace, and refuses it alike.
  ScopedEnv tiny("KILN_DEVICE_MEMORY_LIMIT", "1000");
  absl::StatusOr<DeviceBuffer> x = DeviceBuffer::Allocate(256 * 256 * 4);
  absl::StatusOr<DeviceBuffer> t = DeviceBuffer::Allocate(256 * 256 * 4);
  ASSERT_TRUE(x.ok() && t.ok());
  ExpectExhausted(exe->Run({x->ptr()}, {t->ptr()}),
                  "not enough device memory for node \"e\" (exp), f32[256,256] of 262144 bytes: the graph's "
                  "buffers would take 262144 bytes, and 1000 are available (KILN_DEVICE_MEMORY_LIMIT)");
}

TEST_F(MemoryBudgetGpuTest, OutputsPastTheHostLimitAreRefused) {
  GraphBuilder b;
  const Graph graph = *b.Build({Exp(b.Input("x", DType::kBF16, {1024, 1024})).Named("y")});
  std::unique_ptr<Executable> exe = Compile(graph);
  ASSERT_NE(exe, nullptr);
  ScopedEnv env("KILN_HOST_MEMORY_LIMIT", "4194304");
  ExpectExhausted(exe->RunOnHost({RandomTensor(DType::kBF16, {1024, 1024}, 1)}).status(),
                  "not enough host memory for node \"y\" (exp), bf16[1024,1024] of 8388608 bytes: the graph's "
                  "buffers would take 8388608 bytes, and 4194304 are available (KILN_HOST_MEMORY_LIMIT)");
}

}  // namespace
}  // namespace kiln
