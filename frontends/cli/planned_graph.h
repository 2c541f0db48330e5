// What `kiln plan`, `emit` and `run` start from: a graph file loaded and
// planned both ways for one target.
//
//   absl::StatusOr<PlannedGraph> p = PlanGraphFile("g.textproto", {.gpu = "H200", .limits = limits});
//   p->name          // "g": the file name without its extension
//   p->Chosen(unfused)  // the plan a command works on
//   p->InFile(status)   // "g.textproto: node \"r\" (reduce_sum): ..."
#ifndef KILN_FRONTENDS_CLI_PLANNED_GRAPH_H_
#define KILN_FRONTENDS_CLI_PLANNED_GRAPH_H_

#include <string>

#include "absl/status/statusor.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/flags.h"
#include "fusion/plan.h"
#include "fusion/plan_report.h"
#include "graph/graph.h"

namespace kiln {

struct PlannedGraph {
  std::string path;
  std::string name;
  Graph graph;
  PlanTarget target;
  Plan fused;
  Plan unfused;

  const Plan& Chosen(bool unfused_plan) const { return unfused_plan ? unfused : fused; }
  // `status` with the file's path in front, like every error about a graph file.
  absl::Status InFile(const absl::Status& status) const;
};

// Errors name the file (InFile).
absl::StatusOr<PlannedGraph> PlanGraphFile(const std::string& path, PlanTarget target);

// The target's name when no GPU is at hand: "H200 (the default)", or with
// device flags given, "H200 defaults with --sm-count=114 --no-clusters".
std::string DefaultTargetName(const FlagValues& flags);

// line.args[0] planned for `target`, with --matmul-tile (when given) in place
// of the planner's config in both plans, into `planned`. On failure the error
// is reported and its exit status returned (kExitUsage for a tile that does
// not parse or does not fit a kernel); kExitOk otherwise.
//
//   PlannedGraph planned;
//   if (int status = PlanForTarget(line, target, planned); status != kExitOk) return status;
int PlanForTarget(const CommandLine& line, PlanTarget target, PlannedGraph& planned);

// For commands that plan without a GPU (plan, emit): PlanForTarget for an
// H200 changed by the device flags.
int PlanWithoutDevice(const CommandLine& line, PlannedGraph& planned);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_PLANNED_GRAPH_H_
