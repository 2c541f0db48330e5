// Which constants get device memory (decided without a device), and, on a
// GPU, that they are uploaded once and read by every Run.
#include "runtime/constant_buffers.h"

#include "frontends/workloads.h"
#include "fusion/planner.h"
#include "gmock/gmock.h"
#include "graph/reference.h"
#include "graph/tensor_bytes.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "tests/constant_test_graphs.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> ConstantsInMemory(const Graph& graph, bool fuse) {
  absl::StatusOr<Plan> plan = fuse ? PlanFusion(graph, DeviceLimits{}) : PlanUnfused(graph, DeviceLimits{});
  EXPECT_TRUE(plan.ok()) << plan.status();
  std::vector<std::string> names;
  for (NodeId id : ConstantBuffers::ConstantsInMemory(graph, *plan)) names.push_back(graph.node(id).name);
  return names;
}

TEST(ConstantBuffersTest, TensorConstantsGetMemoryAndImmediatesDoNot) {
  const Graph graph = DenseLayerWithWeights(DType::kBF16, 64, 96, 32);
  EXPECT_THAT(ConstantsInMemory(graph, true), ElementsAre("w", "bias", "mask"));
  EXPECT_THAT(ConstantsInMemory(graph, false), ElementsAre("w", "bias", "mask"));
}

TEST(ConstantBuffersTest, ConstantsReadThroughViewsGetMemory) {
  EXPECT_THAT(ConstantsInMemory(ReshapedConstants(), true), ElementsAre("constant_1", "constant_3"));
}

// A graph with no tensor constants uploads nothing, so this runs without a
// device; it also moves the result out of Upload, which must not hold its
// own lock while the move takes it.
TEST(ConstantBuffersTest, NothingToUploadNeedsNoDevice) {
  const Graph graph = *GeluNaive(DType::kF32, {64, 64});
  absl::StatusOr<ConstantBuffers> buffers = ConstantBuffers::Upload(graph, *PlanFusion(graph, DeviceLimits{}));
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  EXPECT_EQ(buffers->uploaded_bytes(), 0);
  ConstantBuffers moved = *std::move(buffers);
  EXPECT_EQ(moved.uploaded_bytes(), 0);
}

TEST(ConstantBuffersTest, ConstantOutputsGetMemory) {
  EXPECT_THAT(ConstantsInMemory(ConstantOutputs(), true), ElementsAre("w", "s"));
}

class ConstantBuffersGpuTest : public ::testing::Test {
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

  // Runs `graph` fused and unfused, twice each on fresh inputs, against the reference.
  static void ExpectMatchesReference(const Graph& graph) {
    KernelCache cache({.use_disk = false});
    for (bool fuse : {true, false}) {
      absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, *device_, cache, {.fuse = fuse});
      ASSERT_TRUE(exe.ok()) << exe.status();
      for (uint64_t seed : {1, 2}) {
        std::vector<HostTensor> inputs;
        for (NodeId id : graph.inputs()) {
          inputs.push_back(RandomTensor(graph.node(id).dtype, graph.node(id).shape, seed + inputs.size()));
        }
        absl::StatusOr<std::vector<HostTensor>> out = (*exe)->RunOnHost(inputs);
        ASSERT_TRUE(out.ok()) << out.status();
        absl::StatusOr<std::vector<HostTensor>> ref = EvaluateReference(graph, inputs);
        ASSERT_TRUE(ref.ok()) << ref.status();
        for (size_t j = 0; j < out->size(); ++j) {
          EXPECT_LT(RelativeError((*out)[j], (*ref)[j]), CheckTolerance(graph))
              << (fuse ? "fused" : "unfused") << " output " << graph.node(graph.outputs()[j]).name;
        }
      }
    }
  }

  static Device* device_;
  static std::string* skip_reason_;
};

Device* ConstantBuffersGpuTest::device_ = nullptr;
std::string* ConstantBuffersGpuTest::skip_reason_ = new std::string;

TEST_F(ConstantBuffersGpuTest, WeightsBiasesAndMasksMatchTheReference) {
  ExpectMatchesReference(DenseLayerWithWeights(DType::kBF16, 200, 96, 64));
  ExpectMatchesReference(DenseLayerWithWeights(DType::kF32, 33, 17, 9));
}

TEST_F(ConstantBuffersGpuTest, ReshapedConstantsAreReadFromTheirUpload) { ExpectMatchesReference(ReshapedConstants()); }

TEST_F(ConstantBuffersGpuTest, ConstantOutputsAreCopiedFromTheirUpload) { ExpectMatchesReference(ConstantOutputs()); }

TEST_F(ConstantBuffersGpuTest, SlicesMatchTheReference) {
  ExpectMatchesReference(SplitAndBroadcast(DType::kF32, 1000, 96));
  ExpectMatchesReference(SplitAndBroadcast(DType::kBF16, 7, 5));
}

TEST_F(ConstantBuffersGpuTest, UploadedOnceAndReplaceableByTheCallersMemory) {
  const Graph graph = DenseLayerWithWeights(DType::kF32, 64, 32, 16);
  KernelCache cache({.use_disk = false});
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, *device_, cache, {});
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ((*exe)->constants().uploaded_bytes(), (16 * 32 + 32) * 4 + 64 * 32);

  // Zero weights in the caller's memory: every output becomes select(mask, relu(bias), 0).
  const NodeId w = *graph.FindNode("w");
  const std::string zeros(16 * 32 * 4, '\0');
  absl::StatusOr<DeviceBuffer> mine = DeviceBuffer::FromHost(zeros.data(), static_cast<int64_t>(zeros.size()));
  ASSERT_TRUE(mine.ok()) << mine.status();
  ASSERT_TRUE((*exe)->UseConstantMemory(w, mine->ptr()).ok());
  EXPECT_EQ((*exe)->constants().uploaded_bytes(), 32 * 4 + 64 * 32);
  const HostTensor x = RandomTensor(DType::kF32, {64, 16}, 3);
  absl::StatusOr<std::vector<HostTensor>> out = (*exe)->RunOnHost({x});
  ASSERT_TRUE(out.ok()) << out.status();
  const HostTensor bias = DecodeTensor(*graph.node(*graph.FindNode("bias")).data, DType::kF32, {32});
  const HostTensor mask = DecodeTensor(*graph.node(*graph.FindNode("mask")).data, DType::kBool, {64, 32});
  for (int64_t i = 0; i < 64 * 32; ++i) {
    const double expected = mask.data[i] != 0 ? std::max(bias.data[i % 32], 0.0) : 0.0;
    ASSERT_EQ((*out)[0].data[i], expected) << "element " << i;
  }

  ExpectInvalid((*exe)->UseConstantMemory(w, mine->ptr() + 4),
                "device pointer for node \"w\" (constant) is null or not 16-byte aligned");
  ExpectInvalid((*exe)->UseConstantMemory(*graph.FindNode("x"), mine->ptr()),
                "node id 0 is not a constant of the graph");
  ExpectInvalid((*exe)->UseConstantMemory(*graph.FindNode("zero"), mine->ptr()),
                "node \"zero\" (constant) is an immediate in the kernels; no kernel reads it from memory");
}

}  // namespace
}  // namespace kiln
