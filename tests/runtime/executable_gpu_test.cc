// End-to-end on a GPU: fused and unfused plans of the seed graphs, of 200
// random pointwise/reduction graphs and of 60 random matmul graphs must match
// the reference interpreter.
// Every test skips with a message where there is no CUDA device.
#include <future>
#include <optional>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "fusion/matmul_schedule.h"
#include "graph/reference.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "tests/matmul_test_graphs.h"

namespace kiln {
namespace {

class ExecutableGpuTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
    if (device.ok()) {
      device_ = device->release();
    } else {
      *skip_reason_ = std::string(device.status().message());
    }
  }
  void SetUp() override {
    if (device_ == nullptr) GTEST_SKIP() << "no CUDA device: " << *skip_reason_;
  }

  // Empty when every output of both plans matches the reference.
  static std::string CheckGraph(const Graph& graph, KernelCache& cache, uint64_t seed,
                                std::optional<DeviceLimits> limits = std::nullopt) {
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < graph.inputs().size(); ++i) {
      const Node& node = graph.node(graph.inputs()[i]);
      inputs.push_back(RandomTensor(node.dtype, node.shape, seed + i));
    }
    absl::StatusOr<std::vector<HostTensor>> reference = EvaluateReference(graph, inputs);
    if (!reference.ok()) return std::string(reference.status().message());
    std::string failures;
    for (bool fuse : {true, false}) {
      absl::StatusOr<std::unique_ptr<Executable>> exe =
          Executable::Compile(graph, *device_, cache, {.fuse = fuse, .limits = limits});
      if (!exe.ok()) return absl::StrCat(fuse ? "fused" : "unfused", ": ", exe.status().message());
      absl::StatusOr<std::vector<HostTensor>> outputs = (*exe)->RunOnHost(inputs);
      if (!outputs.ok()) return absl::StrCat(fuse ? "fused" : "unfused", ": ", outputs.status().message());
      for (size_t j = 0; j < outputs->size(); ++j) {
        const double error = RelativeError((*outputs)[j], (*reference)[j]);
        if (!(error < CheckTolerance(graph))) {
          absl::StrAppend(&failures, fuse ? "fused" : "unfused", " output ", j, " (",
                          graph.node(graph.outputs()[j]).name, ") relative error ", error, "; ");
        }
      }
    }
    return failures;
  }

  static Device* device_;
  static std::string* skip_reason_;
};

Device* ExecutableGpuTest::device_ = nullptr;
std::string* ExecutableGpuTest::skip_reason_ = new std::string;

TEST_F(ExecutableGpuTest, SeedGraphsMatchTheReference) {
  KernelCache cache({.use_disk = false});
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"gelu f32", *GeluNaive(DType::kF32, {1000, 999})},
      {"gelu bf16", *GeluNaive(DType::kBF16, {1024, 4096})},
      {"gelu f16", *GeluNaive(DType::kF16, {3, 5, 7})},
      {"softmax warp", *SoftmaxNaive(DType::kF32, 1000, 1000)},
      {"softmax block", *SoftmaxNaive(DType::kF32, 300, 4100)},
      {"softmax long block", *SoftmaxNaive(DType::kF32, 64, 16384)},
      {"softmax cluster", *SoftmaxNaive(DType::kF32, 32, 131072)},
      {"softmax bf16", *SoftmaxNaive(DType::kBF16, 257, 2000)},
      {"row_sum", *RowSum(DType::kF32, 999, 5000)},
      {"row_sum split", *RowSum(DType::kF32, 8, 1 << 20)},
      {"row_sum warp f16", *RowSum(DType::kF16, 333, 100)},
  };
  for (const auto& [name, graph] : graphs) {
    EXPECT_EQ(CheckGraph(graph, cache, 42), "") << name;
  }
}

TEST_F(ExecutableGpuTest, LoopedSoftmaxWithOnlineRecurrenceMatches) {
  // Force the looped strategy by planning a softmax without clusters on a row
  // that exceeds one block: the device's own limits decide, so use a row far
  // beyond the cluster budget instead.
  KernelCache cache({.use_disk = false});
  EXPECT_EQ(CheckGraph(*SoftmaxNaive(DType::kF32, 16, 1 << 19), cache, 7), "");
}

TEST_F(ExecutableGpuTest, MatmulOnEveryPathMatchesTheReference) {
  KernelCache cache({.use_disk = false});
  std::vector<std::pair<std::string, Graph>> graphs = {
      {"bf16 128x256 tiles", *MatmulRelu(DType::kBF16, 1024, 2048, 512)},
      {"f16 128x256 tiles, partial tiles", *MatmulRelu(DType::kF16, 1000, 1000, 1000)},
      {"f16 smallest tile, long K", *MatmulRelu(DType::kF16, 64, 64, 4096)},
      {"bf16 element copies", *MatmulRelu(DType::kBF16, 100, 64, 20)},
      {"f32 vector copies", *MatmulRelu(DType::kF32, 300, 260, 516)},
      {"f32 element copies", *MatmulRelu(DType::kF32, 33, 17, 9)},
      {"batched bf16 with bias, residual, two outputs", BatchedMatmulWithEpilogue(DType::kBF16, 3, 200, 72, 64)},
  };
  for (const auto& [name, graph] : graphs) {
    EXPECT_EQ(CheckGraph(graph, cache, 5), "") << name;
  }
}

