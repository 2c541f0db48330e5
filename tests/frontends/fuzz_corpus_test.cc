// The fuzz targets' seed corpus (fuzz/corpus) stays valid: every seed loads
// and plans, and each binary seed is its text seed's encoding, so a format
// change that breaks the seeds is caught here rather than by a fuzzer that
// silently starts from nothing.
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "frontends/graph_file.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir(const std::string& target) {
  const char* source = std::getenv("KILN_SOURCE_DIR");
  return fs::path(source == nullptr ? "." : source) / "fuzz" / "corpus" / target;
}

TEST(FuzzCorpusTest, EverySeedLoadsAndPlans) {
  std::set<std::string> text_seeds, binary_seeds;
  for (const auto& [target, extension, seeds] :
       {std::tuple{"text_loader", ".textproto", &text_seeds}, {"binary_loader", ".pb", &binary_seeds}}) {
    for (const fs::directory_entry& entry : fs::directory_iterator(CorpusDir(target))) {
      SCOPED_TRACE(entry.path().string());
      EXPECT_EQ(entry.path().extension(), extension);
      absl::StatusOr<Graph> graph = LoadGraphFile(entry.path().string());
      ASSERT_TRUE(graph.ok()) << graph.status();
      EXPECT_TRUE(PlanFusion(*graph, DeviceLimits{}).ok());
      EXPECT_TRUE(PlanUnfused(*graph, DeviceLimits{}).ok());
      seeds->insert(entry.path().stem().string());
    }
  }
  EXPECT_GE(text_seeds.size(), 10u);
  EXPECT_EQ(text_seeds, binary_seeds);
  for (const std::string& seed : text_seeds) {
    absl::StatusOr<Graph> text = LoadGraphFile((CorpusDir("text_loader") / (seed + ".textproto")).string());
    absl::StatusOr<Graph> binary = LoadGraphFile((CorpusDir("binary_loader") / (seed + ".pb")).string());
    ASSERT_TRUE(text.ok() && binary.ok()) << seed;
    EXPECT_EQ(SerializeGraphText(*text), SerializeGraphText(*binary)) << seed;
  }
}

}  // namespace
}  // namespace kiln
