// kiln sweep FILE --dim=NAME:AXIS --range=A:B: the shape-cliff map. Re-plans
// the graph at each size of one input dim (the dims tied to it following,
// graph/resize_dim.h) and reports each plan's kernels, strategies, threads,
// clusters, HBM bytes and roofline bound, marking the sizes where the plan
// changes. --run also compiles and times each size on the GPU, with one
// kernel cache for the whole sweep, and marks the sizes that run over 1.1x
// their bound. --resources compiles every kernel with NVRTC (no GPU) for its
// registers, spills and occupancy, and marks where the occupancy changes.
// sweep_report.h renders the result.
#include <filesystem>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codegen/kernel_codegen.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/device_flags.h"
#include "frontends/cli/device_io.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/open_gpu.h"
#include "frontends/cli/planned_graph.h"
#include "frontends/cli/resources_report.h"
#include "frontends/cli/sweep_report.h"
#include "frontends/cli/sweep_sizes.h"
#include "frontends/graph_file.h"
#include "fusion/planner.h"
#include "fusion/traffic.h"
#include "graph/atomic_file.h"
#include "graph/resize_dim.h"
#include "runtime/executable.h"

namespace kiln {
namespace {

// The input --dim names and its axis, checked against the graph.
absl::StatusOr<NodeId> SweptInput(const Graph& graph, const SweptDim& dim, const std::string& dim_flag) {
  std::vector<std::string> names;
  for (NodeId id : graph.inputs()) names.push_back(graph.node(id).name);
  absl::StatusOr<NodeId> id = graph.FindNode(dim.input);
  if (!id.ok() || graph.node(*id).op != OpKind::kInput) {
    return absl::InvalidArgumentError(absl::StrCat("--dim=", dim_flag, ": the graph has no input named \"",
                                                   dim.input, "\" (its inputs: ", absl::StrJoin(names, ", "), ")"));
  }
  const Node& input = graph.node(*id);
  if (static_cast<size_t>(dim.axis) >= input.shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("--dim=", dim_flag, ": input \"", dim.input, "\" is ",
                                                   DTypeName(input.dtype), DimsString(input.shape), ", with axes 0..",
                                                   static_cast<int>(input.shape.size()) - 1));
  }
  return *id;
}

// One size's plan as the sweep reports it; each kernel's threads and cluster
// are those its generated code launches with. With `resources`, each kernel
// is compiled with NVRTC for what ptxas gives it.
absl::StatusOr<SweepStep> StepOf(const Graph& graph, const Plan& plan, const DeviceLimits& limits, int64_t size,
                                 bool resources) {
  SweepStep step{.size = size, .bytes = plan.total.bytes(), .roofline_us = PlanRoofline(plan, limits) * 1e6};
  for (const Kernel& kernel : plan.kernels) {
    absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, kernel, limits);
    if (!generated.ok()) return generated.status();
    SweepKernel swept{.name = kernel.name,
                      .kind = std::string(KernelKindName(kernel.kind)),
                      .strategy = kernel.Strategy(),
                      .grid = generated->launch.grid,
                      .threads = static_cast<int>(generated->launch.block),
                      .cluster = static_cast<int>(generated->launch.cluster)};
    if (resources) {
      absl::StatusOr<ResourceRow> row = CompileResourceRow(*generated, limits);
      if (!row.ok()) return row.status();
      swept.resources = SweepResources{.registers = row->resources.registers,
                                       .spill_bytes = row->resources.spill_store_bytes,
                                       .blocks_per_sm = row->occupancy.blocks,
                                       .limited_by = OccupancyLimitNames(row->occupancy),
                                       .waves = row->waves};
    }
    step.kernels.push_back(std::move(swept));
  }
  return step;
}

// Compiles `graph` and times it on seeded random inputs drawn on the device:
// the whole plan's median, in microseconds.
absl::StatusOr<double> TimeOnDevice(const Graph& graph, const Device& device, KernelCache& cache,
                                    const ExecutableOptions& options, int iters, std::optional<Plan>& plan) {
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(graph, device, cache, options);
  if (!exe.ok()) return exe.status();
  plan = (*exe)->plan();
  absl::StatusOr<DeviceIo> io = DrawIo(graph, device, cache, /*seed=*/1);
  if (!io.ok()) return io.status();
  absl::StatusOr<PlanTimings> timings = (*exe)->Time(io->inputs, io->outputs, iters);
  if (!timings.ok()) return timings.status();
  return timings->total_us;
}

}  // namespace

