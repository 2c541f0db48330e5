// The ONNX test models compiled and run on a GPU, fused and unfused, on the
// oracle's inputs: every output must match onnxruntime's (CPU) result and
// kiln's reference. Skips with a message where there is no CUDA device.
#include <string>

#include "graph/reference.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "tests/onnx_models.h"

namespace kiln {
namespace {

class OnnxModelsGpuTest : public testing::TestWithParam<const char*> {
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
  static Device* device_;
  static std::string* skip_reason_;
};

Device* OnnxModelsGpuTest::device_ = nullptr;
std::string* OnnxModelsGpuTest::skip_reason_ = new std::string;

TEST_P(OnnxModelsGpuTest, MatchesOnnxruntime) {
  const OnnxCase c = LoadOnnxCase(GetParam());
  ASSERT_FALSE(c.expected.empty());
  absl::StatusOr<std::vector<HostTensor>> reference = EvaluateReference(c.graph, c.inputs);
  ASSERT_TRUE(reference.ok()) << reference.status();
  KernelCache cache({.use_disk = false});
  for (bool fuse : {true, false}) {
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(c.graph, *device_, cache, {.fuse = fuse});
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<std::vector<HostTensor>> out = (*exe)->RunOnHost(c.inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    for (size_t j = 0; j < out->size(); ++j) {
      const std::string name = c.graph.node(c.graph.outputs()[j]).name;
      // Two implementations, each within 1e-5 of the exact f32 result.
      EXPECT_LT(RelativeError((*out)[j], c.expected[j]), 2e-5) << (fuse ? "fused " : "unfused ") << name;
      EXPECT_LT(RelativeError((*out)[j], (*reference)[j]), CheckTolerance(c.graph)) << (fuse ? "fused " : "unfused ") << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, OnnxModelsGpuTest,
                         testing::Values("mlp", "mlp_external", "gpt2_block_opset13", "gpt2_block_opset17",
                                         "gpt2_block_opset18", "elementwise_ops", "layout_ops"),
                         [](const testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace kiln
