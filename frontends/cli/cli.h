// The `kiln` tool as a function, so that tests run it in-process: picks the
// command from the table, answers help and --version, checks the command
// line and runs the command.
//
//   kiln help | --help | -h            the commands (stdout, exit 0)
//   kiln help CMD | CMD --help | -h    that command's usage and flags (stdout, exit 0)
//   kiln --version                     versions of kiln, NVRTC and the driver
//   kiln CMD ARGS...                   the command, or one `kiln: ...` line and exit 2
//
//   int status = RunCli({"plan", "--json", "graph.textproto"});   // argv without argv[0]
#ifndef KILN_FRONTENDS_CLI_CLI_H_
#define KILN_FRONTENDS_CLI_CLI_H_

#include <string>

#include "absl/types/span.h"

namespace kiln {

int RunCli(absl::Span<const std::string> args);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_CLI_H_
