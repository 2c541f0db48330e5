// The flags of `kiln` commands. Each flag is declared once, as a Flag
// constant (cli_flags.h, device_flags.h), and listed in the command table
// (command_table.cc) for every command that takes it; help, usage and the
// parser all read that one declaration, so a flag has one spelling
// everywhere. Parsing checks every value before a command runs, so commands
// read typed values already known to be valid.
//
//   inline constexpr Flag kIters{.name = "iters", .kind = FlagKind::kInt, .value = "N",
//                                .help = "timed repetitions; the median is reported",
//                                .default_value = "50", .min = 1};
//   int64_t iters = line.flags.Int(kIters);   // 50 unless --iters=N was given
//
// On the command line a switch is `--name`; a flag with a value is
// `--name=VALUE` or `--name VALUE`.
#ifndef KILN_FRONTENDS_CLI_FLAGS_H_
#define KILN_FRONTENDS_CLI_FLAGS_H_

#include <cstdint>
#include <limits>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"

namespace kiln {

enum class FlagKind {
  kSwitch,  // --name, no value
  kInt,     // a whole number within [min, max]
  kNumber,  // a finite real number within [min, max]; above 0 when `positive`
  kText,    // any non-empty text (a path, a tile spelling checked by its reader)
  kChoice,  // one of the words of `value`, split at '|': .value = "on|off"
};

struct Flag {
  absl::string_view name;           // as typed after "--": "save-io"
  FlagKind kind = FlagKind::kSwitch;
  absl::string_view value;          // placeholder in help and usage: "DIR"; empty for switches
  absl::string_view help;           // one line, lower case, no final period
  absl::string_view default_value;  // used when the flag is absent; empty: no default
  absl::string_view env;            // environment variable read when the flag is absent
  absl::string_view group;          // empty, or a group help lists apart ("device")
  double min = std::numeric_limits<double>::lowest();
  double max = std::numeric_limits<double>::max();
  bool positive = false;
};

// The flags one command line gave, for the flags its command declares.
class FlagValues {
 public:
  FlagValues() = default;
  FlagValues(std::vector<const Flag*> declared, absl::flat_hash_map<std::string, std::string> given)
      : declared_(std::move(declared)), given_(std::move(given)) {}

  // Given on the command line or through the flag's environment variable.
  bool Has(const Flag& flag) const;
  bool Switch(const Flag& flag) const;
  // The given value, else the default; a flag without either must be
  // checked with Has() first.
  int64_t Int(const Flag& flag) const;
  double Number(const Flag& flag) const;
  std::string Text(const Flag& flag) const;  // kText and kChoice
  // `--name=value` (or `--name`) for each of `flags` that was given, in the
  // order of `flags`: what a child kiln needs to be configured the same way.
  std::vector<std::string> Given(absl::Span<const Flag* const> flags) const;

 private:
  const std::string* Find(const Flag& flag) const;
  std::string ValueOrDefault(const Flag& flag) const;

  std::vector<const Flag*> declared_;
  absl::flat_hash_map<std::string, std::string> given_;  // by flag name
};

// Checks `value` for `flag`: OK, or the one-line error kiln prints
// ("--iters=abc is not a whole number"). `spelled` is how the user wrote the
// flag's name: "--iters", or the environment variable.
absl::Status CheckFlagValue(const Flag& flag, absl::string_view spelled, absl::string_view value);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_FLAGS_H_
