// CUDA graph replay through Executable::Run: a five-kernel plan replayed from
// its graph matches the reference on every run, each set of device pointers
// gets the graph for its own pointers (captured, or an older graph updated in
// place once kMaxGraphs are held), and a one-kernel plan replays too.
#include <memory>
#include <string>
#include <vector>

#include "frontends/builder.h"
#include "fusion/traffic.h"
#include "graph/reference.h"
#include "graph/tensor_bytes.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using GraphReplayGpuTest = runtime_testing::GpuTest;

// Five ops; unfused, five kernels with four intermediates in the workspace.
Graph FiveOps() {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {333, 517});
  Value w = b.Input("w", DType::kF32, {517});
  return *b.Build({Tanh((Exp(x * 0.01) + w) * x).Named("y")});
}

// One set of inputs on the device, room for the output, and the reference.
struct Io {
  std::vector<HostTensor> inputs;
  HostTensor reference;
  std::vector<DeviceBuffer> buffers;
  std::vector<CUdeviceptr> in, out;
};

Io MakeIo(const Graph& graph, uint64_t seed) {
  Io io;
  for (NodeId id : graph.inputs()) {
    const Node& node = graph.node(id);
    io.inputs.push_back(RandomTensor(node.dtype, node.shape, seed + id));
    const std::string bytes = EncodeTensor(io.inputs.back());
    io.buffers.push_back(*DeviceBuffer::FromHost(bytes.data(), static_cast<int64_t>(bytes.size())));
    io.in.push_back(io.buffers.back().ptr());
  }
  io.buffers.push_back(*DeviceBuffer::Allocate(TensorBytes(graph.node(graph.outputs()[0]))));
  io.out.push_back(io.buffers.back().ptr());
  io.reference = (*EvaluateReference(graph, io.inputs))[0];
  return io;
}

// Poisons the output, runs, and returns the relative error against the
// reference (NaN when any element went unwritten).
double RunAndCompare(Executable& exe, const Device& device, Io& io) {
  DeviceBuffer& out = io.buffers.back();
  EXPECT_TRUE(out.Memset8(0xff).ok());
  const absl::Status run = exe.Run(io.in, io.out);
  EXPECT_TRUE(run.ok()) << run;
  EXPECT_TRUE(device.Synchronize().ok());
  const Node& y = exe.graph().node(exe.graph().outputs()[0]);
  std::string bytes(static_cast<size_t>(out.size()), '\0');
  EXPECT_TRUE(out.CopyToHost(bytes.data(), out.size()).ok());
  return RelativeError(DecodeTensor(bytes, y.dtype, y.shape), io.reference);
}

TEST_F(GraphReplayGpuTest, FiveKernelsReplayLikeTheReference) {
  KernelCache cache({.use_disk = false});
  const Graph graph = FiveOps();
  std::unique_ptr<Executable> exe = *Executable::Compile(graph, *device_, cache, {.fuse = false});
  ASSERT_EQ(exe->plan().kernels.size(), 5u);
  Io io = MakeIo(graph, 1);
  for (int run = 0; run < 6; ++run) EXPECT_LT(RunAndCompare(*exe, *device_, io), 1e-5) << "run " << run;
  const GraphReplayStats stats = exe->graph_stats();
  EXPECT_EQ(stats.off_reason, "");
  EXPECT_EQ(stats.plain_runs, 1);  // first sight of the pointers
  EXPECT_EQ(stats.captures, 1);    // the second run
  EXPECT_EQ(stats.replays, 4);
}

TEST_F(GraphReplayGpuTest, EachPointerSetRunsItsOwnGraph) {
  KernelCache cache({.use_disk = false});
  const Graph graph = FiveOps();
  std::unique_ptr<Executable> exe = *Executable::Compile(graph, *device_, cache, {.fuse = false});
  // More pointer sets than graphs kept: the last ones reuse older graphs.
  const int sets = static_cast<int>(GraphReplay::kMaxGraphs) + 3;
  std::vector<Io> ios;
  for (int i = 0; i < sets; ++i) ios.push_back(MakeIo(graph, 10 * i));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < sets; ++i) {
      EXPECT_LT(RunAndCompare(*exe, *device_, ios[i]), 1e-5) << "round " << round << ", set " << i;
    }
  }
  // The same pointers with new contents: a replay reads the new inputs.
  Io& first = ios[0];
  first.inputs[0] = RandomTensor(DType::kF32, {333, 517}, 999);
  const std::string bytes = EncodeTensor(first.inputs[0]);
  ASSERT_TRUE(first.buffers[0].CopyFromHost(bytes.data(), static_cast<int64_t>(bytes.size())).ok());
  first.reference = (*EvaluateReference(graph, first.inputs))[0];
  EXPECT_LT(RunAndCompare(*exe, *device_, first), 1e-5);
  EXPECT_LT(RunAndCompare(*exe, *device_, first), 1e-5);

  const GraphReplayStats stats = exe->graph_stats();
  EXPECT_EQ(stats.off_reason, "");
  EXPECT_EQ(stats.plain_runs, sets);  // round 0
  EXPECT_GE(stats.captures, sets);    // round 1, and again for sets whose graph went to another
  EXPECT_GE(stats.updates, 3);        // the sets past kMaxGraphs took an older graph
  EXPECT_GT(stats.replays, 0);
}

TEST_F(GraphReplayGpuTest, OneKernelPlansReplayToo) {
  KernelCache cache({.use_disk = false});
  const Graph graph = FiveOps();
  std::unique_ptr<Executable> exe = *Executable::Compile(graph, *device_, cache, {.fuse = true});
  ASSERT_EQ(exe->plan().kernels.size(), 1u);
  Io io = MakeIo(graph, 3);
  for (int run = 0; run < 3; ++run) EXPECT_LT(RunAndCompare(*exe, *device_, io), 1e-5);
  const GraphReplayStats stats = exe->graph_stats();
  EXPECT_EQ(stats.off_reason, "");
  EXPECT_EQ(stats.plain_runs, 1);
  EXPECT_EQ(stats.captures, 1);
  EXPECT_EQ(stats.replays, 1);
}

}  // namespace
}  // namespace kiln
