// Attention on a GPU. The fused kernel keeps S in fp32 and rounds P to V's
// dtype for the second product, while the reference interpreter rounds every
// node of the 16-bit graph (S, P...) to 16 bits. So both plans, fused and
// unfused, are compared with the same chain evaluated with fp32
// intermediates (the inputs cast up, the output cast back down), and both
// errors are reported. Random cases: odd lengths, S_q != S_kv, head dims 64
// and 128, causal or not, with or without a bias tensor, rank 3 and 4, bf16
// and f16. Skips without a device.
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "graph/reference.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "tests/attention_graphs.h"
#include "tests/differential.h"

namespace kiln {
namespace {

class AttentionGpuTest : public SharedDeviceTest {
 protected:
  // The relative errors of the fused and unfused plans against the chain
  // with fp32 intermediates; an error text instead where a step failed.
  static std::string Check(const AttentionCase& c, uint64_t seed, double errors[2]) {
    const Graph graph = AttentionGraph(c, c.dtype);
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < graph.inputs().size(); ++i) {
      const Node& node = graph.node(graph.inputs()[i]);
      inputs.push_back(RandomTensor(node.dtype, node.shape, seed + i));
    }
    absl::StatusOr<std::vector<HostTensor>> reference = EvaluateReference(AttentionGraph(c, DType::kF32), inputs);
    if (!reference.ok()) return std::string(reference.status().message());
    static KernelCache* cache = new KernelCache({.use_disk = false});
    for (bool fuse : {true, false}) {
      absl::StatusOr<std::unique_ptr<Executable>> exe =
          Executable::Compile(graph, device(), *cache, {.fuse = fuse, .autotune = false});
      if (!exe.ok()) return std::string(exe.status().message());
      if (fuse && ((*exe)->plan().kernels.size() != 1 || (*exe)->plan().kernels[0].kind != KernelKind::kAttention)) {
        return "the fused plan is not one attention kernel";
      }
      absl::StatusOr<std::vector<HostTensor>> out = (*exe)->RunOnHost(inputs);
      if (!out.ok()) return std::string(out.status().message());
      errors[fuse ? 0 : 1] = RelativeError((*out)[0], (*reference)[0]);
    }
    return "";
  }
};

TEST_F(AttentionGpuTest, FixedShapesMatchTheChainWithFp32Intermediates) {
  const AttentionCase cases[] = {
      {.batch = {2, 4}, .sq = 512, .skv = 512, .d = 128},
      {.batch = {2, 4}, .sq = 512, .skv = 512, .d = 128, .causal = true},
      {.dtype = DType::kF16, .batch = {3}, .sq = 200, .skv = 333, .d = 64, .bias = true},
      {.batch = {1, 2}, .sq = 1000, .skv = 1000, .d = 64, .causal = true, .bias = true},
  };
  for (const AttentionCase& c : cases) {
    double errors[2] = {-1, -1};
    EXPECT_EQ(Check(c, 3, errors), "") << c.Name();
    std::printf("%-44s fused %.3g, unfused %.3g\n", c.Name().c_str(), errors[0], errors[1]);
    EXPECT_LT(errors[0], 1e-2) << c.Name();
    EXPECT_LT(errors[1], 1e-2) << c.Name();
  }
}

TEST_F(AttentionGpuTest, ThirtyRandomChainsMatch) {
  std::mt19937_64 rng(1202);
  for (int i = 0; i < 30; ++i) {
    AttentionCase c;
    c.dtype = rng() % 2 ? DType::kBF16 : DType::kF16;
    c.batch = rng() % 2 ? Dims{1 + static_cast<int64_t>(rng() % 3)} : Dims{2, 1 + static_cast<int64_t>(rng() % 3)};
    c.sq = 1 + static_cast<int64_t>(rng() % 700);
    c.skv = rng() % 3 == 0 ? c.sq : 1 + static_cast<int64_t>(rng() % 700);
    c.d = rng() % 2 ? 64 : 128;
    c.causal = rng() % 2;
    c.bias = rng() % 3 == 0;
    double errors[2] = {-1, -1};
    EXPECT_EQ(Check(c, 100 + i, errors), "") << c.Name();
    std::printf("%-44s fused %.3g, unfused %.3g\n", c.Name().c_str(), errors[0], errors[1]);
    EXPECT_LT(errors[0], 1e-2) << c.Name();
    EXPECT_LT(errors[1], 1e-2) << c.Name();
  }
}

}  // namespace
}  // namespace kiln
