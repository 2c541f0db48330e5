// The command line of every kiln command: which flags each takes, one
// spelling for each in help, usage and README, kiln's own one-line errors,
// help that exits 0, and the command table's declarations kept consistent.
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/cli/command_line.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/help.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

const std::string kRowSum = BundledGraph("row_sum_16384x16384_f32");

std::string Error(const std::vector<std::string>& args) {
  const CliResult result = RunKiln(args);
  EXPECT_EQ(result.status, kExitUsage) << result.err;
  EXPECT_EQ(result.out, "");
  return result.err;
}

TEST(CliFlagsTest, EachCommandRejectsFlagsThatDoNotApply) {
  EXPECT_EQ(Error({"plan", "--unfused", kRowSum}), "kiln: plan does not take --unfused (kiln help plan lists its flags)\n");
  EXPECT_EQ(Error({"check", "--json", kRowSum}), "kiln: check does not take --json (kiln help check lists its flags)\n");
  EXPECT_EQ(Error({"eval", "--iters=3", kRowSum}), "kiln: eval does not take --iters (kiln help eval lists its flags)\n");
  EXPECT_EQ(Error({"emit", "--explain", kRowSum}), "kiln: emit does not take --explain (kiln help emit lists its flags)\n");
  EXPECT_EQ(Error({"workload", "--sm-count=4", "row_sum", "f32", "8x8"}),
            "kiln: workload does not take --sm-count (kiln help workload lists its flags)\n");
}

TEST(CliFlagsTest, UnknownFlagsAreNamedWithTheNearestOne) {
  EXPECT_EQ(Error({"eval", "--sede=3", kRowSum}), "kiln: unknown flag --sede=3 (did you mean --seed?)\n");
  EXPECT_EQ(Error({"run", "--nocheck", kRowSum}), "kiln: unknown flag --nocheck (did you mean --no-check?)\n");
  EXPECT_EQ(Error({"eval", "--scale_down", kRowSum}), "kiln: unknown flag --scale_down (did you mean --scale-down?)\n");
  EXPECT_EQ(Error({"plan", "--frobnicate", kRowSum}), "kiln: unknown flag --frobnicate (kiln help plan lists its flags)\n");
  EXPECT_EQ(Error({"plan", "-j", kRowSum}), "kiln: unknown flag -j (flags start with --; kiln help plan lists its flags)\n");
}

TEST(CliFlagsTest, ValuesAreCheckedBeforeTheCommandRuns) {
  EXPECT_EQ(Error({"run", "--iters", "abc", kRowSum}), "kiln: --iters=abc is not a whole number\n");
  EXPECT_EQ(Error({"run", "--iters=0", kRowSum}), "kiln: --iters=0 is outside 1..1000000\n");
  EXPECT_EQ(Error({"eval", "--seed=-1", kRowSum}), "kiln: --seed=-1 is below 0\n");
  EXPECT_EQ(Error({"plan", "--bandwidth-gbps=fast", kRowSum}), "kiln: --bandwidth-gbps=fast is not a number\n");
  EXPECT_EQ(Error({"plan", "--bandwidth-gbps=0", kRowSum}), "kiln: --bandwidth-gbps=0 is not above 0\n");
  EXPECT_EQ(Error({"plan", "--f32-tflops=inf", kRowSum}), "kiln: --f32-tflops=inf is not a number\n");
  EXPECT_EQ(Error({"plan", "--sm-count=0", kRowSum}), "kiln: --sm-count=0 is outside 1..100000\n");
  EXPECT_EQ(Error({"plan", "--max-cluster-blocks=9", kRowSum}), "kiln: --max-cluster-blocks=9 is outside 1..8\n");
  EXPECT_EQ(Error({"plan", "--json=yes", kRowSum}), "kiln: --json takes no value\n");
  EXPECT_EQ(Error({"plan", kRowSum, "--svg"}), "kiln: --svg needs a value: --svg=FILE\n");
  EXPECT_EQ(Error({"plan", "--svg=", kRowSum}), "kiln: --svg needs a value: --svg=FILE\n");
  EXPECT_EQ(Error({"run", "--iters=2", "--iters=3", kRowSum}), "kiln: --iters is given twice\n");
}

TEST(CliFlagsTest, AMissingArgumentNamesTheFlagThatTookIt) {
  EXPECT_EQ(Error({"plan", "--svg", kRowSum}),
            "kiln: plan takes one argument, FILE, and got none: --svg took \"" + kRowSum + "\" as its value\n");
  EXPECT_EQ(Error({"plan", kRowSum, kRowSum}), "kiln: plan takes one argument, FILE, and got two\n");
}

