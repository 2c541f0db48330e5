// The C++ example of README.md, compiled and run: the code between the two
// README-EXAMPLE markers is the README's code block, character for character
// (the last test below fails if either copy changes alone).
// README-EXAMPLE-BEGIN
#include <cstdint>
#include <iostream>
#include <memory>
#include <vector>

#include "frontends/builder.h"
#include "fusion/plan_report.h"
#include "fusion/planner.h"
#include "graph/reference.h"
#include "runtime/executable.h"

// y = GeLU(x), written like the math: the builder records one node per op.
absl::StatusOr<kiln::Graph> BuildGelu(int64_t rows, int64_t cols) {
  kiln::GraphBuilder b;
  kiln::Value x = b.Input("x", kiln::DType::kF32, {rows, cols});
  kiln::Value y = 0.5 * x * (1.0 + Tanh(0.79788456 * (x + 0.044715 * x * x * x)));
  return b.Build({y.Named("y")});
}

// Prints the fused plan against the unfused one (planning needs no GPU); on a
// GPU, also runs the fused plan and compares it with the CPU reference.
absl::Status PlanAndRun(const kiln::Graph& graph, std::ostream& out) {
  const kiln::PlanTarget h200{.gpu = "H200", .limits = kiln::DeviceLimits{}};  // the defaults describe an H200
  absl::StatusOr<kiln::Plan> fused = kiln::PlanFusion(graph, h200.limits);
  if (!fused.ok()) return fused.status();
  absl::StatusOr<kiln::Plan> unfused = kiln::PlanUnfused(graph, h200.limits);
  if (!unfused.ok()) return unfused.status();
  out << kiln::PlanTable(graph, *fused, *unfused, h200);

  absl::StatusOr<std::unique_ptr<kiln::Device>> device = kiln::Device::Open();
  if (!device.ok()) {
    out << "not running: " << device.status().message() << "\n";
    return absl::OkStatus();
  }
  kiln::KernelCache cache;
  absl::StatusOr<std::unique_ptr<kiln::Executable>> exe =
      kiln::Executable::Compile(graph, **device, cache, {.fuse = true});
  if (!exe.ok()) return exe.status();
  const kiln::Node& x = graph.node(graph.inputs()[0]);
  const std::vector<kiln::HostTensor> inputs = {kiln::RandomTensor(x.dtype, x.shape, /*seed=*/1)};
  absl::StatusOr<std::vector<kiln::HostTensor>> y = (*exe)->RunOnHost(inputs);
  if (!y.ok()) return y.status();
  absl::StatusOr<std::vector<kiln::HostTensor>> reference = kiln::EvaluateReference(graph, inputs);
  if (!reference.ok()) return reference.status();
  out << "ran " << (*exe)->plan().kernels.size() << " kernel(s) on " << (*device)->info().name
      << "; relative error against the CPU reference: " << kiln::RelativeError((*y)[0], (*reference)[0])
      << "\n";
  return absl::OkStatus();
}
// README-EXAMPLE-END

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The README's `main`: not compiled here (gtest provides main), so it is
// pinned by text and its two calls are made by the tests below.
constexpr absl::string_view kReadmeMain = R"(int main() {
  absl::StatusOr<kiln::Graph> gelu = BuildGelu(4096, 4096);
  absl::Status status = gelu.ok() ? PlanAndRun(*gelu, std::cout) : gelu.status();
  if (!status.ok()) std::cerr << status << "\n";
  return status.ok() ? 0 : 1;
})";

fs::path SourceDir() {
  const char* source = std::getenv("KILN_SOURCE_DIR");
  return fs::path(source == nullptr ? "." : source);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

double Gelu(double x) { return 0.5 * x * (1.0 + std::tanh(0.79788456 * (x + 0.044715 * x * x * x))); }

TEST(ReadmeExampleTest, GraphIsTheNineOpsOfGelu) {
  absl::StatusOr<Graph> graph = BuildGelu(4096, 4096);
  ASSERT_TRUE(graph.ok()) << graph.status();
  int ops = 0;
  int constants = 0;
  for (const Node& node : graph->nodes()) {
    if (node.op == OpKind::kConstant) ++constants;
    if (node.op != OpKind::kInput && node.op != OpKind::kConstant) ++ops;
  }
  EXPECT_EQ(ops, 9);
  EXPECT_EQ(constants, 4);
  ASSERT_EQ(graph->inputs().size(), 1u);
  EXPECT_EQ(graph->node(graph->inputs()[0]).shape, (Dims{4096, 4096}));
  ASSERT_EQ(graph->outputs().size(), 1u);
  const Node& y = graph->node(graph->outputs()[0]);
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(y.dtype, DType::kF32);
  EXPECT_EQ(y.shape, (Dims{4096, 4096}));
}

TEST(ReadmeExampleTest, GraphEvaluatesToTheGeluFormula) {
  absl::StatusOr<Graph> graph = BuildGelu(2, 4);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const HostTensor x{DType::kF32, {2, 4}, {-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0}};
  absl::StatusOr<std::vector<HostTensor>> y = EvaluateReference(*graph, {x});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->size(), 1u);
  ASSERT_EQ((*y)[0].data.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    // Every node rounds to f32, so the graph is the formula to within f32 rounding.
    EXPECT_NEAR((*y)[0].data[i], Gelu(x.data[i]), 1e-6 * std::max(1.0, std::abs(Gelu(x.data[i])))) << "x = " << x.data[i];
  }
  EXPECT_EQ((*y)[0].data[3], 0.0);
  EXPECT_NEAR((*y)[0].data[5], 0.8411920, 1e-6);
  EXPECT_NEAR((*y)[0].data[1], -0.1588080, 1e-6);
}

