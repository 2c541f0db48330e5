// kiln emit FILE [--unfused]: the CUDA source of every kernel of the plan as one
// translation unit, so `nvcc -arch=sm_90a -c` compiles the output as it is.
#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "codegen/kernel_codegen.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/device_flags.h"
#include "frontends/cli/errors.h"
#include "frontends/graph_file.h"
#include "fusion/planner.h"

ABSL_DECLARE_FLAG(bool, unfused);

namespace kiln {

int RunEmitCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return ReportUsageError("emit takes one graph file");
  absl::StatusOr<Graph> graph = LoadGraphFile(args[0]);
  if (!graph.ok()) return ReportError(graph.status());
  const absl::StatusOr<DeviceLimits> flag_limits = LimitsFromFlags(DeviceLimits{});
  if (!flag_limits.ok()) return ReportUsageError(flag_limits.status().message());
  const DeviceLimits& limits = *flag_limits;
  absl::StatusOr<Plan> plan = absl::GetFlag(FLAGS_unfused) ? PlanUnfused(*graph, limits) : PlanFusion(*graph, limits);
  if (!plan.ok()) return ReportError(plan.status());
  if (absl::Status s = ApplyMatmulTileFlag(limits, *plan); !s.ok()) return ReportUsageError(s.message());
  absl::StatusOr<std::string> source = EmitTranslationUnit(*graph, *plan, limits);
  if (!source.ok()) return ReportError(source.status());
  absl::PrintF("%s", *source);
  return kExitOk;
}

}  // namespace kiln
