// NVTX ranges as a profiler sees them. This test binary links a static NVTX
// injection (the mechanism Nsight Systems uses through a library) that
// records every range kiln opens, so the ranges are checked without a
// profiler; on a GPU, every launch of an Executable is checked to sit inside
// a range named after its kernel and nodes.
#define NVTX_NO_IMPL  // this file is a tool: types only, not the API implementation
#include <nvtx3/nvToolsExt.h>

#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "runtime/nvtx_ranges.h"
#include "tests/runtime/test_kernels.h"

namespace kiln {
namespace {

struct Recorder {
  std::mutex mu;
  std::vector<std::string> domains;
  std::vector<std::string> registered;  // a handle is its index + 1
  std::vector<std::string> events;      // "push NAME" and "pop"
};

Recorder& Recorded() {
  static Recorder* recorder = new Recorder;
  return *recorder;
}

nvtxDomainHandle_t DomainCreateA(const char* name) {
  std::lock_guard<std::mutex> lock(Recorded().mu);
  Recorded().domains.push_back(name);
  return reinterpret_cast<nvtxDomainHandle_t>(Recorded().domains.size());
}

nvtxStringHandle_t DomainRegisterStringA(nvtxDomainHandle_t, const char* text) {
  std::lock_guard<std::mutex> lock(Recorded().mu);
  Recorded().registered.push_back(text);
  return reinterpret_cast<nvtxStringHandle_t>(Recorded().registered.size());
}

int DomainRangePushEx(nvtxDomainHandle_t, const nvtxEventAttributes_t* attributes) {
  std::lock_guard<std::mutex> lock(Recorded().mu);
  const size_t handle = reinterpret_cast<size_t>(attributes->message.registered);
  Recorded().events.push_back(absl::StrCat(
      "push ", attributes->messageType == NVTX_MESSAGE_TYPE_REGISTERED && handle > 0
                   ? Recorded().registered[handle - 1]
                   : std::string("(unregistered)")));
  return 0;
}

int DomainRangePop(nvtxDomainHandle_t) {
  std::lock_guard<std::mutex> lock(Recorded().mu);
  Recorded().events.push_back("pop");
  return 0;
}

int InitializeRecorder(NvtxGetExportTableFunc_t get_export_table) {
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks == nullptr || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size)) return 0;
  *table[NVTX_CBID_CORE2_DomainCreateA] = reinterpret_cast<NvtxFunctionPointer>(&DomainCreateA);
  *table[NVTX_CBID_CORE2_DomainRegisterStringA] = reinterpret_cast<NvtxFunctionPointer>(&DomainRegisterStringA);
  *table[NVTX_CBID_CORE2_DomainRangePushEx] = reinterpret_cast<NvtxFunctionPointer>(&DomainRangePushEx);
  *table[NVTX_CBID_CORE2_DomainRangePop] = reinterpret_cast<NvtxFunctionPointer>(&DomainRangePop);
  return 1;
}

std::vector<std::string> TakeEvents() {
  std::lock_guard<std::mutex> lock(Recorded().mu);
  return std::move(Recorded().events);
}

}  // namespace
}  // namespace kiln

// NVTX looks for this symbol when no injection library is named in the
// environment; the header's weak definition yields to this one.
extern "C" {
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = &kiln::InitializeRecorder;
}

namespace kiln {
namespace {

TEST(NvtxRangesTest, RangesCarryTheirRegisteredNamesInKilnsDomain) {
  if (!NvtxRanges::Enabled()) GTEST_SKIP() << "built without the NVTX3 headers";
  TakeEvents();
  const NvtxRanges ranges({"f0_pointwise: a b", "f1_matmul: c"});
  ranges.Push(1);
  ranges.Push(0);
  ranges.Pop();
  ranges.Pop();
  EXPECT_EQ(TakeEvents(), (std::vector<std::string>{"push f1_matmul: c", "push f0_pointwise: a b", "pop", "pop"}));
  std::lock_guard<std::mutex> lock(Recorded().mu);
  EXPECT_EQ(Recorded().domains, std::vector<std::string>{"kiln"});
}

TEST(NvtxRangesTest, KernelRangeNamesListTheNodes) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {64, 64});
  Value y = x;
  for (int i = 0; i < 10; ++i) y = Exp(y).Named(absl::StrCat("e", i));
  const Graph graph = *b.Build({y});
  const Plan plan = *PlanFusion(graph, DeviceLimits{});
  EXPECT_EQ(KernelRangeName(graph, plan.kernels[0]), "f0_pointwise: e0 e1 e2 e3 e4 e5 e6 e7 (+2 more)");
  EXPECT_EQ(KernelRangeName(graph, plan.kernels[0], 20), "f0_pointwise: e0 e1 e2 e3 e4 e5 e6 e7 e8 e9");
  const Plan unfused = *PlanUnfused(graph, DeviceLimits{});
  EXPECT_EQ(KernelRangeName(graph, unfused.kernels[3]), "u3_exp: e3");
}

class NvtxRangesGpuTest : public runtime_testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!IsSkipped() && !NvtxRanges::Enabled()) GTEST_SKIP() << "built without the NVTX3 headers";
  }
};

TEST_F(NvtxRangesGpuTest, EveryLaunchIsInsideItsKernelsRange) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {256, 1024});
  Value y = (Exp(x) / ReduceSum(Exp(x), {1}, true)).Named("y");
  Value t = Transpose(y, {1, 0}).Named("t");
  const Graph graph = *b.Build({t});
  KernelCache cache;
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, *device_, cache, {.fuse = true});
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->plan().kernels.size(), 2u);
  TakeEvents();
  const HostTensor input = RandomTensor(DType::kF32, {256, 1024}, 3);
  ASSERT_TRUE((*exe)->RunOnHost({input}).ok());
  const std::vector<Kernel>& kernels = (*exe)->plan().kernels;
  EXPECT_EQ(KernelRangeName(graph, kernels[1]), "f1_transpose: t");
  EXPECT_EQ(TakeEvents(), (std::vector<std::string>{absl::StrCat("push ", KernelRangeName(graph, kernels[0])), "pop",
                                                    "push f1_transpose: t", "pop"}));
}

}  // namespace
}  // namespace kiln
