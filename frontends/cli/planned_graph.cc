#include "frontends/cli/planned_graph.h"

#include <filesystem>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/cli/device_flags.h"
#include "frontends/cli/errors.h"
#include "frontends/graph_file.h"
#include "fusion/planner.h"

namespace kiln {

absl::Status PlannedGraph::InFile(const absl::Status& status) const {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

absl::StatusOr<PlannedGraph> PlanGraphFile(const std::string& path, PlanTarget target) {
  absl::StatusOr<Graph> graph = LoadGraphFile(path);
  if (!graph.ok()) return graph.status();  // already names the file
  PlannedGraph planned{.path = path};
  absl::StatusOr<Plan> fused = PlanFusion(*graph, target.limits, target.options);
  if (!fused.ok()) return planned.InFile(fused.status());
  absl::StatusOr<Plan> unfused = PlanUnfused(*graph, target.limits, target.options);
  if (!unfused.ok()) return planned.InFile(unfused.status());
  return PlannedGraph{.path = path,
                      .name = std::filesystem::path(path).stem().string(),
                      .graph = *std::move(graph),
                      .target = std::move(target),
                      .fused = *std::move(fused),
                      .unfused = *std::move(unfused)};
}

int PlanForTarget(const CommandLine& line, PlanTarget target, PlannedGraph& planned) {
  // A tile that does not parse is refused before the file is read.
  if (absl::StatusOr<std::optional<MatmulConfig>> tile = MatmulTileFromFlags(line.flags); !tile.ok()) {
    return ReportUsageError(tile.status().message());
  }
  target.options = PlanOptionsFromFlags(line.flags);
  absl::StatusOr<PlannedGraph> result = PlanGraphFile(line.args[0], std::move(target));
  if (!result.ok()) return ReportError(result.status());
  for (Plan* plan : {&result->fused, &result->unfused}) {
    if (absl::Status s = ApplyMatmulTileFlag(line.flags, result->target.limits, *plan); !s.ok()) {
      return ReportUsageError(s.message());
    }
  }
  planned = *std::move(result);
  return kExitOk;
}

int PlanWithoutDevice(const CommandLine& line, PlannedGraph& planned) {
  return PlanForTarget(
      line, {.gpu = DefaultTargetName(line.flags), .limits = LimitsFromFlags(line.flags, DeviceLimits{})}, planned);
}

std::string DefaultTargetName(const FlagValues& flags) {
  const std::vector<std::string> given = flags.Given(DeviceFlags());
  if (given.empty()) return "H200 (the default)";
  return absl::StrCat("H200 defaults with ", absl::StrJoin(given, " "));
}

}  // namespace kiln
