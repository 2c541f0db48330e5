#include "frontends/cli/cli.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "frontends/cli/command_line.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/help.h"
#include "frontends/cli/version.h"

namespace kiln {
namespace {

constexpr absl::string_view kCommandsHint = "kiln help lists the commands";

const Command* FindCommand(absl::string_view name) {
  for (const Command& command : CommandTable()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

int UnknownCommand(absl::string_view name) {
  return ReportUsageError(absl::StrCat("unknown command \"", absl::CEscape(name), "\" (", kCommandsHint, ")"));
}

int Help(absl::Span<const std::string> topics) {
  if (topics.empty()) {
    absl::PrintF("%s", Overview());
    return kExitOk;
  }
  if (topics.size() > 1) return ReportUsageError("help takes one command name");
  const Command* command = FindCommand(topics[0]);
  if (command == nullptr) return UnknownCommand(topics[0]);
  absl::PrintF("%s", CommandHelp(*command));
  return kExitOk;
}

}  // namespace

int RunCli(absl::Span<const std::string> args) {
  if (args.empty()) {
    absl::FPrintF(stderr, "%s", Overview());
    return kExitUsage;
  }
  const std::string& first = args[0];
  if (first == "help" || first == "--help" || first == "-h") return Help(args.subspan(1));
  if (first == "--version") {
    if (args.size() > 1) return ReportUsageError("--version takes nothing else");
    absl::PrintF("%s", VersionText());
    return kExitOk;
  }
  if (absl::StartsWith(first, "-")) {
    return ReportUsageError(
        absl::StrCat("no command given before ", absl::CEscape(first), " (", kCommandsHint, ")"));
  }
  const Command* command = FindCommand(first);
  if (command == nullptr) return UnknownCommand(first);
  const absl::Span<const std::string> rest = args.subspan(1);
  if (AsksForHelp(rest)) {
    absl::PrintF("%s", CommandHelp(*command));
    return kExitOk;
  }
  absl::StatusOr<CommandLine> line = ParseCommandLine(*command, rest);
  if (!line.ok()) return ReportUsageError(line.status().message());
  return command->run(*line);
}

}  // namespace kiln