int RunSweepCommand(const CommandLine& line) {
  const FlagValues& flags = line.flags;
  absl::StatusOr<SweptDim> dim = SweptDimFromFlags(flags);
  if (!dim.ok()) return ReportUsageError(dim.status().message());
  absl::StatusOr<std::vector<int64_t>> sizes = SweepSizesFromFlags(flags);
  if (!sizes.ok()) return ReportUsageError(sizes.status().message());
  absl::StatusOr<std::optional<MatmulConfig>> tile = MatmulTileFromFlags(flags);
  if (!tile.ok()) return ReportUsageError(tile.status().message());

  const bool run = flags.Switch(kSweepRun);
  if (flags.Has(kIters) && !run) return ReportUsageError("--iters times the sizes of --run; add --run");
  std::unique_ptr<Device> device;
  if (run) {
    absl::StatusOr<std::unique_ptr<Device>> opened = OpenGpu("run on");
    if (!opened.ok()) return ReportError(opened.status());
    device = *std::move(opened);
  }
  const DeviceLimits limits =
      run ? LimitsFromFlags(flags, DeviceLimitsOf(device->info())) : LimitsFromFlags(flags, DeviceLimits{});
  const std::string path = line.args[0];
  absl::StatusOr<Graph> graph = LoadGraphFile(path);
  if (!graph.ok()) return ReportError(graph.status());
  absl::StatusOr<NodeId> input = SweptInput(*graph, *dim, flags.Text(kDim));
  if (!input.ok()) return ReportUsageError(input.status().message());

  const bool fused = !flags.Switch(kUnfused);
  Sweep sweep{.graph = std::filesystem::path(path).stem().string(),
              .input = dim->input,
              .axis = dim->axis,
              .fused = fused,
              .target = run ? device->info().name : DefaultTargetName(flags),
              .ran = run,
              .resources = flags.Switch(kResources)};
  const ExecutableOptions options{
      .fuse = fused,
      .plan = PlanOptionsFromFlags(flags),
      .limits = limits,
      .matmul_config = *tile,
      .tuning = {.progress = [](absl::string_view progress) { absl::FPrintF(stderr, "%s\n", progress); }}};
  KernelCache cache;  // one for the whole sweep: sizes that plan alike share kernels
  for (int64_t size : *sizes) {
    // Errors say at which size the graph stopped fitting.
    auto at_size = [&](const absl::Status& s) {
      return absl::Status(s.code(), absl::StrCat(path, ": with ", dim->input, " axis ", dim->axis, " = ", size, ": ",
                                                 s.message()));
    };
    absl::StatusOr<Graph> resized = ResizeDim(*graph, *input, dim->axis, size);
    if (!resized.ok()) return ReportError(at_size(resized.status()));
    std::optional<Plan> plan;
    std::optional<double> measured;
    if (run) {
      absl::StatusOr<double> us =
          TimeOnDevice(*resized, *device, cache, options, static_cast<int>(flags.Int(kIters)), plan);
      if (!us.ok()) return ReportError(at_size(us.status()));
      measured = *us;
    } else {
      absl::StatusOr<Plan> planned = fused ? PlanFusion(*resized, limits, options.plan) : PlanUnfused(*resized, limits, options.plan);
      if (!planned.ok()) return ReportError(at_size(planned.status()));
      if (absl::Status s = ApplyMatmulTileFlag(flags, limits, *planned); !s.ok()) return ReportUsageError(s.message());
      plan = *std::move(planned);
    }
    absl::StatusOr<SweepStep> step = StepOf(*resized, *plan, limits, size, sweep.resources);
    if (!step.ok()) return ReportError(at_size(step.status()));
    step->measured_us = measured;
    sweep.steps.push_back(*std::move(step));
  }
  MarkPlanChanges(sweep.steps);

  if (flags.Has(kSweepSvg)) {
    const std::string svg_path = flags.Text(kSweepSvg);
    if (absl::Status s = WriteFileAtomically(svg_path, SweepSvg(sweep)); !s.ok()) {
      return ReportError(absl::Status(s.code(), absl::StrCat(svg_path, ": ", s.message())));
    }
  }
  absl::PrintF("%s", flags.Switch(kJson) ? SweepJson(sweep) : SweepTable(sweep));
  return kExitOk;
}

}  // namespace kiln
