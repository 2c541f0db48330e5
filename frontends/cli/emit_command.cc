// kiln emit FILE [--unfused]: the CUDA source of every kernel of the plan as
// one translation unit, so `nvcc -gencode=arch=compute_90a,code=sm_90a -c`
// compiles the output as it is.
// Each kernel follows a comment with its launch configuration and the graph
// value each parameter carries.
#include "absl/strings/str_format.h"
#include "codegen/kernel_codegen.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/dump_folder.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/planned_graph.h"

namespace kiln {

int RunEmitCommand(const CommandLine& line) {
  const FlagValues& flags = line.flags;
  PlannedGraph planned;
  if (int status = PlanWithoutDevice(line, planned); status != kExitOk) return status;
  const Plan& plan = planned.Chosen(flags.Switch(kUnfused));
  absl::StatusOr<std::string> source = EmitTranslationUnit(planned.graph, plan, planned.target.limits);
  if (!source.ok()) return ReportError(planned.InFile(source.status()));
  if (flags.Has(kDump)) {
    absl::StatusOr<DumpFolder> dump = DumpPlan(flags.Text(kDump), planned, plan, planned.target.limits);
    if (!dump.ok()) return ReportError(dump.status());
  }
  absl::PrintF("%s", *source);
  return kExitOk;
}

}  // namespace kiln
