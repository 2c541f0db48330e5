// Running another program from a kiln command (Graphviz's dot, Nsight
// Compute's ncu) without a shell: arguments reach it as they are, so no path
// can be misquoted. Standard input is /dev/null; standard output and error
// are captured.
//
//   absl::StatusOr<ProcessResult> r = RunProcess({"dot", "-Tsvg", "-o", svg_path, dot_path});
//   if (r.ok() && r->exit_code == 0) ...
//   FindProgram("ncu")   // "/usr/local/cuda/bin/ncu", or empty when it is not on PATH
#ifndef KILN_FRONTENDS_CLI_SUBPROCESS_H_
#define KILN_FRONTENDS_CLI_SUBPROCESS_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace kiln {

struct ProcessResult {
  int exit_code = -1;  // -1 when a signal ended it
  std::string out;
  std::string err;
};

// argv[0] is looked up on PATH unless it holds a '/'. An error only when the
// program could not be started; its own failure is in exit_code.
absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv);

// The program's path: `name` itself when it holds a '/' and is executable,
// else the first executable PATH entry of that name; empty if none.
std::string FindProgram(absl::string_view name);

// The last non-empty line of `text`, for one-line error messages.
std::string LastLine(absl::string_view text);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_SUBPROCESS_H_
