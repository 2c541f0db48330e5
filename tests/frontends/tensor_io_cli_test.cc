// `kiln eval --inputs ... --save-outputs DIR` and `kiln convert`, run
// in-process: the user's tensors in, results out as .npy, mismatches refused.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "frontends/cli/commands.h"
#include "frontends/graph_file.h"
#include "frontends/npy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TensorIoCliTest : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    // y = x * w + b with w a weight, and a second output named with a '/'.
    GraphBuilder b;
    Value x = b.Input("x", DType::kF32, {2, 3});
    Value bias = b.Input("bias", DType::kF32, {3});
    Value w = b.Constant(HostTensor{.dtype = DType::kF32, .shape = {3}, .data = {1, 2, 3}});
    absl::StatusOr<Graph> graph = b.Build({(x * w + bias).Named("y"), (x * 2.0).Named("layer/twice")});
    ASSERT_TRUE(graph.ok()) << graph.status();
    ASSERT_TRUE(SaveGraphFile(*graph, Path("g.textproto")).ok());
  }

  CliResult Eval(const std::string& inputs) const {
    return RunKiln({"eval", Path("g.textproto"), "--inputs=" + inputs});
  }
};

TEST_F(TensorIoCliTest, EvalReadsNpyInputsAndSavesEveryOutput) {
  ASSERT_TRUE(WriteNpyFile(Path("x.npy"), {.dtype = DType::kF32, .shape = {2, 3}, .data = {1, 2, 3, 4, 5, 6}}).ok());
  CliResult r = RunKiln({"eval", Path("g.textproto"), "--inputs", absl::StrCat("x=", Path("x.npy")),
                         "--save-outputs", Path("out")});
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
  CliResult r = Eval(absl::StrCat("x=", Path("x.npy")));
  EXPECT_EQ(r.status, kExitFailure);
  EXPECT_EQ(r.err, absl::StrCat("kiln: input \"x\" is f32[2,3]; ", Path("x.npy"), " holds float32[3,2]\n"));

  EXPECT_EQ(Eval("q=q.npy").err,
            "kiln: --inputs names \"q\", which is not an input of the graph (its inputs: \"x\", \"bias\")\n");
  EXPECT_EQ(Eval("x").err, "kiln: --inputs entry \"x\" is not name=path.npy\n");
  EXPECT_EQ(Eval("x=a.npy,x=b.npy").err, "kiln: --inputs names \"x\" twice\n");
  EXPECT_EQ(Eval(absl::StrCat("x=", Path("missing.npy"))).err,
            absl::StrCat("kiln: ", Path("missing.npy"), ": cannot open\n"));
  r = RunKiln({"eval", Path("g.textproto"), "--scale-down", "--inputs=x=" + Path("x.npy")});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_EQ(r.err, "kiln: --scale-down and --inputs cannot be combined: scaling down changes the input shapes\n");
  r = RunKiln({"eval", Path("g.textproto"), "--inputs="});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_EQ(r.err, "kiln: --inputs needs a value: --inputs=NAME=FILE.npy,...\n");
}

TEST_F(TensorIoCliTest, OnlyRunAndEvalTakeTensorFlags) {
  const CliResult r = RunKiln({"plan", Path("g.textproto"), "--save-outputs=" + Path("out")});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_EQ(r.err, "kiln: plan does not take --save-outputs (kiln help plan lists its flags)\n");
  EXPECT_FALSE(fs::exists(Path("out")));
  EXPECT_EQ(RunKiln({"run", Path("g.textproto"), "--measure", "--save-outputs=" + Path("out")}).err,
            "kiln: --measure and --save-outputs cannot be combined: --measure profiles one run of its own\n");
}

TEST_F(TensorIoCliTest, ConvertWritesKilnsFormat) {
  CliResult r = RunKiln({"convert", Path("g.textproto"), Path("g.pb")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat(Path("g.textproto"), " -> ", Path("g.pb"), ": 7 nodes, 2 inputs, 2 outputs, 3 parameters\n"));
  absl::StatusOr<Graph> back = LoadGraphFile(Path("g.pb"));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->size(), 7);
  r = RunKiln({"convert", Path("g.textproto")});
  EXPECT_EQ(r.status, kExitUsage);
  EXPECT_EQ(r.err, "kiln: convert takes two arguments, MODEL OUT, and got one\n");
  r = RunKiln({"convert", Path("g.textproto"), Path("g.onnx")});
  EXPECT_EQ(r.status, kExitFailure);
  EXPECT_THAT(r.err, HasSubstr("g.onnx: kiln writes its own graph format"));
}

}  // namespace
}  // namespace kiln
