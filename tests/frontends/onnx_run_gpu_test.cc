// `kiln run MODEL.onnx --inputs ... --save-outputs DIR` on a GPU: the saved
// outputs must match onnxruntime's. Skips with a message where there is no
// CUDA device.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/cli/commands.h"
#include "frontends/npy.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "tests/frontends/cli_test_util.h"
#include "tests/onnx_models.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

TEST(OnnxRunGpuTest, KilnRunSavesWhatOnnxruntimeComputes) {
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
  if (!device.ok()) GTEST_SKIP() << "no CUDA device: " << device.status().message();
  device->reset();
  for (const char* model : {"mlp", "gpt2_block_opset17", "layout_ops"}) {
    SCOPED_TRACE(model);
    const OnnxCase c = LoadOnnxCase(model);
    const std::string dir = OnnxModelDir();
    std::vector<std::string> inputs;
    for (NodeId id : c.graph.inputs()) {
      const std::string& name = c.graph.node(id).name;
      inputs.push_back(absl::StrCat(name, "=", dir, "/", model, "/inputs/", name, ".npy"));
    }
    const fs::path out = fs::path(testing::TempDir()) / absl::StrCat("kiln_onnx_run_", getpid(), "_", model);
    const CliResult run = RunKiln({"run", absl::StrCat(dir, "/", model, ".onnx"),
                                   "--inputs=" + absl::StrJoin(inputs, ","), "--save-outputs=" + out.string(),
                                   "--iters=3"});
    ASSERT_EQ(run.status, kExitOk) << run.err;
    for (size_t j = 0; j < c.expected.size(); ++j) {
      const Node& node = c.graph.node(c.graph.outputs()[j]);
      absl::StatusOr<NpyArray> saved = ReadNpyFile((out / absl::StrCat(node.name, ".npy")).string());
      ASSERT_TRUE(saved.ok()) << saved.status();
      absl::StatusOr<HostTensor> tensor = NpyToInput(*saved, node, "saved output");
      ASSERT_TRUE(tensor.ok()) << tensor.status();
      EXPECT_LT(RelativeError(*tensor, c.expected[j]), 2e-5) << node.name;
    }
    fs::remove_all(out);
  }
}

}  // namespace
}  // namespace kiln
