#include "frontends/cli/command_line.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include "absl/strings/string_view.h"
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kiln {
namespace {

const Flag* FindFlag(absl::Span<const Flag* const> flags, absl::string_view name) {
  for (const Flag* flag : flags) {
    if (flag->name == name) return flag;
  }
  return nullptr;
}

bool TakenByAnyCommand(absl::string_view name) {
  for (const Command& command : CommandTable()) {
    if (FindFlag(command.flags, name) != nullptr) return true;
  }
  return false;
}

// Levenshtein distance, for suggesting the flag a typo meant.
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string HelpHint(const Command& command) {
  return absl::StrCat("kiln help ", command.name, " lists its flags");
}

absl::Status UnknownFlag(const Command& command, absl::string_view arg, absl::string_view name) {
  if (TakenByAnyCommand(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat(command.name, " does not take --", name, " (", HelpHint(command), ")"));
  }
  const Flag* closest = nullptr;
  size_t best = 3;  // suggest only near misses
  for (const Flag* flag : command.flags) {
    const size_t distance = EditDistance(name, flag->name);
    if (distance < best) {
      best = distance;
      closest = flag;
    }
  }
  std::string message = absl::StrCat("unknown flag ", absl::CEscape(arg));
  if (closest != nullptr) {
    absl::StrAppend(&message, " (did you mean --", closest->name, "?)");
  } else {
    absl::StrAppend(&message, " (", HelpHint(command), ")");
  }
  return absl::InvalidArgumentError(message);
}

size_t ArgumentCount(const Command& command) {
  const std::vector<absl::string_view> names = absl::StrSplit(command.args, ' ', absl::SkipEmpty());
  return names.size();
}

constexpr absl::string_view kCountWords[] = {"no", "one", "two", "three", "four"};

std::string CountWord(size_t n) {
  return n < std::size(kCountWords) ? std::string(kCountWords[n]) : absl::StrCat(n);
}

absl::Status WrongArgumentCount(const Command& command, size_t got,
                                const std::optional<std::pair<std::string, std::string>>& swallowed) {
  const size_t wanted = ArgumentCount(command);
  std::string message = absl::StrCat(command.name, " takes ", CountWord(wanted), " argument",
                                     wanted == 1 ? "" : "s", ", ", command.args, ", and got ",
                                     got == 0 ? "none" : CountWord(got));
  if (swallowed.has_value() && got < wanted) {
    absl::StrAppend(&message, ": --", swallowed->first, " took \"", absl::CEscape(swallowed->second),
                    "\" as its value");
  }
  return absl::InvalidArgumentError(message);
}

}  // namespace

bool AsksForHelp(absl::Span<const std::string> args) {
  for (const std::string& arg : args) {
    if (arg == "--") return false;
    if (arg == "-h" || arg == "--help") return true;
  }
  return false;
}

absl::StatusOr<CommandLine> ParseCommandLine(const Command& command, absl::Span<const std::string> args) {
  CommandLine line;
  absl::flat_hash_map<std::string, std::string> given;
  // The last flag whose value was the next argument: if an argument is then
  // missing, that flag probably took it.
  std::optional<std::pair<std::string, std::string>> swallowed;
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positional || arg == "-" || !absl::StartsWith(arg, "-")) {
      line.args.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag ", absl::CEscape(arg), " (flags start with --; ", HelpHint(command), ")"));
    }
    const absl::string_view body = absl::string_view(arg).substr(2);
    const size_t equals = body.find('=');
    const absl::string_view name = body.substr(0, equals);
    const Flag* flag = FindFlag(command.flags, name);
    if (flag == nullptr) return UnknownFlag(command, arg, name);
    const std::string spelled = absl::StrCat("--", flag->name);
    if (given.contains(flag->name)) return absl::InvalidArgumentError(absl::StrCat(spelled, " is given twice"));
    std::string value;
    if (flag->kind == FlagKind::kSwitch) {
      if (equals != absl::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat(spelled, " takes no value"));
      }
    } else if (equals != absl::string_view::npos) {
      value = std::string(body.substr(equals + 1));
    } else if (i + 1 < args.size() && !absl::StartsWith(args[i + 1], "--")) {
      value = args[++i];
      swallowed = {std::string(flag->name), value};
    } else {
      return absl::InvalidArgumentError(absl::StrCat(spelled, " needs a value: ", spelled, "=", flag->value));
    }
    if (absl::Status s = CheckFlagValue(*flag, spelled, value); !s.ok()) return s;
    given.emplace(std::string(flag->name), std::move(value));
  }
  for (const Flag* flag : command.flags) {
    if (flag->env.empty() || given.contains(flag->name)) continue;
    const char* value = std::getenv(std::string(flag->env).c_str());
    if (value == nullptr || *value == '\0') continue;
    if (absl::Status s = CheckFlagValue(*flag, flag->env, value); !s.ok()) return s;
    given.emplace(std::string(flag->name), value);
  }
  for (const Exclusion& exclusion : command.exclusions) {
    if (given.contains(exclusion.first->name) && given.contains(exclusion.second->name)) {
      return absl::InvalidArgumentError(absl::StrCat("--", exclusion.first->name, " and --",
                                                     exclusion.second->name, " cannot be combined: ",
                                                     exclusion.why));
    }
  }
  if (line.args.size() != ArgumentCount(command)) return WrongArgumentCount(command, line.args.size(), swallowed);
  line.flags = FlagValues(command.flags, std::move(given));
  return line;
}

}  // namespace kiln
