// The dump folder, --svg, --measure and --version through the built binary,
// with stand-ins for Graphviz's dot and Nsight Compute's ncu so that all of
// it runs on a machine without either (or without a GPU).
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "codegen/device_library.h"
#include "fusion/device_limits.h"
#include "frontends/graph_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/nvrtc_compiler.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class DumpCliTest : public KilnBinaryTest {
 protected:
  // An executable shell script `name` in DIR/bin, the only folder on the
  // PATH that Tool() gives kiln.
  void Script(const std::string& name, const std::string& body) const {
    fs::create_directories(Path("bin"));
    const std::string path = Path("bin/" + name);
    std::ofstream(path) << "#!/bin/sh\n" << body;
    fs::permissions(path, fs::perms::owner_all);
  }
  std::string ToolPath() const { return "PATH=" + Path("bin"); }
};

const std::string kSoftmax = BundledGraph("softmax_naive_65536x1024_f32");

TEST_F(DumpCliTest, PlanDumpHoldsEverythingThePlanDecided) {
  const CliResult plain = Kiln("plan " + kSoftmax);
  const CliResult dumped = Kiln("plan --dump " + Path("dump") + " " + kSoftmax, ToolPath());
  ASSERT_EQ(dumped.status, 0) << dumped.err;
  EXPECT_EQ(dumped.out, plain.out);  // a dump changes nothing on stdout
  EXPECT_EQ(dumped.err, "kiln: " + Path("dump") + " has no plan.svg: Graphviz's dot is not on PATH (plan.dot holds "
                        "the drawing)\n");
  const fs::path dir = Path("dump");
  EXPECT_EQ(ReadTextFile(dir / "plan.txt"), plain.out);
  EXPECT_EQ(ReadTextFile(dir / "graph.textproto"), SerializeGraphText(*LoadGraphFile(kSoftmax)));
  EXPECT_EQ(ReadTextFile(dir / "plan.json"), Kiln("plan --json --explain " + kSoftmax).out);
  EXPECT_EQ(ReadTextFile(dir / "plan.dot"), Kiln("plan --dot " + kSoftmax).out);
  EXPECT_THAT(ReadTextFile(dir / "plan.dot"), HasSubstr("n0 -> n1 [label=\"268,435,456 B\"];"));
  EXPECT_EQ(ReadTextFile(dir / "explain.txt"),
            "f0_row_reduction: persistent (warp per row) over 5 ops\n"
            "  why: row of 1024 f32 = 4 KiB fits one warp's registers: a warp per row\n"
            "no fusion boundaries: every producer shares its consumer's kernel\n");
  EXPECT_FALSE(fs::exists(dir / "plan.svg"));

  // Each kernel's file compiles on its own once its include is resolved.
  const std::string kernel = ReadTextFile(dir / "kernels" / "f0_row_reduction.cu");
  EXPECT_THAT(kernel, HasSubstr("#include \"kiln_device_library.cuh\"\n\n// ---- kernel f0_row_reduction: row_reduction, "
                                "persistent (warp per row)\n// launch: grid 8192, block 256, cluster 1, dynamic "
                                "shared memory 0 bytes\n// parameters:\n//   in0   x  f32[65536,1024]  graph input\n"
                                "//   out0  y  f32[65536,1024]  graph output\n"));
  EXPECT_EQ(ReadTextFile(dir / "kernels" / "kiln_device_library.cuh"), DeviceLibrarySource());
  const std::string whole = absl::StrReplaceAll(
      kernel, {{"#include \"kiln_device_library.cuh\"", std::string(DeviceLibrarySource())}});
  absl::StatusOr<std::string> cubin = CompileToCubin({whole, "dumped"}, DeviceLimits{}.Arch());
  EXPECT_TRUE(cubin.ok()) << cubin.status();
}

TEST_F(DumpCliTest, EmitDumpsTheEmittedPlansKernelsAndTheEnvironmentNamesTheFolder) {
  const CliResult result =
      Kiln("emit --unfused " + kSoftmax, absl::StrCat("KILN_DUMP_DIR=", Path("env-dump"), " ", ToolPath()));
  ASSERT_EQ(result.status, 0) << result.err;
  for (const char* name : {"u0_reduce_max", "u1_sub", "u2_exp", "u3_reduce_sum", "u4_div"}) {
    EXPECT_TRUE(fs::exists(fs::path(Path("env-dump")) / "kernels" / absl::StrCat(name, ".cu"))) << name;
  }
  EXPECT_FALSE(fs::exists(fs::path(Path("env-dump")) / "kernels" / "f0_row_reduction.cu"));
  EXPECT_THAT(ReadTextFile(fs::path(Path("env-dump")) / "explain.txt"), HasSubstr("u4_div: vectorized tiles over 1 op"));

  Write("file", "not a folder");
  const CliResult blocked = Kiln("plan --dump " + Path("file/dump") + " " + kSoftmax);
  EXPECT_EQ(blocked.status, 1);
  EXPECT_THAT(blocked.err, ::testing::StartsWith("kiln: cannot create the dump folder " + Path("file/dump") + ": "));
  EXPECT_EQ(std::count(blocked.err.begin(), blocked.err.end(), '\n'), 1);
}

