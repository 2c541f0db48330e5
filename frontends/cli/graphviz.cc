#include "frontends/cli/graphviz.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "frontends/cli/subprocess.h"
#include "graph/atomic_file.h"

namespace kiln {

absl::Status RenderSvg(absl::string_view dot_source, const std::string& svg_path) {
  const std::string dot = FindProgram("dot");
  if (dot.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot render ", svg_path, ": Graphviz's dot is not on PATH (Debian: apt-get install graphviz)"));
  }
  const std::string source_path = absl::StrCat(svg_path, ".dot.tmp");
  if (absl::Status s = WriteFileAtomically(source_path, dot_source); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(source_path, ": ", s.message()));
  }
  absl::StatusOr<ProcessResult> result = RunProcess({dot, "-Tsvg", source_path});
  std::error_code ignored;
  std::filesystem::remove(source_path, ignored);
  if (!result.ok()) return result.status();
  if (result->exit_code != 0) {
    return absl::InternalError(absl::StrCat("cannot render ", svg_path, ": dot failed: ", LastLine(result->err)));
  }
  if (absl::Status s = WriteFileAtomically(svg_path, result->out); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(svg_path, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace kiln
