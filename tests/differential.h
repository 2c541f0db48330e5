// The GPU differential check shared by the GPU suites: a graph runs fused and
// unfused on fresh random inputs (outputs poisoned with NaN first) and every
// output must match the reference interpreter within CheckTolerance.
//
//   class MySuite : public SharedDeviceTest {};
//   TEST_F(MySuite, Matches) {
//     KernelCache cache({.use_disk = false});
//     EXPECT_EQ(CheckAgainstReference(graph, device(), cache, /*seed=*/42), "");
//   }
#ifndef KILN_TESTS_DIFFERENTIAL_H_
#define KILN_TESTS_DIFFERENTIAL_H_

#include <algorithm>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fusion/plan_tolerance.h"
#include "graph/reference.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"

namespace kiln {

// Opens device 0 once for the whole suite (compiles and runs share it), or
// skips every test of the suite on a machine without one.
class SharedDeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (device_ != nullptr || !skip_reason_.empty()) return;
    absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
    if (device.ok()) {
      device_ = device->release();  // lives for the process, past every buffer and kernel
    } else {
      skip_reason_ = std::string(device.status().message());
    }
  }
  void SetUp() override {
    if (device_ == nullptr) GTEST_SKIP() << "no CUDA device: " << skip_reason_;
  }
  static const Device& device() { return *device_; }

 private:
  static inline Device* device_ = nullptr;
  static inline std::string skip_reason_;
};

// What one check ran, for a suite's summary.
struct CheckCounts {
  int fused_kernels = 0;
  int unfused_kernels = 0;
};

// How CheckAgainstReference runs a graph:
//   limits: plan for these rather than the device's own;
//   counts: where to add the kernels run;
//   matmul_config: run every matmul kernel of both plans with this config;
//   reference_graph: what the reference evaluates instead of the graph (same
//     inputs and outputs, e.g. with fp32 intermediates);
//   plan: plan options (tf32), which come with their tolerance;
//   fused_only: leave the unfused plan out, e.g. where matmul_config is a
//     candidate of the fused plan's matmul, which the unfused one may not fit;
//   runs: how often each executable runs; every run after the first must
//     give the first's outputs bit for bit (a kernel leaves nothing behind
//     that changes the next run, such as split-K arrival counters).
struct CheckOptions {
  std::optional<DeviceLimits> limits;
  CheckCounts* counts = nullptr;
  std::optional<MatmulConfig> matmul_config;
  const Graph* reference_graph = nullptr;
  PlanOptions plan;
  bool fused_only = false;
  int runs = 1;
};

// Empty when every output of both plans matches the reference; otherwise one
// line per mismatch or error.
inline std::string CheckAgainstReference(const Graph& graph, const Device& device, KernelCache& cache,
                                         uint64_t seed, const CheckOptions& options = {}) {
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const Node& node = graph.node(graph.inputs()[i]);
    inputs.push_back(RandomTensor(node.dtype, node.shape, seed + i));
  }
  absl::StatusOr<std::vector<HostTensor>> reference =
      EvaluateReference(options.reference_graph != nullptr ? *options.reference_graph : graph, inputs);
  if (!reference.ok()) return std::string(reference.status().message());
  std::string failures;
  for (bool fuse : {true, false}) {
    if (!fuse && options.fused_only) break;
    absl::StatusOr<std::unique_ptr<Executable>> exe =
        Executable::Compile(graph, device, cache,
                            {.fuse = fuse,
                             .plan = options.plan,
                             .limits = options.limits,
                             .matmul_config = options.matmul_config,
                             .autotune = false});
    if (!exe.ok()) return absl::StrCat(fuse ? "fused" : "unfused", ": ", exe.status().message());
    if (options.counts != nullptr) {
      (fuse ? options.counts->fused_kernels : options.counts->unfused_kernels) += (*exe)->plan().kernels.size();
    }
    absl::StatusOr<std::vector<HostTensor>> outputs = (*exe)->RunOnHost(inputs);
    if (!outputs.ok()) return absl::StrCat(fuse ? "fused" : "unfused", ": ", outputs.status().message());
    for (int run = 2; run <= options.runs; ++run) {
      absl::StatusOr<std::vector<HostTensor>> again = (*exe)->RunOnHost(inputs);
      if (!again.ok()) return absl::StrCat(fuse ? "fused" : "unfused", " run ", run, ": ", again.status().message());
      for (size_t j = 0; j < again->size(); ++j) {
        const std::vector<double>& first = (*outputs)[j].data;
        const std::vector<double>& later = (*again)[j].data;
        if (first.size() != later.size() ||
            std::memcmp(first.data(), later.data(), first.size() * sizeof(double)) != 0) {
          absl::StrAppend(&failures, fuse ? "fused" : "unfused", " output ", j, " (",
                          graph.node(graph.outputs()[j]).name, ") of run ", run, " differs from run 1; ");
        }
      }
    }
    for (size_t j = 0; j < outputs->size(); ++j) {
      const double error = RelativeError((*outputs)[j], (*reference)[j]);
      if (!(error < PlanCheckTolerance(graph, (*exe)->plan()))) {
        absl::StrAppend(&failures, fuse ? "fused" : "unfused", " output ", j, " (",
                        graph.node(graph.outputs()[j]).name, ") relative error ", error, "; ");
      }
    }
  }
  return failures;
}

// check(i) for every i in [0, count), on up to 16 threads that share the
// device and the caches as a user's threads would, so that hundreds of
// compiles overlap. The results in order of i: empty where the check passed.
template <typename Check>
std::vector<std::string> RunChecksInParallel(int count, const Check& check) {
  const int workers = static_cast<int>(std::max(2u, std::min(16u, std::thread::hardware_concurrency())));
  std::vector<std::string> results(count);
  std::vector<std::future<void>> futures;
  for (int w = 0; w < workers; ++w) {
    futures.push_back(std::async(std::launch::async, [&, w] {
      for (int i = w; i < count; i += workers) results[i] = check(i);
    }));
  }
  for (std::future<void>& future : futures) future.get();
  return results;
}

}  // namespace kiln

#endif  // KILN_TESTS_DIFFERENTIAL_H_