// Random matmuls with random epilogues: every size from 1, aligned and not,
// batched or not, all three float dtypes.
Graph RandomMatmulGraph(std::mt19937_64& rng) {
  const DType dtypes[] = {DType::kF32, DType::kF16, DType::kBF16};
  const DType dtype = dtypes[rng() % 3];
  auto dim = [&] { return static_cast<int64_t>(rng() % 2 ? 8 * (1 + rng() % 40) : 1 + rng() % 300); };
  const int64_t m = dim(), n = dim(), k = dim();
  const bool batched = rng() % 4 == 0;
  auto shape = [&](int64_t rows, int64_t cols) {
    return batched ? Dims{3, rows, cols} : Dims{rows, cols};
  };
  GraphBuilder b;
  Value a = b.Input("a", dtype, shape(m, k));
  Value w = b.Input("w", dtype, shape(k, n));
  Value product = Matmul(a, w);
  std::vector<Value> outputs;
  switch (rng() % 4) {
    case 0: outputs = {product}; break;
    case 1: outputs = {Relu(product)}; break;
    case 2: outputs = {Sigmoid(product + b.Input("bias", dtype, {n})) * 2.0}; break;
    default: outputs = {product, Tanh(product) * b.Input("gate", dtype, shape(m, n))}; break;
  }
  return *b.Build(outputs);
}

TEST_F(ExecutableGpuTest, SixtyRandomMatmulGraphsMatchTheReference) {
  KernelCache cache({.use_disk = false});
  std::mt19937_64 rng(29112026);
  for (int i = 0; i < 60; ++i) {
    const Graph graph = RandomMatmulGraph(rng);
    const std::string failure = CheckGraph(graph, cache, 2000 + i);
    const Node& product = graph.node(graph.outputs()[0]);
    EXPECT_EQ(failure, "") << "graph " << i << " " << DTypeName(product.dtype) << " " << DimsString(product.shape);
  }
}

// Random pointwise/reduction graphs: odd sizes, broadcasts, multi-consumer
// values, all three float dtypes.
Graph RandomGraph(std::mt19937_64& rng) {
  const DType dtypes[] = {DType::kF32, DType::kF16, DType::kBF16};
  const DType dtype = dtypes[rng() % 3];
  const int64_t rows = 1 + static_cast<int64_t>(rng() % 300);
  const int64_t cols = 1 + static_cast<int64_t>(rng() % (rng() % 4 == 0 ? 40000 : 3000));
  GraphBuilder b;
  std::vector<Value> full = {b.Input("x", dtype, {rows, cols})};
  if (rng() % 2) full.push_back(b.Input("z", dtype, {rows, cols}));
  Value col_bias = b.Input("bias", dtype, {cols});
  Value row_scale = b.Input("scale", dtype, {rows, 1});
  std::vector<Value> row_values;
  std::vector<Value> outputs;
  // Half-precision chains stay short: the reference rounds every node to 16
  // bits while fused kernels keep f32 in registers, and the difference grows
  // with depth.
  const int steps = 2 + static_cast<int>(rng() % (dtype == DType::kF32 ? 8 : 3));
  auto pick = [&](const std::vector<Value>& v) { return v[rng() % v.size()]; };
  for (int step = 0; step < steps; ++step) {
    Value a = pick(full);
    Value next;
    switch (rng() % 9) {
      case 0: next = Tanh(a); break;
      case 1: next = Sigmoid(a) * pick(full); break;
      case 2: next = a + col_bias; break;
      case 3: next = a * row_scale; break;
      case 4: next = Max(a, pick(full)) - Relu(a); break;
      case 5: next = Exp(Tanh(a)) + Abs(a); break;
      case 6: {
        // max or min, not mean: a later mean of a - mean(a) is zero up to
        // rounding, where a relative error means nothing.
        Value r = rng() % 2 ? ReduceMax(a, {1}, true) : ReduceMin(a, {1}, true);
        row_values.push_back(r);
        next = a - r;
        break;
      }
      case 7: {
        Value s = rng() % 2 ? ReduceSum(Tanh(a), {1}, true) : ReduceMean(Sigmoid(a), {1}, true);
        row_values.push_back(s);
        next = a * Sigmoid(s);
        break;
      }
      default: next = Sqrt(Abs(a) + 0.25) + Neg(a) * 0.5; break;
    }
    full.push_back(next);
    if (rng() % 4 == 0) outputs.push_back(next);
  }
  outputs.push_back(full.back());
  if (!row_values.empty() && rng() % 2) outputs.push_back(row_values.back());
  std::vector<Value> unique;
  for (const Value& v : outputs) {
    if (std::none_of(unique.begin(), unique.end(), [&](const Value& u) { return u.id() == v.id(); })) {
      unique.push_back(v);
    }
  }
  return *b.Build(unique);
}

TEST_F(ExecutableGpuTest, TwoHundredRandomGraphsMatchTheReference) {
  constexpr int kGraphs = 200;
  KernelCache cache({.use_disk = false});
  std::mt19937_64 rng(20261129);
  std::vector<Graph> graphs;
  for (int i = 0; i < kGraphs; ++i) graphs.push_back(RandomGraph(rng));
  // Graphs are checked on several threads at once: compiles overlap, and
  // Executable and KernelCache are used concurrently as a user might.
  const int workers = std::max(2u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::future<std::vector<std::string>>> futures;
  for (int w = 0; w < workers; ++w) {
    futures.push_back(std::async(std::launch::async, [&, w] {
      std::vector<std::string> failures;
      for (int i = w; i < kGraphs; i += workers) {
        const std::string failure = CheckGraph(graphs[i], cache, 1000 + i);
        if (!failure.empty()) failures.push_back(absl::StrCat("graph ", i, ": ", failure));
      }
      return failures;
    }));
  }
  int failed = 0;
  for (auto& future : futures) {
    for (const std::string& failure : future.get()) {
      ADD_FAILURE() << failure;
      ++failed;
    }
  }
  EXPECT_EQ(failed, 0);
}

}  // namespace
}  // namespace kiln