TEST_F(DumpCliTest, SvgGoesThroughDot) {
  const CliResult missing = Kiln("plan --svg " + Path("p.svg") + " " + kSoftmax, ToolPath());
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "kiln: cannot render " + Path("p.svg") +
                             ": Graphviz's dot is not on PATH (Debian: apt-get install graphviz)\n");
  // The stand-in wraps the DOT source it is given, so the SVG shows what dot read.
  Script("dot", "[ \"$1\" = -Tsvg ] || exit 3\nprintf '<svg>\\n'; /bin/cat \"$2\"; printf '</svg>\\n'\n");
  const CliResult json = Kiln("plan --json --svg=" + Path("p.svg") + " " + kSoftmax, ToolPath());
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(json.out, Kiln("plan --json " + kSoftmax).out);
  EXPECT_EQ(ReadTextFile(Path("p.svg")), "<svg>\n" + Kiln("plan --dot " + kSoftmax).out + "</svg>\n");
  EXPECT_FALSE(fs::exists(Path("p.svg.dot.tmp")));

  ASSERT_EQ(Kiln("plan --dump " + Path("d") + " " + kSoftmax, ToolPath()).err, "");
  EXPECT_EQ(ReadTextFile(fs::path(Path("d")) / "plan.svg"), "<svg>\n" + ReadTextFile(fs::path(Path("d")) / "plan.dot") + "</svg>\n");

  Script("dot", "echo 'Error: syntax error in line 1' >&2\nexit 1\n");
  const CliResult failed = Kiln("plan --svg=" + Path("q.svg") + " " + kSoftmax, ToolPath());
  EXPECT_EQ(failed.status, 1);
  EXPECT_EQ(failed.err, "kiln: cannot render " + Path("q.svg") + ": dot failed: Error: syntax error in line 1\n");
  EXPECT_FALSE(fs::exists(Path("q.svg")));
}

TEST_F(DumpCliTest, MeasureWithoutNcuSaysSoInOneLine) {
  const CliResult result = Kiln("run --measure " + kSoftmax, ToolPath());
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "kiln: --measure needs Nsight Compute, and ncu is not on PATH (set KILN_NCU to its path)\n");
}

// A stand-in ncu: the profiling call records its arguments and succeeds; the
// import prints a raw-page CSV for the plan's one kernel.
TEST_F(DumpCliTest, MeasureComparesNcuBytesWithTheModel) {
  const std::string args = Path("ncu-args");
  Script("fake-ncu",
         absl::StrCat("case \"$*\" in\n"
                      "  *--import*) /bin/cat <<'CSV'\n"
                      "==PROF== report\n"
                      "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\"\n"
                      "\"\",\"\",\"byte\",\"byte\"\n"
                      "\"0\",\"f0_row_reduction(const float *, float *)\",\"268,000,000\",\"260,000,000\"\n"
                      "\"1\",\"f0_row_reduction(const float *, float *)\",\"268,435,456\",\"200,000,000\"\n"
                      "CSV\n"
                      "  ;;\n"
                      "  *) echo \"$*\" > ",
                      args, " ;;\nesac\n"));
  const CliResult result = Kiln("run --measure --dump " + Path("d") + " " + kSoftmax + " --sm-count=100",
                                "KILN_NCU=" + Path("bin/fake-ncu") + " " + ToolPath());
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out,
            "softmax_naive_65536x1024_f32 (fused plan): DRAM bytes measured by Nsight Compute against the model for "
            "H200 defaults with --sm-count=100; flagged beyond 10%\n"
            "kernel                   model read    measured read      off    model written measured written      off    total\n"
            "f0_row_reduction        268,435,456      268,435,456    +0.0%      268,435,456      200,000,000   -25.5%   -12.7%  FLAG\n");
  const std::string profiled = ReadTextFile(args);
  EXPECT_THAT(profiled, HasSubstr("--clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum "
                                  "--kernel-name regex:^(f0_row_reduction)$ --launch-count 2 --export " +
                                  Path("d") + "/ncu --force-overwrite "));
  EXPECT_THAT(profiled, HasSubstr(absl::StrCat(" run ", kSoftmax, " --iters=1 --no-check --sm-count=100\n")));
  EXPECT_EQ(ReadTextFile(fs::path(Path("d")) / "measure.txt"), result.out);
  EXPECT_THAT(ReadTextFile(fs::path(Path("d")) / "measure.json"), HasSubstr("\"deviation\": -0.1275, \"flagged\": true"));

  Script("fake-ncu", "echo '==PROF== Connected'\necho 'kiln: no GPU to run on: no CUDA driver' >&2\nexit 1\n");
  const CliResult failed = Kiln("run --measure " + kSoftmax, "KILN_NCU=" + Path("bin/fake-ncu"));
  EXPECT_EQ(failed.status, 1);
  EXPECT_EQ(failed.err, "kiln: kiln run under ncu failed (exit 1): no GPU to run on: no CUDA driver\n");
}

TEST_F(DumpCliTest, VersionNamesKilnItsRevisionNvrtcAndTheDriver) {
  const CliResult result = Kiln("--version");
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.err, "");
  EXPECT_TRUE(std::regex_match(result.out, std::regex("kiln 0\\.1\\.0 \\(git ([0-9a-f]{7,}(-dirty)?|unknown)\\)\n"
                                                      "NVRTC [0-9]+\\.[0-9]+\nCUDA driver: [^\n]+\n")))
      << result.out;
  EXPECT_THAT(result.out, ::testing::Not(HasSubstr("Debug build")));
  EXPECT_EQ(Kiln("--version now").err, "kiln: --version takes nothing else\n");
}

TEST_F(DumpCliTest, HelpExitsZeroFromTheBinary) {
  const CliResult help = Kiln("run --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_THAT(help.out, ::testing::StartsWith("usage: kiln run FILE [--unfused] [--iters=N]"));
  EXPECT_EQ(Kiln("-h").status, 0);
  EXPECT_EQ(Kiln("").status, 2);
}

}  // namespace
}  // namespace kiln
