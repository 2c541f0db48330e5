#include "runtime/kernel_timing.h"

#include <algorithm>
#include <vector>

#include "fusion/traffic.h"
#include "runtime/device_random.h"
#include "runtime/event_timer.h"
#include "runtime/tensor_map.h"

namespace kiln {
namespace {

// Device time a kernel is measured over, at least kMinSamples runs.
constexpr double kMeasureMicros = 20000;
constexpr int kMinSamples = 5;
constexpr int kMaxSamples = 50;
constexpr uint64_t kTuningSeed = 20261201;

}  // namespace

LaunchConfig LaunchConfigOf(const GeneratedKernel& generated) {
  LaunchConfig config;
  config.grid[0] = generated.launch.grid;
  config.block[0] = generated.launch.block;
  config.shared_bytes = generated.launch.shared_bytes;
  return config;
}

absl::StatusOr<std::map<NodeId, DeviceBuffer>> TuningBuffers(const Graph& graph, const GeneratedKernel& generated,
                                                            const Device& device, KernelCache& cache) {
  std::map<NodeId, DeviceBuffer> buffers;
  for (const KernelParam& param : generated.params) {
    if (buffers.contains(param.node)) continue;
    const Node& node = graph.node(param.node);
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(TensorBytes(node));
    if (!buffer.ok()) return buffer.status();
    if (!param.written) {
      if (absl::Status s = FillRandom(device, cache, node.dtype, NumElements(node.shape), kTuningSeed + param.node,
                                      *buffer);
          !s.ok()) {
        return s;
      }
    }
    buffers.emplace(param.node, *std::move(buffer));
  }
  return buffers;
}

absl::StatusOr<double> TimeKernelAlone(const Device& device, const GeneratedKernel& generated,
                                       const LoadedKernel& loaded, const std::map<NodeId, DeviceBuffer>& buffers) {
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
  const LaunchConfig config = LaunchConfigOf(generated);
  auto launch = [&] { return loaded.Launch(config, args.data(), nullptr); };
  absl::StatusOr<double> first = MedianMicros(launch, 1, /*warmup=*/1, nullptr);
  if (!first.ok()) return first.status();
  const int samples = std::clamp(static_cast<int>(kMeasureMicros / std::max(*first, 1.0)), kMinSamples, kMaxSamples);
  return MedianMicros(launch, samples, /*warmup=*/1, nullptr);
}

}  // namespace kiln
