// kiln: the command-line tool. Everything it does is RunCli (cli.h), which
// tests call in-process; the commands are listed in command_table.cc.
#include <string>
#include <vector>

#include "frontends/cli/cli.h"

int main(int argc, char** argv) { return kiln::RunCli(std::vector<std::string>(argv + 1, argv + argc)); }
