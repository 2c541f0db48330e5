// Running `kiln` in tests: in-process through RunCli (stdout and stderr
// captured), or as the built binary with a shell command line; plus the
// bundled graphs and a scratch folder per test.
//
//   CliResult r = RunKiln({"plan", "--json", BundledGraph("row_sum_16384x16384_f32")});
//   EXPECT_EQ(r.status, 0);  r.out; r.err;
#ifndef KILN_TESTS_FRONTENDS_CLI_TEST_UTIL_H_
#define KILN_TESTS_FRONTENDS_CLI_TEST_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/cli/cli.h"
#include "gtest/gtest.h"

namespace kiln {

struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline CliResult RunKiln(const std::vector<std::string>& args) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int status = RunCli(args);
  std::fflush(stdout);
  CliResult result{.status = status};
  result.out = testing::internal::GetCapturedStdout();
  result.err = testing::internal::GetCapturedStderr();
  return result;
}

inline std::string ReadTextFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

inline std::filesystem::path SourceDir() {
  const char* source = std::getenv("KILN_SOURCE_DIR");
  return std::filesystem::path(source == nullptr ? "." : source);
}

// bench/graphs/NAME.textproto
inline std::string BundledGraph(const std::string& name) {
  return (SourceDir() / "bench" / "graphs" / (name + ".textproto")).string();
}

// A fresh folder per test, removed afterwards.
class ScratchTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(testing::TempDir()) /
           absl::StrCat("kiln_", getpid(), "_", testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& contents) const {
    std::ofstream(Path(name), std::ios::binary) << contents;
    return Path(name);
  }

  std::filesystem::path dir_;
};

// The built binary: kiln beside the test binary (a GPU bundle's bin/), else
// <build>/kiln beside the test binary's folder; tests that need it skip when
// it is in neither.
class KilnBinaryTest : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    const std::filesystem::path tests = std::filesystem::read_symlink("/proc/self/exe").parent_path();
    kiln_ = tests / "kiln";
    if (!std::filesystem::exists(kiln_)) kiln_ = tests.parent_path() / "kiln";
    if (!std::filesystem::exists(kiln_)) GTEST_SKIP() << "the kiln binary is not built at " << kiln_;
  }

  // `args` and `env` are shell words ("plan --json 'a b'", "PATH=/x").
  CliResult Kiln(const std::string& args, const std::string& env = "") const {
    const std::string command =
        absl::StrCat(env, env.empty() ? "" : " ", kiln_.string(), " ", args, " >", Path("out"), " 2>", Path("err"));
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadTextFile(Path("out")), ReadTextFile(Path("err"))};
  }

  std::filesystem::path kiln_;
};

}  // namespace kiln

#endif  // KILN_TESTS_FRONTENDS_CLI_TEST_UTIL_H_
