// How planning time grows with graph size: random graphs of 1k, 10k and 100k
// nodes (elementwise chains over a few shapes, with row reductions and
// broadcasts mixed in), planned with PlanFusion.
//
//   build/bench/planner_benchmark
#include <random>

#include "benchmark/benchmark.h"
#include "frontends/builder.h"
#include "fusion/planner.h"

namespace kiln {
namespace {

Graph RandomGraph(int nodes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  GraphBuilder b;
  std::vector<Value> values = {b.Input("x", DType::kF32, {256, 1024}), b.Input("z", DType::kF32, {256, 1024})};
  Value bias = b.Input("bias", DType::kF32, {1024});
  while (b.graph().size() < nodes) {
    // Mostly recent values, sometimes old ones: long chains plus far-reaching edges.
    auto pick = [&] {
      const size_t n = values.size();
      return values[rng() % 4 == 0 ? rng() % n : n - 1 - rng() % std::min<size_t>(n, 8)];
    };
    Value a = pick();
    switch (rng() % 6) {
      case 0: values.push_back(Tanh(a)); break;
      case 1: values.push_back(a * pick()); break;
      case 2: values.push_back(a + bias); break;
      case 3: values.push_back(a - ReduceMax(a, {1}, true)); break;
      case 4: values.push_back(Exp(a) + pick()); break;
      default: values.push_back(Relu(a)); break;
    }
  }
  return *b.Build({values.back()});
}

void BM_PlanFusion(benchmark::State& state) {
  const Graph graph = RandomGraph(static_cast<int>(state.range(0)), 7);
  for (auto _ : state) {
    absl::StatusOr<Plan> plan = PlanFusion(graph, DeviceLimits{});
    benchmark::DoNotOptimize(plan);
  }
  state.counters["nodes"] = graph.size();
  state.SetComplexityN(graph.size());
}
BENCHMARK(BM_PlanFusion)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->Complexity();

}  // namespace
}  // namespace kiln

BENCHMARK_MAIN();
