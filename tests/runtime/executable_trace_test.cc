// Executable::Trace: one run's kernels on a timeline, in launch order, each
// starting after the previous one ended. Needs a GPU.
#include <cmath>

#include "frontends/builder.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

using ExecutableTraceGpuTest = runtime_testing::GpuTest;

TEST_F(ExecutableTraceGpuTest, SpansFollowLaunchOrder) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {1024, 4096});
  Value y = (Exp(x) / ReduceSum(Exp(x), {1}, true)).Named("y");
  const Graph graph = *b.Build({Transpose(y, {1, 0}).Named("t")});
  KernelCache cache;
  for (bool fuse : {true, false}) {
    SCOPED_TRACE(fuse ? "fused" : "unfused");
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, *device_, cache, {.fuse = fuse});
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<DeviceBuffer> in = DeviceBuffer::Allocate(int64_t{1024} * 4096 * 4);
    absl::StatusOr<DeviceBuffer> out = DeviceBuffer::Allocate(int64_t{1024} * 4096 * 4);
    ASSERT_TRUE(in.ok() && out.ok());
    ASSERT_TRUE(in->Memset32(0).ok());
    absl::StatusOr<std::vector<KernelSpan>> spans = (*exe)->Trace({in->ptr()}, {out->ptr()});
    ASSERT_TRUE(spans.ok()) << spans.status();
    ASSERT_EQ(spans->size(), (*exe)->plan().kernels.size());
    EXPECT_EQ((*spans)[0].start_us, 0.0);
    for (size_t k = 0; k < spans->size(); ++k) {
      EXPECT_TRUE(std::isfinite((*spans)[k].end_us));
      EXPECT_GT((*spans)[k].end_us, (*spans)[k].start_us) << k;
      if (k > 0) {
        EXPECT_GE((*spans)[k].start_us, (*spans)[k - 1].end_us) << k;
      }
    }
  }
}

}  // namespace
}  // namespace kiln
