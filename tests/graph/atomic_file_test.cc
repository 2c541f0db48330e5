// WriteFileAtomically: the whole new contents or the old ones, never a
// temporary left behind, and writers that never share a temporary.
#include "graph/atomic_file.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           absl::StrCat("kiln_atomic_", getpid(), "_", testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream contents;
    contents << in.rdbuf();
    return contents.str();
  }
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesAndReplaces) {
  ASSERT_TRUE(WriteFileAtomically(Path("f"), "first").ok());
  EXPECT_EQ(Read(Path("f")), "first");
  ASSERT_TRUE(WriteFileAtomically(Path("f"), std::string("sec\0ond", 7)).ok());
  EXPECT_EQ(Read(Path("f")), std::string("sec\0ond", 7));
  EXPECT_EQ(Files(), std::vector<std::string>{"f"});
  EXPECT_EQ(fs::status(Path("f")).permissions() & fs::perms::owner_read, fs::perms::owner_read);
}

TEST_F(AtomicFileTest, FailuresSayWhatFailedAndLeaveNoTemporary) {
  absl::Status status = WriteFileAtomically(Path("missing/f"), "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "cannot create a temporary file beside it: No such file or directory");

  fs::create_directories(Path("dir/inside"));
  status = WriteFileAtomically(Path("dir"), "x");
  EXPECT_EQ(status.message().substr(0, 42), "cannot rename the temporary file over it: ");
  EXPECT_EQ(Files(), std::vector<std::string>{"dir"});
}

TEST_F(AtomicFileTest, ConcurrentWritersOfOnePathLeaveOneWholeFile) {
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        EXPECT_TRUE(WriteFileAtomically(Path("shared"), std::string(4096, static_cast<char>('a' + t))).ok());
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  const std::string contents = Read(Path("shared"));
  ASSERT_EQ(contents.size(), 4096u);
  EXPECT_EQ(contents, std::string(4096, contents[0]));
  EXPECT_EQ(Files(), std::vector<std::string>{"shared"});
}

}  // namespace
}  // namespace kiln
