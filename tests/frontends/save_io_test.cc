// --save-io's files: raw tensors named by role and position (never by node
// name), and a manifest with escaped names.
#include "frontends/cli/save_io.h"

#include "frontends/builder.h"
#include "gtest/gtest.h"
#include "graph/tensor_bytes.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

using SaveIoTest = ScratchTest;

TEST_F(SaveIoTest, TensorsByRoleAndAManifest) {
  GraphBuilder b;
  Value x = b.Input("../x", DType::kF32, {2, 3});
  Value y = b.Input("y", DType::kBF16, {3});
  const Graph graph = *b.Build({(x + Cast(y, DType::kF32)).Named("out/sum")});
  const std::vector<HostTensor> inputs = {RandomTensor(DType::kF32, {2, 3}, 1), RandomTensor(DType::kBF16, {3}, 2)};
  const std::vector<HostTensor> outputs = {RandomTensor(DType::kF32, {2, 3}, 3)};
  ASSERT_TRUE(SaveIo(Path("io"), graph, inputs, outputs).ok());
  EXPECT_EQ(ReadTextFile(Path("io/input0.bin")), EncodeTensor(inputs[0]));
  EXPECT_EQ(ReadTextFile(Path("io/input1.bin")), EncodeTensor(inputs[1]));
  EXPECT_EQ(ReadTextFile(Path("io/output0.bin")), EncodeTensor(outputs[0]));
  EXPECT_EQ(ReadTextFile(Path("io/io.json")),
            "{\n"
            "  \"tensors\": [\n"
            "    {\"name\": \"../x\", \"file\": \"input0.bin\", \"dtype\": \"f32\", \"shape\": [2, 3], \"role\": \"input\"},\n"
            "    {\"name\": \"y\", \"file\": \"input1.bin\", \"dtype\": \"bf16\", \"shape\": [3], \"role\": \"input\"},\n"
            "    {\"name\": \"out/sum\", \"file\": \"output0.bin\", \"dtype\": \"f32\", \"shape\": [2, 3], \"role\": "
            "\"output\"}\n"
            "  ]\n"
            "}\n");
  EXPECT_FALSE(std::filesystem::exists(Path("x")));

  Write("file", "");
  const absl::Status blocked = SaveIo(Path("file/io"), graph, inputs, outputs);
  EXPECT_EQ(blocked.code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace kiln
