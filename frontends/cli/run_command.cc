// kiln run FILE [--unfused] [--iters N] [--json] [--save-io DIR] [--nocheck]:
// compiles the plan for the GPU, runs it on seeded random inputs, checks the
// outputs against the reference interpreter, and reports per kernel and in
// total: time, GB/s, the fraction of the copy bandwidth measured in the same
// run, and the fraction of the roofline bound.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/device_flags.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/tensor_io_flags.h"
#include "frontends/graph_file.h"
#include "fusion/traffic.h"
#include "graph/tensor_bytes.h"
#include "graph/reference.h"
#include "runtime/event_timer.h"
#include "runtime/executable.h"
#include "runtime/memory_budget.h"
#include "runtime/nvrtc_compiler.h"

ABSL_FLAG(bool, unfused, false, "run/emit the unfused baseline: one kernel per op");
ABSL_FLAG(int, iters, 50, "run: timed repetitions (the median is reported)");
ABSL_FLAG(std::string, save_io, "", "run: write inputs and outputs as raw tensors and io.json here");
ABSL_FLAG(bool, check, true, "run: check the outputs against the reference interpreter");
ABSL_DECLARE_FLAG(bool, json);

namespace kiln {
namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Device-to-device copy of 1 GiB, bytes read plus written per second.
absl::StatusOr<double> MeasureCopyBytesPerSecond(const Device& device) {
  constexpr int64_t kBytes = int64_t{1} << 30;
  absl::StatusOr<DeviceBuffer> src = DeviceBuffer::Allocate(kBytes);
  if (!src.ok()) return src.status();
  absl::StatusOr<DeviceBuffer> dst = DeviceBuffer::Allocate(kBytes);
  if (!dst.ok()) return dst.status();
  if (absl::Status s = src->Memset8(1); !s.ok()) return s;
  absl::StatusOr<double> us = MedianMicros(
      [&] {
        return CudaCall(device.driver().MemcpyDtoDAsync(dst->ptr(), src->ptr(), kBytes, nullptr),
                        "cuMemcpyDtoDAsync", "copy ceiling");
      },
      /*samples=*/20, /*warmup=*/3, nullptr);
  if (!us.ok()) return us.status();
  return 2.0 * kBytes / (*us * 1e-6);
}

absl::Status SaveIo(const std::string& dir, const Graph& graph, const std::vector<HostTensor>& inputs,
                    const std::vector<HostTensor>& outputs) {
  std::filesystem::create_directories(dir);
  std::vector<std::string> entries;
  // Files are named by role and position, never by node name: a name may
  // hold '/' or "..", and nothing outside DIR may be written.
  auto save = [&](NodeId id, const HostTensor& tensor, absl::string_view role, size_t index) -> absl::Status {
    const Node& node = graph.node(id);
    const std::string file = absl::StrCat(role, index, ".bin");
    const std::string path = absl::StrCat(dir, "/", file);
    std::ofstream out(path, std::ios::binary);
    const std::string bytes = EncodeTensor(tensor);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
    entries.push_back(absl::StrFormat(R"({"name": "%s", "file": "%s", "dtype": "%s", "shape": [%s], "role": "%s"})",
                                      node.name, file, DTypeName(node.dtype), absl::StrJoin(node.shape, ", "), role));
    return absl::OkStatus();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = save(graph.inputs()[i], inputs[i], "input", i); !s.ok()) return s;
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (absl::Status s = save(graph.outputs()[j], outputs[j], "output", j); !s.ok()) return s;
  }
  std::ofstream manifest(absl::StrCat(dir, "/io.json"));
  manifest << "{\"tensors\": [\n  " << absl::StrJoin(entries, ",\n  ") << "\n]}\n";
  return manifest ? absl::OkStatus() : absl::InternalError(absl::StrCat("cannot write ", dir, "/io.json"));
}


}  // namespace

int RunRunCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return ReportUsageError("run takes one graph file");
  const bool json = absl::GetFlag(FLAGS_json);
  const int iters = std::max(1, absl::GetFlag(FLAGS_iters));
  absl::StatusOr<Graph> graph = LoadGraphFile(args[0]);
  if (!graph.ok()) return ReportError(graph.status());
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Open(0);
  if (!device.ok()) return ReportError(absl::Status(device.status().code(), absl::StrCat("no GPU to run on: ", device.status().message())));

  const absl::StatusOr<DeviceLimits> limits = LimitsFromFlags(DeviceLimitsOf((*device)->info()));
  if (!limits.ok()) return ReportUsageError(limits.status().message());
  const absl::StatusOr<std::optional<MatmulConfig>> matmul_tile = MatmulTileFromFlag();
  if (!matmul_tile.ok()) return ReportUsageError(matmul_tile.status().message());
  KernelCache cache;
  const Clock::time_point start = Clock::now();
  absl::StatusOr<std::unique_ptr<Executable>> exe =
      Executable::Compile(*graph, **device, cache,
                          {.fuse = !absl::GetFlag(FLAGS_unfused),
                           .limits = *limits,
                           .matmul_config = *matmul_tile});
  if (!exe.ok()) return ReportError(exe.status());
  const double compile_ms = MillisSince(start);

  // Random inputs are doubles on the host: refused, naming the tensor, if they cannot fit.
  absl::StatusOr<MemoryBudget> host = MemoryBudget::ForHost();
  if (!host.ok()) return ReportError(host.status());
  for (NodeId id : graph->inputs()) {
    const Node& node = graph->node(id);
    if (absl::Status s = host->Take(node, NumElements(node.shape) * 8); !s.ok()) return ReportError(s);
  }
  absl::StatusOr<GraphInputs> graph_inputs = InputsFromFlags(*graph);
  if (!graph_inputs.ok()) return ReportError(graph_inputs.status());
  const std::vector<HostTensor>& inputs = graph_inputs->tensors;
  const Clock::time_point first_run = Clock::now();
  absl::StatusOr<std::vector<HostTensor>> outputs = (*exe)->RunOnHost(inputs);
  if (!outputs.ok()) return ReportError(outputs.status());
  const double first_result_ms = compile_ms + MillisSince(first_run);

  double max_error = 0;
  const double tolerance = CheckTolerance(*graph);
  bool passed = true;
  if (absl::GetFlag(FLAGS_check)) {
    absl::StatusOr<std::vector<HostTensor>> reference = EvaluateReference(*graph, inputs);
    if (!reference.ok()) return ReportError(reference.status());
    for (size_t j = 0; j < reference->size(); ++j) {
      const double error = RelativeError((*outputs)[j], (*reference)[j]);
      max_error = std::max(max_error, std::isnan(error) ? INFINITY : error);
    }
    passed = max_error < tolerance;
  }
  absl::StatusOr<std::vector<std::string>> saved = SaveOutputsFromFlags(*graph, *outputs);
  if (!saved.ok()) return ReportError(saved.status());
  if (!absl::GetFlag(FLAGS_save_io).empty()) {
    if (absl::Status s = SaveIo(absl::GetFlag(FLAGS_save_io), *graph, inputs, *outputs); !s.ok()) return ReportError(s);
  }

  // Timing on device-resident copies of the same inputs.
  std::vector<DeviceBuffer> buffers;
  std::vector<CUdeviceptr> in_ptrs, out_ptrs;
  for (const HostTensor& input : inputs) {
    const std::string bytes = EncodeTensor(input);
    absl::StatusOr<DeviceBuffer> b = DeviceBuffer::FromHost(bytes.data(), static_cast<int64_t>(bytes.size()));
    if (!b.ok()) return ReportError(b.status());
    in_ptrs.push_back(b->ptr());
    buffers.push_back(*std::move(b));
  }
  for (NodeId o : graph->outputs()) {
    absl::StatusOr<DeviceBuffer> b = DeviceBuffer::Allocate(TensorBytes(graph->node(o)));
    if (!b.ok()) return ReportError(b.status());
    out_ptrs.push_back(b->ptr());
    buffers.push_back(*std::move(b));
  }
  absl::StatusOr<PlanTimings> timings = (*exe)->Time(in_ptrs, out_ptrs, iters);
  if (!timings.ok()) return ReportError(timings.status());
  // Host cost of one Run call: enqueue many, then wait once.
  constexpr int kHostCalls = 200;
  const Clock::time_point host_start = Clock::now();
  for (int i = 0; i < kHostCalls; ++i) {
    if (absl::Status s = (*exe)->Run(in_ptrs, out_ptrs); !s.ok()) return ReportError(s);
  }
  const double host_us = MillisSince(host_start) * 1000.0 / kHostCalls;
  if (absl::Status s = (*device)->Synchronize(); !s.ok()) return ReportError(s);
  absl::StatusOr<double> copy = MeasureCopyBytesPerSecond(**device);
  if (!copy.ok()) return ReportError(copy.status());

  const Plan& plan = (*exe)->plan();
  const DeviceLimits plan_limits = (*exe)->limits();
  const CacheStats stats = cache.stats();
  const std::string name = std::filesystem::path(args[0]).stem().string();
  auto figures = [&](const Traffic& traffic, double roofline_s, double us) {
    const double bytes_per_s = traffic.bytes() / (us * 1e-6);
    return absl::StrFormat(
        R"("us": %.3f, "bytes": %d, "flops": %.0f, "gbps": %.1f, "fraction_of_copy": %.4f, "roofline_us": %.3f, "fraction_of_roofline": %.4f)",
        us, traffic.bytes(), traffic.flops, bytes_per_s / 1e9, bytes_per_s / *copy,
        roofline_s * 1e6, roofline_s * 1e6 / us);
  };
  if (json) {
    std::vector<std::string> kernels;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const Kernel& kernel = plan.kernels[k];
      kernels.push_back(absl::StrFormat(R"({"name": "%s", "kind": "%s", "strategy": "%s", %s})", kernel.name,
                                        KernelKindName(kernel.kind), kernel.Strategy(),
                                        figures(kernel.traffic, RooflineSeconds(kernel.traffic, plan_limits),
                                                timings->kernel_us[k])));
    }
    absl::PrintF(
        "{\"graph\": \"%s\", \"plan\": \"%s\", \"gpu\": \"%s\", \"nvrtc\": \"%s\", \"copy_gbps\": %.1f, "
        "\"iters\": %d,\n \"total\": {%s},\n \"kernels\": [\n  %s\n ],\n"
        " \"check\": {\"max_rel_error\": %.3g, \"tolerance\": %.0e, \"passed\": %s, \"checked\": %s},\n"
        " \"compile_ms\": %.1f, \"first_result_ms\": %.1f, \"host_us_per_run\": %.2f,\n"
        " \"cache\": {\"compiles\": %d, \"disk_hits\": %d, \"memory_hits\": %d}}\n",
        name, plan.fused ? "fused" : "unfused", (*device)->info().name, NvrtcVersion(), *copy / 1e9, iters,
        figures(plan.total, PlanRoofline(plan, plan_limits), timings->total_us), absl::StrJoin(kernels, ",\n  "), max_error, tolerance,
        passed ? "true" : "false", absl::GetFlag(FLAGS_check) ? "true" : "false", compile_ms, first_result_ms,
        host_us, stats.compiles, stats.disk_hits, stats.memory_hits);
  } else {
    absl::PrintF("%s (%s plan) on %s; copy ceiling %.0f GB/s\n", name, plan.fused ? "fused" : "unfused",
                 (*device)->info().name, *copy / 1e9);
    absl::PrintF("%-18s %-44s %10s %10s %8s %11s\n", "kernel", "strategy", "time us", "GB/s", "% copy",
                 "% roofline");
    auto row = [&](absl::string_view label, absl::string_view strategy, const Traffic& t, double roofline_s,
                   double us) {
      const double bps = t.bytes() / (us * 1e-6);
      absl::PrintF("%-18s %-44s %10.1f %10.0f %7.1f%% %10.1f%%\n", label, strategy, us, bps / 1e9,
                   100 * bps / *copy, 100 * roofline_s * 1e6 / us);
    };
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const Kernel& kernel = plan.kernels[k];
      row(kernel.name, kernel.Strategy(), kernel.traffic, RooflineSeconds(kernel.traffic, plan_limits),
          timings->kernel_us[k]);
    }
    row("total", absl::StrCat(plan.kernels.size(), " kernels"), plan.total, PlanRoofline(plan, plan_limits),
        timings->total_us);
    if (absl::GetFlag(FLAGS_check)) {
      absl::PrintF("check: max relative error %.3g (tolerance %.0e): %s\n", max_error, tolerance,
                   passed ? "PASS" : "FAIL");
    }
    absl::PrintF("compile %.1f ms (%d compiled, %d from disk cache); first result after %.1f ms; host %.2f us per Run\n",
                 compile_ms, stats.compiles, stats.disk_hits, first_result_ms, host_us);
    for (const std::string& path : *saved) absl::PrintF("saved %s\n", path);
  }
  return passed ? kExitOk : ReportError(absl::InternalError(absl::StrFormat(
                                "%s: result differs from the reference interpreter (relative error %.3g)", name, max_error)));
}

}  // namespace kiln