TEST(CliFlagsTest, FlagsThatCannotMeetSaySo) {
  EXPECT_EQ(Error({"plan", "--json", "--dot", kRowSum}), "kiln: --json and --dot cannot be combined: both print the plan\n");
  EXPECT_EQ(Error({"plan", "--explain", "--dot", kRowSum}),
            "kiln: --dot and --explain cannot be combined: the drawing holds no explanation; use the table or --json\n");
  EXPECT_EQ(Error({"run", "--measure", "--iters=5", kRowSum}),
            "kiln: --measure and --iters cannot be combined: --measure profiles one run of its own\n");
}

TEST(CliFlagsTest, FlagsComeAnywhereAndDoubleDashEndsThem) {
  CliResult result = RunKiln({"eval", kRowSum, "--scale-down", "--seed", "4"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("input x: f32[256,256], random with seed 4\n"));
  result = RunKiln({"check", "--", "--json.textproto"});
  EXPECT_EQ(result.status, kExitFailure);
  EXPECT_EQ(result.err, "kiln: --json.textproto: cannot open: No such file or directory\n");
}

TEST(CliFlagsTest, HelpListsTheCommandsAndExitsZero) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"help"}, {"--help"}, {"-h"}}) {
    const CliResult result = RunKiln(args);
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(result.out, Overview());
  }
  EXPECT_EQ(Overview(),
            "kiln fuses the ops of a graph into GPU kernels and says how many HBM bytes that saves.\n\n"
            "usage: kiln COMMAND ARGUMENTS [FLAGS]\n\n"
            "commands:\n"
            "  check FILE                load and verify a graph file, and summarize it\n"
            "  eval FILE                 run the CPU reference interpreter on seeded random or .npy inputs\n"
            "  workload NAME DTYPE DIMS  write a bundled workload as a graph file\n"
            "  plan FILE                 the fused and unfused plans: kernels, strategies, HBM bytes\n"
            "  emit FILE                 the CUDA source of the plan's kernels, as one translation unit\n"
            "  run FILE                  compile, run, check and time the plan on the GPU\n"
            "  tune FILE                 tune the plan's matmul kernels on the GPU ahead of time\n"
            "  sweep FILE                the plans as one input dim grows: where they change, and the bound\n"
            "  convert MODEL OUT         write an ONNX model (or a graph file) in kiln's graph format\n\n"
            "`kiln help COMMAND` (or `kiln COMMAND --help`) lists a command's flags; `kiln --version` prints the "
            "versions of kiln, NVRTC and the CUDA driver.\n");
  const CliResult bare = RunKiln({});
  EXPECT_EQ(bare.status, kExitUsage);
  EXPECT_EQ(bare.out, "");
  EXPECT_EQ(bare.err, Overview());
}

TEST(CliFlagsTest, CommandHelpIsTheSameEveryWayAsked) {
  const std::string expected =
      "usage: kiln eval FILE [--seed=N] [--inputs=NAME=FILE.npy,...] [--save-outputs=DIR] [--scale-down]\n\n"
      "Evaluates FILE with the CPU reference interpreter (in double, rounding each node to its dtype) on\n"
      "seeded random inputs, or the NumPy files --inputs names, and summarizes every output (--save-outputs\n"
      "also writes each as .npy). Tensors over 2^26 elements are refused unless --scale-down cuts the graph\n"
      "first.\n\n"
      "flags:\n"
      "  --seed=N                    seed of the random inputs; input i gets seed N + i (default 1)\n"
      "  --inputs=NAME=FILE.npy,...  graph inputs from NumPy files; inputs not named are seeded random\n"
      "  --save-outputs=DIR          write every output to DIR as <name>.npy\n"
      "  --scale-down                cut every dim to at most 256 first, so that big graphs evaluate in moments\n\n"
      "not together:\n"
      "  --scale-down and --inputs: scaling down changes the input shapes\n";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"help", "eval"},
                                               {"eval", "--help"},
                                               {"eval", "-h"},
                                               {"eval", "x.pb", "--bogus", "--help"}}) {
    const CliResult result = RunKiln(args);
    EXPECT_EQ(result.status, 0) << args.size();
    EXPECT_EQ(result.out, expected);
  }
  EXPECT_EQ(Error({"help", "frob"}), "kiln: unknown command \"frob\" (kiln help lists the commands)\n");
  EXPECT_EQ(Error({"help", "eval", "plan"}), "kiln: help takes one command name\n");
  EXPECT_EQ(Error({"frob"}), "kiln: unknown command \"frob\" (kiln help lists the commands)\n");
  EXPECT_EQ(Error({"--json", "plan"}), "kiln: no command given before --json (kiln help lists the commands)\n");
}

