// How a `kiln` command reports failure: one line on stderr, a non-zero exit.
//
//   if (!graph.ok()) return ReportError(graph.status());   // "kiln: <message>", 1
//   return ReportUsageError(limits.status().message());     // a bad flag value: "kiln: <message>", 2
#ifndef KILN_FRONTENDS_CLI_ERRORS_H_
#define KILN_FRONTENDS_CLI_ERRORS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kiln {

// Prints `kiln: <status message>` on stderr; returns kExitFailure.
int ReportError(const absl::Status& status);

// Prints `kiln: <message>` on stderr; returns kExitUsage.
int ReportUsageError(absl::string_view message);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_ERRORS_H_
