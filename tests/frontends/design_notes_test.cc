// The design notes code comments cite live in the repository (docs/design.md),
// and every section a comment names by title exists there.
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/frontends/cli_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

TEST(DesignNotesTest, CitationsPointInsideTheRepository) {
  const std::string notes = ReadTextFile(SourceDir() / "docs" / "design.md");
  ASSERT_FALSE(notes.empty()) << "docs/design.md not found under " << SourceDir();
  std::set<std::string> sections;
  for (absl::string_view line : absl::StrSplit(notes, '\n')) {
    if (absl::StartsWith(line, "## ")) sections.insert(std::string(line.substr(3)));
  }
  // `docs/design.md ("The traffic model")` or `(docs/design.md, "The traffic model")`.
  const std::regex cited_section(R"(docs/design\.md,? \(?\"([^\"]+)\")");
  int files = 0;
  int citations = 0;
  for (const char* folder : {"graph", "fusion", "codegen", "runtime", "frontends", "tests", "bench"}) {
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(SourceDir() / folder)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc" && ext != ".py" && ext != ".md" && ext != ".sh")) {
        continue;
      }
      ++files;
      const std::string text = ReadTextFile(entry.path());
      // This test names the old file in its own source; nothing else may.
      if (entry.path().filename() != "design_notes_test.cc") {
        EXPECT_FALSE(absl::StrContains(text, "DESIGN.md")) << entry.path() << " cites a DESIGN.md outside the repo";
      }
      for (std::sregex_iterator m(text.begin(), text.end(), cited_section), end; m != end; ++m) {
        ++citations;
        EXPECT_TRUE(sections.contains((*m)[1].str())) << entry.path() << " cites a missing section: " << (*m)[1];
      }
    }
  }
  EXPECT_GT(files, 100);
  EXPECT_GE(citations, 2);  // fusion/traffic.h and bench/README.md at least
  EXPECT_TRUE(sections.contains("The traffic model"));
}

}  // namespace
}  // namespace kiln
