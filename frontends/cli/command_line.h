// Turns the arguments after a command's name into a CommandLine, checked
// against the command's row of the table: every flag must be one the command
// takes, given once, with a valid value; flags that exclude each other must
// not meet; the argument count must match. Any problem is one line:
//
//   plan does not take --unfused (kiln help plan lists its flags)
//   --iters=abc is not a whole number
//   plan takes one argument, FILE, and got none: --svg took "g.textproto" as its value
//
//   absl::StatusOr<CommandLine> line = ParseCommandLine(command, {"--json", "g.textproto"});
#ifndef KILN_FRONTENDS_CLI_COMMAND_LINE_H_
#define KILN_FRONTENDS_CLI_COMMAND_LINE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "frontends/cli/commands.h"

namespace kiln {

// Arguments after "--" are positional, whatever they look like. A flag with
// an environment variable (--dump, KILN_DUMP_DIR) takes its value from there
// when the command line does not give it.
absl::StatusOr<CommandLine> ParseCommandLine(const Command& command, absl::Span<const std::string> args);

// True for "-h" and "--help" before any "--": the command's help is wanted.
bool AsksForHelp(absl::Span<const std::string> args);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_COMMAND_LINE_H_
