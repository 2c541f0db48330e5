// `kiln eval --inputs ... --save-outputs DIR` and `kiln convert`, called
// directly: the user's tensors in, results out as .npy, mismatches refused.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "frontends/cli/commands.h"
#include "frontends/graph_file.h"
#include "frontends/npy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_DECLARE_FLAG(std::string, inputs);
ABSL_DECLARE_FLAG(std::string, save_outputs);
ABSL_DECLARE_FLAG(bool, scale_down);
ABSL_DECLARE_FLAG(uint64_t, seed);

namespace kiln {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TensorIoCliTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / absl::StrCat("kiln_tensor_io_", getpid(), "_",
                                                       testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    absl::SetFlag(&FLAGS_inputs, "");
    absl::SetFlag(&FLAGS_save_outputs, "");
    absl::SetFlag(&FLAGS_scale_down, false);
    absl::SetFlag(&FLAGS_seed, 1);
    // y = x * w + b with w a weight, and a second output named with a '/'.
    GraphBuilder b;
    Value x = b.Input("x", DType::kF32, {2, 3});
    Value bias = b.Input("bias", DType::kF32, {3});
    Value w = b.Constant(HostTensor{.dtype = DType::kF32, .shape = {3}, .data = {1, 2, 3}});
    absl::StatusOr<Graph> graph = b.Build({(x * w + bias).Named("y"), (x * 2.0).Named("layer/twice")});
    ASSERT_TRUE(graph.ok()) << graph.status();
    ASSERT_TRUE(SaveGraphFile(*graph, Path("g.textproto")).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  struct Result {
    int status;
    std::string out, err;
  };
  static Result Run(int (*command)(const std::vector<std::string>&), std::vector<std::string> args) {
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int status = command(args);
    std::fflush(stdout);
    Result result{status, testing::internal::GetCapturedStdout(), ""};
    result.err = testing::internal::GetCapturedStderr();
    return result;
  }

  fs::path dir_;
};

TEST_F(TensorIoCliTest, EvalReadsNpyInputsAndSavesEveryOutput) {
  ASSERT_TRUE(WriteNpyFile(Path("x.npy"), {.dtype = DType::kF32, .shape = {2, 3}, .data = {1, 2, 3, 4, 5, 6}}).ok());
  absl::SetFlag(&FLAGS_inputs, absl::StrCat("x=", Path("x.npy")));
  absl::SetFlag(&FLAGS_save_outputs, Path("out"));
  Result r = Run(RunEvalCommand, {Path("g.textproto")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("input x: f32[2,3], from ", Path("x.npy"), "\n")));
  EXPECT_THAT(r.out, HasSubstr("input bias: f32[3], random with seed 2\n"));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("saved ", Path("out/y.npy"), "\nsaved ", Path("out/layer_twice.npy"), "\n")));
  absl::StatusOr<NpyArray> twice = ReadNpyFile(Path("out/layer_twice.npy"));
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_EQ(twice->dtype, "float32");
  EXPECT_EQ(twice->data, (std::vector<double>{2, 4, 6, 8, 10, 12}));
}

TEST_F(TensorIoCliTest, MismatchedOrUnknownInputsAreRefused) {
  ASSERT_TRUE(WriteNpyFile(Path("x.npy"), {.dtype = DType::kF32, .shape = {3, 2}, .data = {1, 2, 3, 4, 5, 6}}).ok());
  absl::SetFlag(&FLAGS_inputs, absl::StrCat("x=", Path("x.npy")));
  Result r = Run(RunEvalCommand, {Path("g.textproto")});
  EXPECT_EQ(r.status, kExitFailure);
  EXPECT_EQ(r.err, absl::StrCat("kiln: input \"x\" is f32[2,3]; ", Path("x.npy"), " holds float32[3,2]\n"));

  absl::SetFlag(&FLAGS_inputs, "q=q.npy");
  r = Run(RunEvalCommand, {Path("g.textproto")});
  EXPECT_EQ(r.err, "kiln: --inputs names \"q\", which is not an input of the graph (its inputs: \"x\", \"bias\")\n");
  absl::SetFlag(&FLAGS_inputs, "x");
  r = Run(RunEvalCommand, {Path("g.textproto")});
  EXPECT_EQ(r.err, "kiln: --inputs entry \"x\" is not name=path.npy\n");
  absl::SetFlag(&FLAGS_inputs, "x=a.npy,x=b.npy");
  r = Run(RunEvalCommand, {Path("g.textproto")});
  EXPECT_EQ(r.err, "kiln: --inputs names \"x\" twice\n");
  absl::SetFlag(&FLAGS_inputs, absl::StrCat("x=", Path("missing.npy")));
  r = Run(RunEvalCommand, {Path("g.textproto")});
  EXPECT_EQ(r.err, absl::StrCat("kiln: ", Path("missing.npy"), ": cannot open\n"));
  absl::SetFlag(&FLAGS_scale_down, true);
  r = Run(RunEvalCommand, {Path("g.textproto")});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_EQ(r.err, "kiln: --scale-down changes the input shapes; it cannot be used with --inputs\n");
}

TEST_F(TensorIoCliTest, ConvertWritesKilnsFormat) {
  Result r = Run(RunConvertCommand, {Path("g.textproto"), Path("g.pb")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat(Path("g.textproto"), " -> ", Path("g.pb"), ": 7 nodes, 2 inputs, 2 outputs, 3 parameters\n"));
  absl::StatusOr<Graph> back = LoadGraphFile(Path("g.pb"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->size(), 7);
  r = Run(RunConvertCommand, {Path("g.textproto")});
  EXPECT_EQ(r.status, kExitUsage);
  r = Run(RunConvertCommand, {Path("g.textproto"), Path("g.onnx")});
  EXPECT_EQ(r.status, kExitFailure);
  EXPECT_THAT(r.err, HasSubstr("g.onnx: kiln writes its own graph format"));
}

}  // namespace
}  // namespace kiln
