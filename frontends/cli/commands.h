// The subcommands of the `kiln` tool. A command is a function in
// frontends/cli/<name>_command.cc, its declaration below, and one row in the
// command table (command_table.cc), which says everything else about it: its
// arguments, its flags, which flags exclude each other, and its help.
//
//   {.name = "check", .args = "FILE", .summary = "load and verify a graph file, and summarize it",
//    .run = RunCheckCommand},
//
// By the time `run` is called the command line has been checked against the
// row: the argument count, every flag and its value. A command prints its
// results on stdout and any failure as one `kiln: <message>` line on stderr
// (see errors.h), and returns the process exit status.
#ifndef KILN_FRONTENDS_CLI_COMMANDS_H_
#define KILN_FRONTENDS_CLI_COMMANDS_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "frontends/cli/flags.h"

namespace kiln {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
// Wrong arguments or flags.
inline constexpr int kExitUsage = 2;

// What a command is given: its positional arguments and its flags.
struct CommandLine {
  std::vector<std::string> args;
  FlagValues flags;
};

// Two flags a command refuses together, and why ("both print the plan").
struct Exclusion {
  const Flag* first;
  const Flag* second;
  absl::string_view why;
};

struct Command {
  absl::string_view name;
  absl::string_view args;         // positional arguments, by name: "NAME DTYPE DIMS"
  absl::string_view summary;      // one line for `kiln help`
  absl::string_view description;  // a paragraph for `kiln help NAME`
  std::vector<const Flag*> flags;
  std::vector<Exclusion> exclusions;
  int (*run)(const CommandLine& line) = nullptr;
};

// Every command, in the order help lists them.
const std::vector<Command>& CommandTable();

int RunCheckCommand(const CommandLine& line);
int RunEvalCommand(const CommandLine& line);
int RunWorkloadCommand(const CommandLine& line);
int RunPlanCommand(const CommandLine& line);
int RunEmitCommand(const CommandLine& line);
int RunRunCommand(const CommandLine& line);
int RunTuneCommand(const CommandLine& line);
int RunSweepCommand(const CommandLine& line);
int RunConvertCommand(const CommandLine& line);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_COMMANDS_H_
