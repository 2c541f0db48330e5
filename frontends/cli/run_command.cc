// kiln run FILE: compiles the plan for the GPU, runs it on seeded random
// inputs (or the user's, --inputs), checks the outputs against the reference
// interpreter (--save-outputs keeps them as .npy files), and reports
// per kernel and in total: time, GB/s, the fraction of the copy bandwidth
// measured in the same run, and the fraction of the roofline bound. The GPU
// work fills a RunResult; run_report.h renders it. --measure goes to
// run_measure.cc instead.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "frontends/cli/chrome_trace.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/device_flags.h"
#include "frontends/cli/device_io.h"
#include "frontends/cli/dump_folder.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/open_gpu.h"
#include "frontends/cli/planned_graph.h"
#include "frontends/cli/run_measure.h"
#include "frontends/cli/run_report.h"
#include "frontends/cli/save_io.h"
#include "frontends/cli/tensor_io_flags.h"
#include "frontends/cli/version.h"
#include "fusion/plan_tolerance.h"
#include "fusion/traffic.h"
#include "graph/atomic_file.h"
#include "graph/reference.h"
#include "runtime/event_timer.h"
#include "runtime/executable.h"
#include "runtime/memory_budget.h"
#include "runtime/nvrtc_compiler.h"

namespace kiln {
namespace {

using Clock = std::chrono::steady_clock;

// Launches of the whole plan timed on the host, queued back to back.
constexpr int kHostCalls = 200;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct CopyRates {
  double ceiling = 0;    // a copy of 1 GiB
  double same_size = 0;  // a copy moving the plan's bytes (half read, half written), at most the ceiling's
};

// Device-to-device copies, bytes read plus written per second: the ceiling,
// and a copy as large as the plan's traffic. A smaller copy falls short of
// the ceiling too (its launch, ramp and tail weigh more: on an H100 one of
// 130 MB reached 0.87 of it), so the second says what the plan's size allows.
absl::StatusOr<CopyRates> MeasureCopyRates(const Device& device, int64_t plan_bytes) {
  constexpr int64_t kBytes = int64_t{1} << 30;
  absl::StatusOr<DeviceBuffer> src = DeviceBuffer::Allocate(kBytes);
  if (!src.ok()) return src.status();
  absl::StatusOr<DeviceBuffer> dst = DeviceBuffer::Allocate(kBytes);
  if (!dst.ok()) return dst.status();
  if (absl::Status s = src->Memset8(1); !s.ok()) return s;
  auto rate = [&](int64_t bytes) -> absl::StatusOr<double> {
    absl::StatusOr<double> us = MedianMicros(
        [&] {
          return CudaCall(device.driver().MemcpyDtoDAsync(dst->ptr(), src->ptr(), bytes, nullptr),
                          "cuMemcpyDtoDAsync", "copy rates");
        },
        /*samples=*/20, /*warmup=*/3, nullptr);
    if (!us.ok()) return us.status();
    return 2.0 * bytes / (*us * 1e-6);
  };
  absl::StatusOr<double> ceiling = rate(kBytes);
  if (!ceiling.ok()) return ceiling.status();
  // 16-byte multiples, as the plan's tensors are, so the copy takes vector paths.
  const int64_t half = std::clamp<int64_t>((plan_bytes / 2 + 15) / 16 * 16, 16, kBytes);
  absl::StatusOr<double> same_size = rate(half);
  if (!same_size.ok()) return same_size.status();
  return CopyRates{.ceiling = *ceiling, .same_size = *same_size};
}

RunCheck CheckOutputs(const Graph& graph, const Plan& plan, const std::vector<HostTensor>& outputs,
                      const std::vector<HostTensor>& reference) {
  RunCheck check{.checked = true, .tolerance = PlanCheckTolerance(graph, plan)};
  for (size_t j = 0; j < reference.size(); ++j) {
    const double error = RelativeError(outputs[j], reference[j]);
    check.max_error = std::max(check.max_error, std::isnan(error) ? INFINITY : error);
  }
  return check;
}

RunFigures Figures(const Kernel& kernel, const DeviceLimits& limits, double us, const std::string& compile_note) {
  const bool matmul = kernel.kind == KernelKind::kMatmul;
  return {.name = kernel.name,
          .kind = std::string(KernelKindName(kernel.kind)),
          .strategy = kernel.Strategy(),
          .traffic = kernel.traffic,
          .roofline_us = RooflineSeconds(kernel.traffic, limits) * 1e6,
          .us = us,
          .matmul_config = matmul ? kernel.matmul().config.ToString() : "",
          .matmul_config_source = matmul ? kernel.matmul().config_source : "",
          .compile_note = compile_note};
}

absl::Status WriteTrace(const std::string& path, const RunResult& result, const Executable& exe,
                        const std::vector<KernelSpan>& spans) {
  std::vector<TracedKernel> kernels;
  for (size_t k = 0; k < spans.size(); ++k) {
    const Kernel& kernel = exe.plan().kernels[k];
    std::vector<std::string> nodes;
    for (NodeId n : kernel.nodes) nodes.push_back(exe.graph().node(n).name);
    kernels.push_back({.name = kernel.name,
                       .strategy = kernel.Strategy(),
                       .nodes = std::move(nodes),
                       .bytes = kernel.traffic.bytes(),
                       .start_us = spans[k].start_us,
                       .end_us = spans[k].end_us});
  }
  const std::string json =
      ChromeTraceJson(absl::StrCat("kiln run ", result.graph, " (", result.fused ? "fused" : "unfused", ") on ",
                                   result.gpu),
                      kernels);
  if (absl::Status s = WriteFileAtomically(path, json); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
  return absl::OkStatus();
}

// The first run: on the inputs, checked against the reference unless
// --no-check, its tensors saved with --save-io and --save-outputs (the files
// that one writes are returned).
absl::StatusOr<std::vector<std::string>> RunOnce(Executable& exe, const std::vector<HostTensor>& inputs,
                                                 const FlagValues& flags, RunResult& result) {
  const Clock::time_point start = Clock::now();
  absl::StatusOr<std::vector<HostTensor>> outputs = exe.RunOnHost(inputs);
  if (!outputs.ok()) return outputs.status();
  result.first_result_ms = result.compile_ms + MillisSince(start);
  if (!flags.Switch(kNoCheck)) {
    absl::StatusOr<std::vector<HostTensor>> reference = EvaluateReference(exe.graph(), inputs);
    if (!reference.ok()) return reference.status();
    result.check = CheckOutputs(exe.graph(), exe.plan(), *outputs, *reference);
  }
  if (flags.Has(kSaveIo)) {
    if (absl::Status s = SaveIo(flags.Text(kSaveIo), exe.graph(), inputs, *outputs); !s.ok()) return s;
  }
  return SaveOutputsFromFlags(flags, exe.graph(), *outputs);
}

// The graph's inputs, refused naming the tensor when they would not fit in
// host memory (the reference interpreter holds a double per element).
absl::StatusOr<std::vector<HostTensor>> Inputs(const FlagValues& flags, const Graph& graph) {
  absl::StatusOr<MemoryBudget> host = MemoryBudget::ForHost();
  if (!host.ok()) return host.status();
  for (NodeId id : graph.inputs()) {
    const Node& node = graph.node(id);
    if (absl::Status s = host->Take(node, NumElements(node.shape) * 8); !s.ok()) return s;
  }
  absl::StatusOr<GraphInputs> inputs = InputsFromFlags(flags, graph);
  if (!inputs.ok()) return inputs.status();
  return std::move(inputs->tensors);
}

// Whether the run needs its inputs on the host: the user's files, the
// reference check and --save-io do. Otherwise they are drawn on the device,
// the same values without seconds of host work per gigabyte.
bool NeedsHostInputs(const FlagValues& flags) {
  return flags.Has(kInputs) || !flags.Switch(kNoCheck) || flags.Has(kSaveIo);
}

// The first run on inputs drawn on the device: nothing to check; the outputs
// come back to the host only for --save-outputs.
absl::StatusOr<std::vector<std::string>> RunOnceOnDevice(Executable& exe, const Device& device, KernelCache& cache,
                                                         const FlagValues& flags, DeviceIo& io, RunResult& result) {
  const Clock::time_point start = Clock::now();
  absl::StatusOr<DeviceIo> drawn = DrawIo(exe.graph(), device, cache, static_cast<uint64_t>(flags.Int(kSeed)));
  if (!drawn.ok()) return drawn.status();
  io = *std::move(drawn);
  if (absl::Status s = exe.Run(io.inputs, io.outputs); !s.ok()) return s;
  if (absl::Status s = device.Synchronize(); !s.ok()) return s;
  result.first_result_ms = result.compile_ms + MillisSince(start);
  if (!flags.Has(kSaveOutputs)) return std::vector<std::string>{};
  absl::StatusOr<std::vector<HostTensor>> outputs = DownloadOutputs(exe.graph(), io);
  if (!outputs.ok()) return outputs.status();
  return SaveOutputsFromFlags(flags, exe.graph(), *outputs);
}

// The first run, on inputs from the host or drawn on the device, and the
// device buffers the timing then uses.
absl::StatusOr<std::vector<std::string>> RunFirst(Executable& exe, const Device& device, KernelCache& cache,
                                                  const FlagValues& flags, DeviceIo& io, RunResult& result) {
  result.inputs_drawn_on_device = !NeedsHostInputs(flags);
  if (result.inputs_drawn_on_device) return RunOnceOnDevice(exe, device, cache, flags, io, result);
  absl::StatusOr<std::vector<HostTensor>> inputs = Inputs(flags, exe.graph());
  if (!inputs.ok()) return inputs.status();
  absl::StatusOr<std::vector<std::string>> saved = RunOnce(exe, *inputs, flags, result);
  if (!saved.ok()) return saved.status();
  absl::StatusOr<DeviceIo> uploaded = UploadIo(exe.graph(), *inputs);
  if (!uploaded.ok()) return uploaded.status();
  io = *std::move(uploaded);
  return saved;
}

// Per-kernel and whole-plan medians, the host cost of a launch, and the copy
// rates measured now, on the same GPU.
absl::Status TimeOnDevice(Executable& exe, const Device& device, const DeviceIo& io, RunResult& result) {
  absl::StatusOr<PlanTimings> timings = exe.Time(io.inputs, io.outputs, result.iters);
  if (!timings.ok()) return timings.status();
  const Clock::time_point host_start = Clock::now();
  for (int i = 0; i < kHostCalls; ++i) {
    if (absl::Status s = exe.Run(io.inputs, io.outputs); !s.ok()) return s;
  }
  result.host_us_per_run = MillisSince(host_start) * 1000.0 / kHostCalls;
  // Time has already run these pointers twice, so a plan with a graph replays it here.
  const GraphReplayStats launches = exe.graph_stats();
  result.run_launch = launches.replays > 0          ? "CUDA graph replay"
                      : launches.off_reason.empty() ? "kernel by kernel"
                                                    : absl::StrCat("kernel by kernel: ", launches.off_reason);
  if (absl::Status s = device.Synchronize(); !s.ok()) return s;
  const Plan& plan = exe.plan();
  absl::StatusOr<CopyRates> copy = MeasureCopyRates(device, plan.total.bytes());
  if (!copy.ok()) return copy.status();
  result.copy_bytes_per_second = copy->ceiling;
  result.same_size_copy_bytes_per_second = copy->same_size;

  const DeviceLimits limits = exe.limits();
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    result.kernels.push_back(Figures(plan.kernels[k], limits, timings->kernel_us[k], exe.compile_notes()[k]));
  }
  result.total = {.name = "total",
                  .strategy = KernelCount(plan.kernels.size()),
                  .traffic = plan.total,
                  .roofline_us = PlanRoofline(plan, limits) * 1e6,
                  .us = timings->total_us};
  return absl::OkStatus();
}

// --trace FILE, and the dump folder with the run's report and trace.
absl::Status WriteRunFiles(const FlagValues& flags, const PlannedGraph& planned, Executable& exe,
                           const DeviceIo& io, const RunResult& result) {
  if (!flags.Has(kTrace) && !flags.Has(kDump)) return absl::OkStatus();
  absl::StatusOr<std::vector<KernelSpan>> spans = exe.Trace(io.inputs, io.outputs);
  if (!spans.ok()) return spans.status();
  if (flags.Has(kTrace)) {
    if (absl::Status s = WriteTrace(flags.Text(kTrace), result, exe, *spans); !s.ok()) return s;
  }
  if (!flags.Has(kDump)) return absl::OkStatus();
  absl::StatusOr<DumpFolder> dump = DumpPlan(flags.Text(kDump), planned, planned.Chosen(!result.fused), exe.limits());
  if (!dump.ok()) return dump.status();
  if (absl::Status s = dump->Write("run.txt", RunTable(result)); !s.ok()) return s;
  if (absl::Status s = dump->Write("run.json", RunJson(result)); !s.ok()) return s;
  return WriteTrace(dump->PathOf("trace.json"), result, exe, *spans);
}

}  // namespace

int RunRunCommand(const CommandLine& line) {
  const FlagValues& flags = line.flags;
  if (flags.Switch(kMeasure)) return RunMeasuredCommand(line);
  absl::StatusOr<std::unique_ptr<Device>> device = OpenGpu("run on");
  if (!device.ok()) return ReportError(device.status());
  const DeviceLimits limits = LimitsFromFlags(flags, DeviceLimitsOf((*device)->info()));
  PlannedGraph planned;
  if (int status = PlanForTarget(line, {.gpu = (*device)->info().name, .limits = limits}, planned);
      status != kExitOk) {
    return status;
  }

  KernelCache cache;
  const Clock::time_point start = Clock::now();
  // PlanForTarget has checked the tile: it parses and fits every matmul kernel.
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::Compile(
      planned.graph, **device, cache,
      {.fuse = !flags.Switch(kUnfused),
       .plan = planned.target.options,
       .limits = limits,
       .matmul_config = *MatmulTileFromFlags(flags),
       .autotune = flags.Text(kAutotune) == "on",
       .tuning = {.progress = [](absl::string_view line) { absl::FPrintF(stderr, "%s\n", line); }}});
  if (!exe.ok()) return ReportError(planned.InFile(exe.status()));
  RunResult result{.kiln = KilnBuildText(),
                   .graph = planned.name,
                   .fused = !flags.Switch(kUnfused),
                   .gpu = (*device)->info().name,
                   .nvrtc = NvrtcVersion(),
                   .iters = static_cast<int>(flags.Int(kIters)),
                   .compile_ms = MillisSince(start)};

  DeviceIo io;
  absl::StatusOr<std::vector<std::string>> saved = RunFirst(**exe, **device, cache, flags, io, result);
  if (!saved.ok()) return ReportError(saved.status());
  if (absl::Status s = TimeOnDevice(**exe, **device, io, result); !s.ok()) return ReportError(s);
  result.cache = cache.stats();
  if (absl::Status s = WriteRunFiles(flags, planned, **exe, io, result); !s.ok()) return ReportError(s);

  absl::PrintF("%s", flags.Switch(kJson) ? RunJson(result) : RunTable(result));
  if (!flags.Switch(kJson)) {
    for (const std::string& path : *saved) absl::PrintF("saved %s\n", path);
  }
  if (result.check.Passed()) return kExitOk;
  return ReportError(absl::InternalError(absl::StrFormat(
      "%s: result differs from the reference interpreter (relative error %.3g)", result.graph,
      result.check.max_error)));
}

}  // namespace kiln
