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
#include "graph/host_tensor.h"
#include "graph/tensor_bytes.h"
#include "runtime/device_buffer.h"
#include "runtime/event_timer.h"
#include "runtime/loaded_kernel.h"
#include "runtime/tensor_map.h"

namespace kiln {
namespace {

using Clock = std::chrono::steady_clock;

// Device time each candidate is measured over, at least kMinSamples runs.
constexpr double kMeasureMicros = 20000;
constexpr int kMinSamples = 5;
constexpr int kMaxSamples = 50;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Random values of `dtype`, a block of them copied over and over: timing on
// zeros flatters the tensor cores (seen 13% on an H200).
absl::Status FillRandom(const CudaDriver& driver, const DeviceBuffer& buffer, DType dtype) {
  constexpr int64_t kBlockElements = int64_t{1} << 21;
  const int64_t elements = std::max<int64_t>(1, std::min(kBlockElements, buffer.size() / DTypeSize(dtype)));
  const std::string block = EncodeTensor(RandomTensor(dtype, {elements}, /*seed=*/20261201));
  for (int64_t offset = 0; offset < buffer.size(); offset += static_cast<int64_t>(block.size())) {
    const int64_t bytes = std::min<int64_t>(static_cast<int64_t>(block.size()), buffer.size() - offset);
    if (absl::Status s = CudaCall(driver.MemcpyHtoD(buffer.ptr() + offset, block.data(), static_cast<size_t>(bytes)),
                                  "cuMemcpyHtoD", "tuning inputs");
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
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
  const size_t count = generated.params.size();
  std::vector<CUdeviceptr> pointers(count, 0);
  std::vector<CUtensorMap> maps(count);
  std::vector<void*> args(count, nullptr);
  for (size_t i = 0; i < count; ++i) {
    const KernelParam& param = generated.params[i];
    const CUdeviceptr address = buffers.at(param.node).ptr();
    if (param.kind == KernelParam::Kind::kPointer) {
      pointers[i] = address;
      args[i] = &pointers[i];
    } else {
      absl::StatusOr<CUtensorMap> map = EncodeTensorMap(device.driver(), param.map, address, generated.name);
      if (!map.ok()) return map.status();
      maps[i] = *map;
      args[i] = &maps[i];
    }
  }
  LaunchConfig config;
  config.grid[0] = generated.launch.grid;
  config.block[0] = generated.launch.block;
  config.shared_bytes = generated.launch.shared_bytes;
  auto launch = [&] { return (*loaded)->Launch(config, args.data(), nullptr); };
  absl::StatusOr<double> first = MedianMicros(launch, 1, /*warmup=*/1, nullptr);
  if (!first.ok()) return first.status();
  const int samples = std::clamp(static_cast<int>(kMeasureMicros / std::max(*first, 1.0)), kMinSamples, kMaxSamples);
  return MedianMicros(launch, samples, /*warmup=*/1, nullptr);
}

// The buffers a kernel's candidates run on: random inputs, unwritten outputs.
absl::StatusOr<std::map<NodeId, DeviceBuffer>> TuningBuffers(const Graph& graph, const Kernel& kernel,
                                                            const Device& device) {
  std::map<NodeId, DeviceBuffer> buffers;
  for (const auto& [nodes, inputs] : {std::pair{&kernel.inputs, true}, std::pair{&kernel.outputs, false}}) {
    for (NodeId id : *nodes) {
      const Node& node = graph.node(id);
      absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(TensorBytes(node));
      if (!buffer.ok()) return buffer.status();
      if (inputs) {
        if (absl::Status s = FillRandom(device.driver(), *buffer, node.dtype); !s.ok()) return s;
      }
      buffers.emplace(id, *std::move(buffer));
    }
  }
  return buffers;
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
  absl::StatusOr<std::map<NodeId, DeviceBuffer>> buffers = TuningBuffers(graph, kernel, device);
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
