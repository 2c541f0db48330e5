// kiln plan FILE: the target GPU, the fused plan kernel by kernel, the unfused
// baseline, and the HBM bytes each moves.
//
//   $ kiln plan bench/graphs/gelu_naive_16384x16384_f32.textproto
//   target: H200 (the default): 132 SMs, 4220 GB/s HBM, ...
//
//   fused plan: 1 kernel
//   kernel        kind       strategy           bytes read   bytes written   roofline
//   f0_pointwise  pointwise  vectorized tiles   1,073,741,824 1,073,741,824  508.9 us
//   ...
//   --json: machine-readable; --dot: Graphviz source; --svg FILE: also rendered
//   with `dot`; --explain: the reason behind every strategy and boundary;
//   --resources: each fused kernel's registers, spills and occupancy (NVRTC).
#include "absl/strings/str_format.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/dump_folder.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/graphviz.h"
#include "frontends/cli/planned_graph.h"
#include "frontends/cli/resources_report.h"

namespace kiln {

int RunPlanCommand(const CommandLine& line) {
  const FlagValues& flags = line.flags;
  PlannedGraph planned;
  if (int status = PlanWithoutDevice(line, planned); status != kExitOk) return status;
  const Graph& graph = planned.graph;

  if (flags.Has(kDump)) {
    absl::StatusOr<DumpFolder> dump = DumpPlan(flags.Text(kDump), planned, planned.fused, planned.target.limits);
    if (!dump.ok()) return ReportError(dump.status());
  }
  if (flags.Has(kSvg)) {
    if (absl::Status s = RenderSvg(PlanDot(graph, planned.fused), flags.Text(kSvg)); !s.ok()) return ReportError(s);
  }
  const bool explain = flags.Switch(kExplain);
  std::vector<ResourceRow> resources;
  if (flags.Switch(kResources)) {
    absl::StatusOr<std::vector<ResourceRow>> rows = PlanResources(graph, planned.fused, planned.target.limits);
    if (!rows.ok()) return ReportError(planned.InFile(rows.status()));
    resources = *std::move(rows);
  }
  if (flags.Switch(kJson)) {
    JsonMembers extra;
    if (flags.Switch(kResources)) extra.push_back({"resources", ResourcesJson(resources)});
    absl::PrintF("%s",
                 PlanJson(graph, planned.name, planned.fused, planned.unfused, planned.target, explain, extra));
  } else if (flags.Switch(kDot)) {
    absl::PrintF("%s", PlanDot(graph, planned.fused));
  } else {
    absl::PrintF("%s", PlanTable(graph, planned.fused, planned.unfused, planned.target));
    if (explain) absl::PrintF("\n%s", PlanExplain(graph, planned.fused));
    if (flags.Switch(kResources)) absl::PrintF("\n%s", ResourcesTable(resources, planned.target.limits));
  }
  return kExitOk;
}

}  // namespace kiln
