// kiln tune FILE: tunes the fused plan's matmul kernels on the GPU ahead of
// time, so that later runs of the graph (kiln run, the C++ API, in any
// process) find their configs in the tuning cache and start at once. Prints
// what tuning chose for each kernel; progress goes to stderr.
#include "absl/strings/str_format.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/device_flags.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/open_gpu.h"
#include "frontends/cli/planned_graph.h"
#include "runtime/executable.h"

namespace kiln {
namespace {

std::string TuningTable(const std::vector<TuningReport>& reports) {
  if (reports.empty()) return "no matmul kernel to tune\n";
  std::string out = absl::StrFormat("%-18s %-26s %-13s %10s %10s %12s %9s\n", "kernel", "config", "from",
                                    "candidates", "best us", "heuristic us", "seconds");
  for (const TuningReport& r : reports) {
    auto us = [](double v) { return v > 0 ? absl::StrFormat("%.1f", v) : std::string("-"); };
    absl::StrAppendFormat(&out, "%-18s %-26s %-13s %10d %10s %12s %9.2f\n", r.kernel, r.config.ToString(), r.source,
                          r.candidates, us(r.best_us), us(r.heuristic_us), r.seconds);
  }
  return out;
}

}  // namespace

int RunTuneCommand(const CommandLine& line) {
  if (line.flags.Has(kMatmulTile)) {
    return ReportUsageError("tune chooses the matmul configs; --matmul-tile fixes one (kiln run times it)");
  }
  absl::StatusOr<std::unique_ptr<Device>> device = OpenGpu("tune on");
  if (!device.ok()) return ReportError(device.status());
  const DeviceLimits limits = LimitsFromFlags(line.flags, DeviceLimitsOf((*device)->info()));
  PlannedGraph planned;
  if (int status = PlanForTarget(line, {.gpu = (*device)->info().name, .limits = limits}, planned);
      status != kExitOk) {
    return status;
  }
  KernelCache cache;
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(
      planned.graph, **device, cache,
      {.plan = planned.target.options,
       .limits = limits,
       .tuning = {.progress = [](absl::string_view progress) { absl::FPrintF(stderr, "%s\n", progress); }}});
  if (!exe.ok()) return ReportError(planned.InFile(exe.status()));
  absl::PrintF("%s (fused plan) on %s\n%s", planned.name, (*device)->info().name, TuningTable((*exe)->tuning()));
  return kExitOk;
}

}  // namespace kiln
