#include "frontends/cli/help.h"

#include <algorithm>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace kiln {
namespace {

constexpr size_t kWidth = 100;

std::string Spelling(const Flag& flag) {
  return flag.kind == FlagKind::kSwitch ? absl::StrCat("--", flag.name)
                                        : absl::StrCat("--", flag.name, "=", flag.value);
}

// `text` broken into lines of at most kWidth columns at spaces.
std::string Wrap(absl::string_view text) {
  std::string out, line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && line.size() + 1 + word.size() > kWidth) {
      absl::StrAppend(&out, line, "\n");
      line.clear();
    }
    absl::StrAppend(&line, line.empty() ? "" : " ", word);
  }
  if (!line.empty()) absl::StrAppend(&out, line, "\n");
  return out;
}

std::string FlagLine(const Flag& flag, size_t column) {
  std::string help(flag.help);
  if (!flag.default_value.empty()) absl::StrAppend(&help, " (default ", flag.default_value, ")");
  if (!flag.env.empty()) absl::StrAppend(&help, " (or $", flag.env, ")");
  return absl::StrFormat("  %-*s  %s\n", column, Spelling(flag), help);
}

// Groups in the order their first flag appears; "" (ungrouped) first.
std::vector<absl::string_view> Groups(const Command& command) {
  std::vector<absl::string_view> groups = {""};
  for (const Flag* flag : command.flags) {
    if (std::find(groups.begin(), groups.end(), flag->group) == groups.end()) groups.push_back(flag->group);
  }
  return groups;
}

}  // namespace

std::string Overview() {
  size_t column = 0;
  for (const Command& command : CommandTable()) {
    column = std::max(column, command.name.size() + 1 + command.args.size());
  }
  std::string out =
      "kiln fuses the ops of a graph into GPU kernels and says how many HBM bytes that saves.\n\n"
      "usage: kiln COMMAND ARGUMENTS [FLAGS]\n\ncommands:\n";
  for (const Command& command : CommandTable()) {
    absl::StrAppendFormat(&out, "  %-*s  %s\n", column, absl::StrCat(command.name, " ", command.args),
                          command.summary);
  }
  absl::StrAppend(&out,
                  "\n`kiln help COMMAND` (or `kiln COMMAND --help`) lists a command's flags; `kiln --version` "
                  "prints the versions of kiln, NVRTC and the CUDA driver.\n");
  return out;
}

std::string UsageLine(const Command& command) {
  std::string out = absl::StrCat("kiln ", command.name, command.args.empty() ? "" : " ", command.args);
  std::vector<absl::string_view> groups_shown;
  for (const Flag* flag : command.flags) {
    if (flag->group.empty()) {
      absl::StrAppend(&out, " [", Spelling(*flag), "]");
    } else if (std::find(groups_shown.begin(), groups_shown.end(), flag->group) == groups_shown.end()) {
      groups_shown.push_back(flag->group);
      absl::StrAppend(&out, " [", flag->group, " flags]");
    }
  }
  return out;
}

std::string CommandHelp(const Command& command) {
  std::string out = absl::StrCat("usage: ", UsageLine(command), "\n\n", Wrap(command.description));
  size_t column = 0;
  for (const Flag* flag : command.flags) column = std::max(column, Spelling(*flag).size());
  for (absl::string_view group : Groups(command)) {
    std::string lines;
    for (const Flag* flag : command.flags) {
      if (flag->group == group) absl::StrAppend(&lines, FlagLine(*flag, column));
    }
    if (lines.empty()) continue;
    absl::StrAppend(&out, "\n", group, group.empty() ? "" : " ", "flags:\n", lines);
  }
  if (!command.exclusions.empty()) absl::StrAppend(&out, "\nnot together:\n");
  // Neighbours that share their first flag and reason read as one line:
  // "--measure and --iters, --no-check or --trace: ...".
  const std::vector<Exclusion>& exclusions = command.exclusions;
  for (size_t i = 0; i < exclusions.size();) {
    size_t j = i + 1;
    while (j < exclusions.size() && exclusions[j].first == exclusions[i].first &&
           exclusions[j].why == exclusions[i].why) {
      ++j;
    }
    std::string others;
    for (size_t k = i; k < j; ++k) {
      absl::StrAppend(&others, k == i ? "" : (k + 1 == j ? " or " : ", "), "--", exclusions[k].second->name);
    }
    absl::StrAppend(&out, "  --", exclusions[i].first->name, " and ", others, ": ", exclusions[i].why, "\n");
    i = j;
  }
  return out;
}

}  // namespace kiln
