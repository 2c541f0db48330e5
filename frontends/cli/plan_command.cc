// kiln plan FILE: the fused plan, kernel by kernel, against the unfused baseline.
//
//   $ kiln plan bench/graphs/gelu_naive_16384x16384_f32.textproto
//   kernel        kind       strategy                 bytes read   bytes written   roofline
//   f0_pointwise  pointwise  vectorized grid-stride   1,073,741,824 1,073,741,824  508.9 us
//   ...
//   --json: machine-readable; --dot: Graphviz source; --svg FILE: rendered with
//   `dot`; --explain: the reason behind every fusion boundary.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/device_flags.h"
#include "frontends/cli/errors.h"
#include "frontends/graph_file.h"
#include "fusion/plan_report.h"
#include "fusion/planner.h"

ABSL_FLAG(bool, json, false, "print machine-readable JSON");
ABSL_FLAG(bool, dot, false, "plan: print Graphviz source, one cluster per kernel");
ABSL_FLAG(std::string, svg, "", "plan: render the Graphviz drawing to this SVG file (needs `dot`)");
ABSL_FLAG(bool, explain, false, "plan: print the reason for every fusion boundary");

namespace kiln {
namespace {

std::string GraphName(const std::string& path) { return std::filesystem::path(path).stem().string(); }

absl::Status RenderSvg(const std::string& dot_source, const std::string& svg_path) {
  const std::string dot_path = svg_path + ".dot.tmp";
  {
    std::ofstream out(dot_path);
    out << dot_source;
    if (!out) return absl::InvalidArgumentError(absl::StrCat("cannot write ", dot_path));
  }
  const std::string command = absl::StrCat("dot -Tsvg '", dot_path, "' -o '", svg_path, "' 2>/dev/null");
  const int rc = std::system(command.c_str());
  std::filesystem::remove(dot_path);
  if (rc != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("could not render ", svg_path, ": Graphviz `dot` failed or is not installed"));
  }
  return absl::OkStatus();
}

}  // namespace

int RunPlanCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return ReportUsageError("plan takes one graph file");
  if (absl::GetFlag(FLAGS_svg).find('\'') != std::string::npos) {
    return ReportUsageError("--svg path must not contain a quote");
  }
  absl::StatusOr<Graph> graph = LoadGraphFile(args[0]);
  if (!graph.ok()) return ReportError(graph.status());
  const absl::StatusOr<DeviceLimits> flag_limits = LimitsFromFlags(DeviceLimits{});
  if (!flag_limits.ok()) return ReportUsageError(flag_limits.status().message());
  const DeviceLimits& limits = *flag_limits;
  absl::StatusOr<Plan> fused = PlanFusion(*graph, limits);
  if (!fused.ok()) return ReportError(fused.status());
  if (absl::Status s = ApplyMatmulTileFlag(limits, *fused); !s.ok()) return ReportUsageError(s.message());
  absl::StatusOr<Plan> unfused = PlanUnfused(*graph, limits);
  if (!unfused.ok()) return ReportError(unfused.status());

  if (absl::GetFlag(FLAGS_json)) {
    absl::PrintF("%s", PlanJson(*graph, GraphName(args[0]), *fused, *unfused, limits));
    return kExitOk;
  }
  if (absl::GetFlag(FLAGS_dot)) {
    absl::PrintF("%s", PlanDot(*graph, *fused));
    return kExitOk;
  }
  if (!absl::GetFlag(FLAGS_svg).empty()) {
    if (absl::Status s = RenderSvg(PlanDot(*graph, *fused), absl::GetFlag(FLAGS_svg)); !s.ok()) {
      return ReportError(s);
    }
    absl::PrintF("wrote %s\n", absl::GetFlag(FLAGS_svg));
    return kExitOk;
  }
  absl::PrintF("%s", PlanTable(*graph, *fused, *unfused, limits));
  if (absl::GetFlag(FLAGS_explain)) absl::PrintF("\n%s", PlanExplain(*graph, *fused));
  return kExitOk;
}

}  // namespace kiln