TEST(CliFlagsTest, DeviceFlagsAppearInUsageAndHelp) {
  for (const Command& command : CommandTable()) {
    if (command.name != "plan" && command.name != "emit" && command.name != "run") continue;
    SCOPED_TRACE(command.name);
    EXPECT_THAT(UsageLine(command), ::testing::EndsWith(" [device flags]"));
    EXPECT_THAT(CommandHelp(command),
                HasSubstr("\ndevice flags:\n  --sm-count=N                        multiprocessors of the target GPU\n"));
    EXPECT_THAT(CommandHelp(command), HasSubstr("  --matmul-tile=MxNxK:STAGES[:GROUP]  tensor-core matmul tile"));
  }
}

// Every flag of the table: one spelling, named in its commands' usage line
// and help, and in the README; the old absl spellings appear nowhere.
TEST(CliFlagsTest, EveryFlagHasOneSpellingEverywhere) {
  const std::string readme = ReadTextFile(SourceDir() / "README.md");
  ASSERT_FALSE(readme.empty());
  std::set<std::string> names;
  for (const Command& command : CommandTable()) {
    const std::string usage = UsageLine(command);
    const std::string help = CommandHelp(command);
    EXPECT_TRUE(absl::StrContains(readme, absl::StrCat("kiln ", command.name))) << command.name;
    for (const Flag* flag : command.flags) {
      SCOPED_TRACE(absl::StrCat(command.name, " --", flag->name));
      const std::string spelled = flag->kind == FlagKind::kSwitch ? absl::StrCat("--", flag->name)
                                                                  : absl::StrCat("--", flag->name, "=", flag->value);
      if (flag->group.empty()) EXPECT_THAT(usage, HasSubstr(absl::StrCat("[", spelled, "]")));
      EXPECT_THAT(help, HasSubstr(absl::StrCat("  ", spelled, " ")));
      EXPECT_TRUE(absl::StrContains(readme, absl::StrCat("--", flag->name))) << "README.md lacks the flag";
      EXPECT_FALSE(absl::StrContains(flag->name, "_"));
      names.insert(std::string(flag->name));
    }
  }
  for (const char* old : {"--save_io", "--scale_down", "--nocheck", "--noclusters", "--check=false", "--matmul_tile"}) {
    EXPECT_FALSE(absl::StrContains(readme, old)) << old;
  }
  EXPECT_EQ(names.size(), 31u);
}

TEST(CliFlagsTest, ADumpFolderMayComeFromTheEnvironment) {
  const Command* plan = nullptr;
  for (const Command& command : CommandTable()) {
    if (command.name == "plan") plan = &command;
  }
  ASSERT_NE(plan, nullptr);
  setenv("KILN_DUMP_DIR", "/tmp/from-env", 1);
  absl::StatusOr<CommandLine> line = ParseCommandLine(*plan, {kRowSum});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->flags.Text(kDump), "/tmp/from-env");
  line = ParseCommandLine(*plan, {kRowSum, "--dump=/tmp/from-flag"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->flags.Text(kDump), "/tmp/from-flag");  // the flag wins
  setenv("KILN_DUMP_DIR", "", 1);
  line = ParseCommandLine(*plan, {kRowSum});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_FALSE(line->flags.Has(kDump));
  unsetenv("KILN_DUMP_DIR");
}

TEST(CliFlagsTest, GivenFlagsAreSpelledBackForAChildProcess) {
  const Command* run = nullptr;
  for (const Command& command : CommandTable()) {
    if (command.name == "run") run = &command;
  }
  ASSERT_NE(run, nullptr);
  absl::StatusOr<CommandLine> line =
      ParseCommandLine(*run, {"--no-clusters", kRowSum, "--sm-count", "114", "--unfused"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->flags.Given(run->flags),
            (std::vector<std::string>{"--unfused", "--sm-count=114", "--no-clusters"}));
  EXPECT_EQ(line->flags.Int(kIters), 50);
  EXPECT_FALSE(line->flags.Switch(kJson));
}

}  // namespace
}  // namespace kiln
