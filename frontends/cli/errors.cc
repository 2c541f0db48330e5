#include "frontends/cli/errors.h"

#include <cstdio>
#include <string>

#include "frontends/cli/commands.h"

namespace kiln {
namespace {

void PrintLine(absl::string_view message) {
  // Flushed first so that, on a terminal, the error follows any results.
  std::fflush(stdout);
  std::fprintf(stderr, "kiln: %s\n", std::string(message).c_str());
}

}  // namespace

int ReportError(const absl::Status& status) {
  PrintLine(status.message());
  return kExitFailure;
}

int ReportUsageError(absl::string_view message) {
  PrintLine(message);
  return kExitUsage;
}

}  // namespace kiln
