// The GPU differential suite: 1000 random graphs (tests/random_graphs.h) of
// every kernel kind and dtype, attention included, each run fused and
// unfused against the reference interpreter, compiled and run from several threads at once.
// KILN_DIFFERENTIAL_GRAPHS=N runs the first N instead (the compute-sanitizer
// script runs fewer); the counts are printed at the end.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "tests/differential.h"
#include "tests/random_graphs.h"

namespace kiln {
namespace {

class DifferentialGpuTest : public SharedDeviceTest {};

int GraphCount() {
  const char* text = std::getenv("KILN_DIFFERENTIAL_GRAPHS");
  int count = kDifferentialGraphs;
  if (text != nullptr && (!absl::SimpleAtoi(text, &count) || count < 1)) {
    ADD_FAILURE() << "KILN_DIFFERENTIAL_GRAPHS=\"" << text << "\" is not a positive count";
    return 0;
  }
  return count;
}

TEST_F(DifferentialGpuTest, RandomGraphsMatchTheReference) {
  const int count = GraphCount();
  std::mt19937_64 rng(kDifferentialSeed);
  std::vector<RandomCase> cases;
  for (int i = 0; i < count; ++i) cases.push_back(RandomDifferentialGraph(rng, i));
  KernelCache cache({.use_disk = false});
  // Compiles overlap, and Executable and KernelCache are used concurrently as
  // a user might.
  const int workers = static_cast<int>(std::max(2u, std::min(16u, std::thread::hardware_concurrency())));
  struct WorkerResult {
    std::vector<std::string> failures;
    CheckCounts counts;
  };
  std::vector<std::future<WorkerResult>> futures;
  for (int w = 0; w < workers; ++w) {
    futures.push_back(std::async(std::launch::async, [&, w] {
      WorkerResult result;
      for (int i = w; i < count; i += workers) {
        const std::string failure =
            CheckAgainstReference(cases[i].graph, device(), cache, 1000 + i,
                                  {.counts = &result.counts,
                                   .reference_graph = cases[i].reference ? &*cases[i].reference : nullptr});
        if (!failure.empty()) {
          result.failures.push_back(absl::StrCat("graph ", i, " (", FamilyName(cases[i].family), "): ", failure));
        }
      }
      return result;
    }));
  }
  int failed = 0;
  CheckCounts total;
  for (auto& future : futures) {
    WorkerResult result = future.get();
    for (const std::string& failure : result.failures) ADD_FAILURE() << failure;
    failed += static_cast<int>(result.failures.size());
    total.fused_kernels += result.counts.fused_kernels;
    total.unfused_kernels += result.counts.unfused_kernels;
  }
  std::map<GraphFamily, int> families;
  std::map<DType, int> input_dtypes;
  for (const RandomCase& c : cases) {
    ++families[c.family];
    for (NodeId input : c.graph.inputs()) ++input_dtypes[c.graph.node(input).dtype];
  }
  std::string summary = absl::StrCat("differential: ", count, " graphs, ", failed, " failed; ",
                                     total.fused_kernels, " fused and ", total.unfused_kernels,
                                     " unfused kernels run; ", cache.stats().compiles, " compiles\n  families:");
  for (const auto& [family, n] : families) absl::StrAppend(&summary, " ", FamilyName(family), " ", n);
  absl::StrAppend(&summary, "\n  inputs by dtype:");
  for (const auto& [dtype, n] : input_dtypes) absl::StrAppend(&summary, " ", DTypeName(dtype), " ", n);
  std::printf("%s\n", summary.c_str());
  EXPECT_EQ(failed, 0);
}

// i32 arithmetic saturates at the limits in the reference; the kernels must
// not wrap.
TEST_F(DifferentialGpuTest, IntegerLimitsSaturateLikeTheReference) {
  GraphBuilder b;
  Value n = b.Input("n", DType::kI32, {6});
  Value m = b.Input("m", DType::kI32, {6});
  const Graph graph = *b.Build({(n + m).Named("sum"), (n - m).Named("difference"), (n * m).Named("product"),
                                Neg(n).Named("negated"), Abs(n).Named("magnitude")});
  constexpr double kMax = std::numeric_limits<int32_t>::max();
  constexpr double kMin = std::numeric_limits<int32_t>::min();
  const std::vector<HostTensor> inputs = {
      {.dtype = DType::kI32, .shape = {6}, .data = {kMax, kMin, kMax, kMin, 46341, -7}},
      {.dtype = DType::kI32, .shape = {6}, .data = {1, -1, kMax, kMax, 46341, 3}}};
  const std::vector<HostTensor> reference = *EvaluateReference(graph, inputs);
  KernelCache cache({.use_disk = false});
  for (bool fuse : {true, false}) {
    absl::StatusOr<std::unique_ptr<Executable>> exe =
        Executable::Compile(graph, device(), cache, {.fuse = fuse, .autotune = false});
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<std::vector<HostTensor>> outputs = (*exe)->RunOnHost(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    for (size_t j = 0; j < reference.size(); ++j) {
      EXPECT_EQ((*outputs)[j].data, reference[j].data) << graph.node(graph.outputs()[j]).name;
    }
  }
}

}  // namespace
}  // namespace kiln
