#include "runtime/autotuner.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codegen/kernel_codegen.h"
#include "fusion/matmul_candidates.h"
#include "fusion/matmul_schedule.h"
#include "fusion/traffic.h"
#include "runtime/device_buffer.h"
#include "runtime/kernel_timing.h"
#include "runtime/loaded_kernel.h"

namespace kiln {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Candidate {
  MatmulConfig config;
  GeneratedKernel generated;
  std::future<absl::StatusOr<std::shared_ptr<const CompiledKernel>>> compiled;
};

// The median time of one candidate on `buffers` (one per node it touches).
absl::StatusOr<double> TimeCandidate(const Device& device, const GeneratedKernel& generated,
                                     const CompiledKernel& compiled,
                                     const std::map<NodeId, DeviceBuffer>& buffers) {
  absl::StatusOr<std::unique_ptr<LoadedKernel>> loaded = LoadedKernel::Load(compiled.cubin, generated.name);
  if (!loaded.ok()) return loaded.status();
  return TimeKernelAlone(device, generated, **loaded, buffers);
}

absl::StatusOr<TuningReport> TuneKernel(const Graph& graph, Kernel& kernel, const DeviceLimits& limits,
                                        const Device& device, KernelCache& kernels, TuningCache& tuning,
                                        const TuningOptions& options) {
  const Clock::time_point start = Clock::now();
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  TuningReport report{.kernel = kernel.name};
  // The key: the heuristic kernel under a fixed name, so equal kernels of
  // different graphs share one result.
  Kernel keyed = kernel;
  keyed.name = "kiln_tuning_key";
  absl::StatusOr<GeneratedKernel> heuristic = GenerateKernel(graph, keyed, limits);
  if (!heuristic.ok()) return heuristic.status();
  const Hash128 key = TuningKey(heuristic->body, device.info(), limits.Arch());
  if (std::optional<MatmulConfig> cached = tuning.Find(key)) {
    if (ApplyMatmulConfig(*cached, "tuning cache", limits, kernel.matmul()).ok()) {
      report.config = *cached;
      report.source = "tuning cache";
      report.seconds = SecondsSince(start);
      say(absl::StrCat("tuning ", kernel.name, ": ", cached->ToString(), " from the tuning cache"));
      return report;
    }
  }

  const MatmulSchedule heuristic_schedule = kernel.matmul();
  std::vector<Candidate> candidates;
  for (const MatmulConfig& config : MatmulCandidates(heuristic_schedule, limits)) {
    Kernel trial = kernel;
    if (!ApplyMatmulConfig(config, "candidate", limits, trial.matmul()).ok()) continue;
    absl::StatusOr<GeneratedKernel> generated = GenerateKernel(graph, trial, limits);
    if (!generated.ok()) return generated.status();
    candidates.push_back({.config = config, .generated = *std::move(generated)});
  }
  say(absl::StrCat("tuning ", kernel.name, " (", MatmulTierName(heuristic_schedule.tier), ", ",
                   DimsString(graph.node(kernel.nodes.front()).shape), "): ", candidates.size(), " candidates"));
  // Every candidate compiles at once; NVRTC and the kernel cache are thread-safe.
  const std::string arch = limits.Arch();
  for (Candidate& c : candidates) {
    c.compiled = std::async(std::launch::async, [&kernels, &c, &arch, &kernel] {
      return kernels.GetOrCompile({c.generated.Source(), kernel.name}, arch);
    });
  }
  absl::StatusOr<std::map<NodeId, DeviceBuffer>> buffers = TuningBuffers(graph, *heuristic, device, kernels);
  if (!buffers.ok()) return buffers.status();

  double best = -1;
  for (Candidate& c : candidates) {
    absl::StatusOr<std::shared_ptr<const CompiledKernel>> compiled = c.compiled.get();
    absl::StatusOr<double> us =
        compiled.ok() ? TimeCandidate(device, c.generated, **compiled, *buffers) : compiled.status();
    if (!us.ok()) {
      say(absl::StrCat("  ", c.config.ToString(), ": skipped (", us.status().message().substr(0, 200), ")"));
      continue;
    }
    say(absl::StrFormat("  %-16s %10.1f us", c.config.ToString(), *us));
    ++report.candidates;
    if (c.config == heuristic_schedule.config) report.heuristic_us = *us;
    if (best < 0 || *us < best) {
      best = *us;
      report.config = c.config;
    }
  }
  if (best < 0) {
    return absl::InternalError(absl::StrCat("kernel ", kernel.name, ": no matmul candidate compiled and ran"));
  }
  if (absl::Status s = ApplyMatmulConfig(report.config, "tuned", limits, kernel.matmul()); !s.ok()) return s;
  tuning.Store(key, report.config);
  report.source = "tuned";
  report.best_us = best;
  report.seconds = SecondsSince(start);
  say(absl::StrFormat("  chose %s: %.1f us%s, tuned in %.1f s", report.config.ToString(), best,
                      report.heuristic_us > 0 ? absl::StrFormat(", %.2fx the heuristic's", report.heuristic_us / best)
                                              : std::string(),
                      report.seconds));
  return report;
}

}  // namespace

absl::StatusOr<std::vector<TuningReport>> TuneMatmulKernels(const Graph& graph, Plan& plan,
                                                            const DeviceLimits& limits, const Device& device,
                                                            KernelCache& kernels, TuningCache& tuning,
                                                            const TuningOptions& options) {
  if (absl::Status s = device.Activate(); !s.ok()) return s;
  std::vector<TuningReport> reports;
  for (Kernel& kernel : plan.kernels) {
    if (kernel.kind != KernelKind::kMatmul || kernel.matmul().config_source != "heuristic") continue;
    absl::StatusOr<TuningReport> report = TuneKernel(graph, kernel, limits, device, kernels, tuning, options);
    if (!report.ok()) return report.status();
    reports.push_back(*std::move(report));
  }
  return reports;
}

}  // namespace kiln
