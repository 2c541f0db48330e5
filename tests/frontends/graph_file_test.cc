// Loading and saving graph files: formats by extension, errors that name the
// path, size limits, and atomic saves.
#include "frontends/graph_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "frontends/workloads.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

class GraphFileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) /
           absl::StrCat("kiln_graph_file_test_", getpid(), "_",
                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    absl::StatusOr<Graph> graph = BuildWorkload("softmax_naive", DType::kBF16, {16, 32});
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = *std::move(graph);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
  Graph graph_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

TEST_F(GraphFileTest, SavesAndLoadsEveryExtension) {
  for (const char* name : {"g.textproto", "g.pbtxt", "g.txtpb"}) {
    ASSERT_TRUE(SaveGraphFile(graph_, Path(name)).ok());
    EXPECT_EQ(ReadFile(Path(name)), SerializeGraphText(graph_));
    absl::StatusOr<Graph> loaded = LoadGraphFile(Path(name));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(SerializeGraphText(*loaded), SerializeGraphText(graph_));
  }
  for (const char* name : {"g.pb", "g.binpb"}) {
    ASSERT_TRUE(SaveGraphFile(graph_, Path(name)).ok());
    EXPECT_EQ(ReadFile(Path(name)), SerializeGraphBinary(graph_));
    absl::StatusOr<Graph> loaded = LoadGraphFile(Path(name));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(SerializeGraphBinary(*loaded), SerializeGraphBinary(graph_));
  }
  EXPECT_EQ(Files(), (std::vector<std::string>{"g.binpb", "g.pb", "g.pbtxt", "g.textproto", "g.txtpb"}));
}

TEST_F(GraphFileTest, UnknownExtensionsAreRefused) {
  const std::string json = Path("g.json");
  WriteFile(json, "{}");
  const std::string message = json +
      ": unknown graph file extension \".json\" (use .textproto, .pbtxt or .txtpb for text, .pb or "
      ".binpb for binary, .onnx for an ONNX model)";
  EXPECT_EQ(LoadGraphFile(json).status().message(), message);
  EXPECT_EQ(SaveGraphFile(graph_, json).message(), message);
  EXPECT_EQ(ReadFile(json), "{}");
  EXPECT_EQ(LoadGraphFile(Path("graph")).status().message(),
            Path("graph") +
                ": unknown graph file extension \"\" (use .textproto, .pbtxt or .txtpb for text, .pb or "
                ".binpb for binary, .onnx for an ONNX model)");
}

TEST_F(GraphFileTest, MissingFileIsNotFound) {
  absl::StatusOr<Graph> graph = LoadGraphFile(Path("missing.pb"));
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(graph.status().message(), Path("missing.pb") + ": cannot open: No such file or directory");
}

TEST_F(GraphFileTest, DirectoryIsNotAGraphFile) {
  fs::create_directory(Path("dir.textproto"));
  EXPECT_EQ(LoadGraphFile(Path("dir.textproto")).status().message(),
            Path("dir.textproto") + ": not a regular file");
}

TEST_F(GraphFileTest, OversizedFileIsRefusedBeforeReading) {
  const std::string path = Path("huge.pb");
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, kMaxGraphFileBytes + 1), 0);  // sparse: costs no disk
  close(fd);
  absl::StatusOr<Graph> graph = LoadGraphFile(path);
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(graph.status().message(),
            path + ": graph file of 268435457 bytes exceeds the limit of 268435456 bytes");
}

TEST_F(GraphFileTest, ParseErrorsNameThePath) {
  const std::string text = Path("bad.textproto");
  WriteFile(text, "format_version: 1\nnode { name: \"x\" op: \"input\" shape: [4, abc] }\n");
  EXPECT_EQ(LoadGraphFile(text).status().message(),
            text + ": line 2, column 41: Expected integer, got: abc");

  const std::string binary = Path("bad.pb");
  WriteFile(binary, "\x08\x01\x12\x05\x0a\x01");
  EXPECT_EQ(LoadGraphFile(binary).status().message(),
            binary + ": the bytes are not a valid kiln graph (malformed or truncated binary protobuf)");

  WriteFile(text, "format_version: 1\nnode { name: \"t3\" op: \"mul\" operand: [\"q\", \"q\"] }\n");
  EXPECT_EQ(LoadGraphFile(text).status().message(),
            text + ": graph has no outputs");
  WriteFile(text, "format_version: 1\nnode { name: \"t3\" op: \"mul\" operand: [\"q\", \"q\"] }\n"
                  "output: \"t3\"\n");
  EXPECT_EQ(LoadGraphFile(text).status().message(),
            text + ": node \"t3\" (mul): operand \"q\" is not defined");
}

TEST_F(GraphFileTest, SaveReplacesAnExistingFile) {
  const std::string path = Path("g.textproto");
  WriteFile(path, "old contents");
  ASSERT_TRUE(SaveGraphFile(graph_, path).ok());
  EXPECT_EQ(ReadFile(path), SerializeGraphText(graph_));
  EXPECT_EQ(Files(), std::vector<std::string>{"g.textproto"});
}

TEST_F(GraphFileTest, FailedSaveLeavesTheOldFileAndNoTemporary) {
  const std::string path = Path("g.pb");
  WriteFile(path, "old contents");
  const Graph no_outputs;
  absl::Status status = SaveGraphFile(no_outputs, path);
  EXPECT_EQ(status.message(), path + ": graph has no outputs");
  EXPECT_EQ(ReadFile(path), "old contents");

  // A path whose temporary file cannot be created: its folder is a file.
  WriteFile(Path("plain"), "not a folder");
  status = SaveGraphFile(graph_, Path("plain/g.pb"));
  EXPECT_EQ(status.message(), Path("plain/g.pb") + ": cannot create a temporary file beside it: Not a directory");
  EXPECT_EQ(Files(), (std::vector<std::string>{"g.pb", "plain"}));

  status = SaveGraphFile(graph_, Path("no/such/dir/g.pb"));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            Path("no/such/dir/g.pb") + ": cannot create a temporary file beside it: No such file or directory");
}

TEST_F(GraphFileTest, SaveFailsWhenTheTargetIsADirectory) {
  // rename() refuses to replace a non-empty directory: the temporary is removed.
  fs::create_directories(Path("target.pb/inside"));
  absl::Status status = SaveGraphFile(graph_, Path("target.pb"));
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StartsWith(status.message(),
                               Path("target.pb") + ": cannot rename the temporary file over it: "))
      << status;
  EXPECT_EQ(Files(), std::vector<std::string>{"target.pb"});
  EXPECT_TRUE(fs::is_directory(Path("target.pb/inside")));
}

}  // namespace
}  // namespace kiln
