// What `kiln help` prints, generated from the command table so that help,
// usage lines and the parser can never disagree about a flag.
//
//   Overview()               // `kiln help`: every command with its summary
//   UsageLine(command)       // "kiln eval FILE [--seed=N] [--scale-down]"
//   CommandHelp(command)     // `kiln help eval`: usage, description, every flag
#ifndef KILN_FRONTENDS_CLI_HELP_H_
#define KILN_FRONTENDS_CLI_HELP_H_

#include <string>

#include "frontends/cli/commands.h"

namespace kiln {

std::string Overview();
// Flags of a group (device flags) appear as one "[device flags]".
std::string UsageLine(const Command& command);
std::string CommandHelp(const Command& command);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_HELP_H_
