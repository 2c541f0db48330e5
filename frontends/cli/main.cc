// kiln: the command-line tool. Parses flags, picks the subcommand from the
// table below and runs it; see commands.h for adding one.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "frontends/cli/commands.h"

namespace kiln {
namespace {

constexpr Command kCommands[] = {
    {"check", "kiln check FILE", RunCheckCommand},
    {"eval", "kiln eval FILE [--seed N] [--scale-down] [--inputs name=path.npy,...] [--save-outputs DIR]",
     RunEvalCommand},
    {"workload", "kiln workload NAME DTYPE DIMS [--out FILE]", RunWorkloadCommand},
    {"plan", "kiln plan FILE [--json | --dot | --svg FILE] [--explain]", RunPlanCommand},
    {"emit", "kiln emit FILE [--unfused]", RunEmitCommand},
    {"run", "kiln run FILE [--unfused] [--iters N] [--json] [--save-io DIR] [--nocheck] "
            "[--inputs name=path.npy,...] [--save-outputs DIR]", RunRunCommand},
    {"convert", "kiln convert MODEL OUT", RunConvertCommand},
};

std::string UsageText() {
  std::string text = "usage:\n";
  for (const Command& command : kCommands) absl::StrAppend(&text, "  ", command.usage, "\n");
  return text;
}

// The part of a flag argument that names the flag: "--scale-down=1" -> "scale-down".
absl::string_view FlagName(absl::string_view arg) {
  arg.remove_prefix(absl::StartsWith(arg, "--") ? 2 : 1);
  return arg.substr(0, arg.find('='));
}

bool IsFlag(absl::string_view arg) { return arg.size() > 1 && arg[0] == '-'; }

// absl flag names cannot hold '-', but users type --scale-down: such names
// are rewritten with '_' before parsing. Arguments after "--" are left alone.
std::vector<std::string> NormalizeFlagNames(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    if (!IsFlag(args[i])) continue;
    const size_t start = absl::StartsWith(args[i], "--") ? 2 : 1;
    const size_t length = FlagName(args[i]).size();
    args[i].replace(start, length, absl::StrReplaceAll(args[i].substr(start, length), {{"-", "_"}}));
  }
  return args;
}

bool IsKnownFlag(absl::string_view name) {
  // Handled by absl::ParseCommandLine itself, not in the flag registry.
  constexpr absl::string_view kBuiltIn[] = {"help",    "helpfull",   "helpshort", "helppackage",
                                            "version", "flagfile",   "fromenv",   "tryfromenv",
                                            "undefok", "only_check_args"};
  for (absl::string_view built_in : kBuiltIn) {
    if (name == built_in) return true;
  }
  // A bool flag may be given as --noname.
  return absl::FindCommandLineFlag(name) != nullptr ||
         (absl::StartsWith(name, "no") && absl::FindCommandLineFlag(name.substr(2)) != nullptr);
}

// absl would exit on an unknown flag with its own message; kiln says it the
// kiln way and shows the usage instead.
const std::string* FindUnknownFlag(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    if (IsFlag(args[i]) && !IsKnownFlag(FlagName(args[i]))) return &args[i];
  }
  return nullptr;
}

int BadUse(absl::string_view message) {
  std::fprintf(stderr, "kiln: %s\n%s", std::string(message).c_str(), UsageText().c_str());
  return kExitUsage;
}

// --help lists the flags of the subcommands (absl's default looks for flags
// defined in main.cc).
void ConfigureHelp() {
  absl::SetProgramUsageMessage(absl::StrCat("the kiln graph tool\n", UsageText()));
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "frontends/cli/");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  absl::SetFlagsUsageConfig(config);
}

int Main(int argc, char** argv) {
  ConfigureHelp();
  std::vector<std::string> args = NormalizeFlagNames(argc, argv);
  if (const std::string* flag = FindUnknownFlag(args)) {
    return BadUse(absl::StrCat("unknown flag ", absl::CEscape(*flag)));
  }
  std::vector<char*> arg_pointers;
  for (std::string& arg : args) arg_pointers.push_back(arg.data());
  const std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  if (positional.size() < 2) return BadUse("no command given");
  const absl::string_view name = positional[1];
  for (const Command& command : kCommands) {
    if (command.name != name) continue;
    const int status = command.run(std::vector<std::string>(positional.begin() + 2, positional.end()));
    if (status == kExitUsage) std::fprintf(stderr, "usage: %s\n", std::string(command.usage).c_str());
    return status;
  }
  return BadUse(absl::StrCat("unknown command \"", absl::CEscape(name), "\""));
}

}  // namespace
}  // namespace kiln

int main(int argc, char** argv) { return kiln::Main(argc, argv); }
