// The subcommands of the `kiln` tool. A subcommand is a file
// frontends/cli/<name>_command.cc defining Run<Name>Command, its declaration
// below, and one row in the table in main.cc:
//
//   {"check", "kiln check FILE", RunCheckCommand},
//
// `args` holds the positional arguments after the subcommand's name; flags are
// absl flags, defined in the file of the command that reads them. A command
// prints its results on stdout and any failure as one `kiln: <message>` line
// on stderr (see errors.h), and returns the process exit status.
#ifndef KILN_FRONTENDS_CLI_COMMANDS_H_
#define KILN_FRONTENDS_CLI_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kiln {

struct Command {
  absl::string_view name;
  absl::string_view usage;
  int (*run)(const std::vector<std::string>& args);
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
// Wrong arguments: main follows the message with the command's usage line.
inline constexpr int kExitUsage = 2;

int RunCheckCommand(const std::vector<std::string>& args);
int RunEvalCommand(const std::vector<std::string>& args);
int RunWorkloadCommand(const std::vector<std::string>& args);
int RunPlanCommand(const std::vector<std::string>& args);
int RunEmitCommand(const std::vector<std::string>& args);
int RunRunCommand(const std::vector<std::string>& args);
int RunConvertCommand(const std::vector<std::string>& args);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_COMMANDS_H_