TEST(ReadmeExampleTest, FusesIntoOneKernelAgainstOnePerOp) {
  absl::StatusOr<Graph> graph = BuildGelu(4096, 4096);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Plan> fused = PlanFusion(*graph, DeviceLimits{});
  ASSERT_TRUE(fused.ok()) << fused.status();
  ASSERT_EQ(fused->kernels.size(), 1u);
  EXPECT_EQ(fused->kernels[0].kind, KernelKind::kPointwise);
  EXPECT_EQ(fused->kernels[0].nodes.size(), 9u);
  // One read of x and one write of y: 2 * 4096 * 4096 * 4 bytes.
  EXPECT_EQ(fused->total.bytes(), int64_t{2} * 4096 * 4096 * 4);
  absl::StatusOr<Plan> unfused = PlanUnfused(*graph, DeviceLimits{});
  ASSERT_TRUE(unfused.ok()) << unfused.status();
  ASSERT_EQ(unfused->kernels.size(), 9u);
  for (const Kernel& kernel : unfused->kernels) EXPECT_EQ(kernel.nodes.size(), 1u) << kernel.name;
}

TEST(ReadmeExampleTest, PrintsThePlanTable) {
  absl::StatusOr<Graph> graph = BuildGelu(4096, 4096);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::ostringstream out;
  ASSERT_TRUE(PlanAndRun(*graph, out).ok());
  EXPECT_THAT(out.str(), HasSubstr("unfused: 9 kernels"));
  EXPECT_THAT(out.str(), HasSubstr("fused:   1 kernel, 134,217,728 bytes"));
  EXPECT_THAT(out.str(), HasSubstr("f0_pointwise"));
}

TEST(ReadmeExampleTest, WithoutGpuSaysSoAndSucceeds) {
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
  if (device.ok()) GTEST_SKIP() << "a GPU is present; RunsOnGpuAndMatchesReference covers this machine";
  absl::StatusOr<Graph> graph = BuildGelu(64, 64);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::ostringstream out;
  const absl::Status status = PlanAndRun(*graph, out);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_THAT(out.str(), HasSubstr(absl::StrCat("\nnot running: ", device.status().message(), "\n")));
  EXPECT_THAT(out.str(), ::testing::Not(HasSubstr("ran ")));
}

TEST(ReadmeExampleTest, RunsOnGpuAndMatchesReference) {
  {
    absl::StatusOr<std::unique_ptr<Device>> device = Device::Open();
    if (!device.ok()) GTEST_SKIP() << "no CUDA device: " << device.status().message();
  }
  absl::StatusOr<Graph> graph = BuildGelu(512, 1024);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::ostringstream out;
  const absl::Status status = PlanAndRun(*graph, out);
  ASSERT_TRUE(status.ok()) << status;
  const std::string text = out.str();
  ASSERT_THAT(text, HasSubstr("ran 1 kernel(s) on "));
  const std::string label = "relative error against the CPU reference: ";
  const size_t at = text.find(label);
  ASSERT_NE(at, std::string::npos) << text;
  double error = 0;
  ASSERT_TRUE(absl::SimpleAtod(absl::StripAsciiWhitespace(text.substr(at + label.size())), &error)) << text;
  EXPECT_LT(error, 1e-5);  // NaN fails this too
}

TEST(ReadmeExampleTest, ReadmeHoldsThisExampleVerbatim) {
  const std::string self = ReadFile(SourceDir() / "tests" / "frontends" / "readme_example_test.cc");
  const std::string begin = "// README-EXAMPLE-BEGIN\n";
  const std::string end = "// README-EXAMPLE-END\n";
  const size_t from = self.find(begin);
  const size_t to = self.find(end);
  ASSERT_NE(from, std::string::npos) << "test source not found under " << SourceDir();
  ASSERT_NE(to, std::string::npos);
  const std::string example = self.substr(from + begin.size(), to - from - begin.size());
  ASSERT_THAT(example, HasSubstr("Tanh(0.79788456 * (x + 0.044715 * x * x * x))"));

  const std::string readme = ReadFile(SourceDir() / "README.md");
  ASSERT_FALSE(readme.empty()) << "README.md not found under " << SourceDir();
  EXPECT_TRUE(absl::StrContains(readme, example))
      << "README.md's C++ example differs from tests/frontends/readme_example_test.cc; copy the code between "
         "the README-EXAMPLE markers into README.md";
  EXPECT_TRUE(absl::StrContains(readme, kReadmeMain)) << "README.md lacks the example's main:\n" << kReadmeMain;
}

}  // namespace
}  // namespace kiln
