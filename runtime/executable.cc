#include "runtime/executable.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_codegen.h"
#include "fusion/planner.h"
#include "fusion/traffic.h"
#include "runtime/event_timer.h"
#include "runtime/host_transfer.h"
#include "runtime/memory_planner.h"

namespace kiln {
namespace {

DeviceLimits LimitsOf(const DeviceInfo& info) {
  DeviceLimits limits;
  limits.sm_count = info.sm_count;
  limits.registers_per_sm = info.registers_per_sm;
  limits.shared_memory_per_block = info.shared_memory_per_block_optin;
  limits.max_threads_per_block = info.max_threads_per_block;
  limits.supports_clusters = info.supports_clusters;
  return limits;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> Executable::Compile(const Graph& graph, const Device& device,
                                                                KernelCache& cache, ExecutableOptions options) {
  if (absl::Status s = device.Activate(); !s.ok()) return s;
  const DeviceLimits limits = LimitsOf(device.info());
  absl::StatusOr<Plan> plan = options.fuse ? PlanFusion(graph, limits) : PlanUnfused(graph, limits);
  if (!plan.ok()) return plan.status();
  std::unique_ptr<Executable> exe(new Executable(graph, *std::move(plan), device));
  exe->limits_ = limits;
  const Graph& g = exe->graph_;
  const Plan& p = exe->plan_;

  for (const Kernel& kernel : p.kernels) {
    absl::StatusOr<GeneratedKernel> generated = GenerateKernel(g, kernel, limits);
    if (!generated.ok()) return generated.status();
    absl::StatusOr<std::shared_ptr<const CompiledKernel>> compiled =
        cache.GetOrCompile({generated->Source(), kernel.name}, device.info().Arch());
    if (!compiled.ok()) return compiled.status();
    absl::StatusOr<std::unique_ptr<LoadedKernel>> loaded = LoadedKernel::Load((*compiled)->cubin, kernel.name);
    if (!loaded.ok()) return loaded.status();
    exe->generated_.push_back(*std::move(generated));
    exe->loaded_.push_back(*std::move(loaded));
  }

  exe->root_.resize(g.size());
  for (NodeId n = 0; n < g.size(); ++n) {
    exe->root_[n] = g.node(n).op == OpKind::kReshape ? exe->root_[g.node(n).operands[0]] : n;
  }
  // Materialized values that no graph output holds live in the workspace.
  std::vector<bool> held_by_output(g.size(), false);
  for (NodeId o : g.outputs()) held_by_output[exe->root_[o]] = true;
  std::vector<BufferRequest> requests;
  std::vector<NodeId> requested;
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    for (NodeId out : p.kernels[k].outputs) {
      if (held_by_output[out]) continue;
      int last = static_cast<int>(k);
      for (size_t later = k + 1; later < p.kernels.size(); ++later) {
        for (NodeId in : p.kernels[later].inputs) {
          if (exe->root_[in] == out) last = static_cast<int>(later);
        }
      }
      requests.push_back({.bytes = TensorBytes(g.node(out)), .first_kernel = static_cast<int>(k), .last_kernel = last});
      requested.push_back(out);
    }
  }
  const WorkspaceLayout layout = PlanWorkspace(requests);
  exe->workspace_offset_.assign(g.size(), -1);
  for (size_t i = 0; i < requested.size(); ++i) exe->workspace_offset_[requested[i]] = layout.offsets[i];
  exe->workspace_bytes_ = layout.total_bytes;
  return exe;
}

absl::StatusOr<std::vector<CUdeviceptr>> Executable::Bind(absl::Span<const CUdeviceptr> inputs,
                                                          absl::Span<const CUdeviceptr> outputs) const {
  const std::vector<NodeId> graph_inputs = graph_.inputs();
  if (inputs.size() != graph_inputs.size() || outputs.size() != graph_.outputs().size()) {
    return absl::InvalidArgumentError(absl::StrCat("the graph takes ", graph_inputs.size(), " inputs and ",
                                                   graph_.outputs().size(), " outputs; got ", inputs.size(),
                                                   " and ", outputs.size()));
  }
  std::vector<CUdeviceptr> addresses(graph_.size(), 0);
  auto check_aligned = [&](CUdeviceptr ptr, NodeId id) -> absl::Status {
    if (ptr == 0 || ptr % 16 != 0) {
      return absl::InvalidArgumentError(absl::StrCat("device pointer for ", NodeLabel(graph_.node(id)),
                                                     " is null or not 16-byte aligned"));
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = check_aligned(inputs[i], graph_inputs[i]); !s.ok()) return s;
    addresses[graph_inputs[i]] = inputs[i];
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    const NodeId root = root_[graph_.outputs()[j]];
    if (absl::Status s = check_aligned(outputs[j], graph_.outputs()[j]); !s.ok()) return s;
    // The first output holding a computed value is where its kernel writes.
    if (plan_.kernel_of[root] >= 0 && addresses[root] == 0) addresses[root] = outputs[j];
  }
  for (NodeId n = 0; n < graph_.size(); ++n) {
    if (workspace_offset_[n] >= 0) addresses[n] = workspace_.ptr() + workspace_offset_[n];
  }
  for (NodeId n = 0; n < graph_.size(); ++n) {
    if (root_[n] != n) addresses[n] = addresses[root_[n]];
  }
  return addresses;
}

absl::Status Executable::LaunchKernel(size_t k, const std::vector<CUdeviceptr>& addresses, CUstream stream) const {
  const GeneratedKernel& generated = generated_[k];
  std::vector<CUdeviceptr> values;
  for (NodeId param : generated.params) values.push_back(addresses[param]);
  std::vector<void*> args;
  for (CUdeviceptr& value : values) args.push_back(&value);
  LaunchConfig config;
  config.grid[0] = generated.launch.grid;
  config.block[0] = generated.launch.block;
  config.shared_bytes = generated.launch.shared_bytes;
  // A cluster size is declared in the kernel source (__cluster_dims__), so a
  // plain launch forms the clusters.
  return loaded_[k]->Launch(config, args.data(), stream);
}

absl::Status Executable::CopyAliasedOutputs(const std::vector<CUdeviceptr>& addresses,
                                            absl::Span<const CUdeviceptr> outputs, CUstream stream) const {
  for (size_t j = 0; j < outputs.size(); ++j) {
    const NodeId o = graph_.outputs()[j];
    const CUdeviceptr source = addresses[root_[o]];
    if (source == outputs[j]) continue;
    // The output is an input, a view of one, or shares its value with an earlier output.
    const CudaDriver& driver = device_.driver();
    if (absl::Status s = CudaCall(driver.MemcpyDtoDAsync(outputs[j], source, TensorBytes(graph_.node(o)), stream),
                                  "cuMemcpyDtoDAsync", absl::StrCat("output ", graph_.node(o).name));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status Executable::Run(absl::Span<const CUdeviceptr> inputs, absl::Span<const CUdeviceptr> outputs,
                             CUstream stream) {
  if (absl::Status s = device_.Activate(); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  if (workspace_bytes_ > 0 && workspace_.size() < workspace_bytes_) {
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(workspace_bytes_);
    if (!buffer.ok()) return buffer.status();
    workspace_ = *std::move(buffer);
  }
  absl::StatusOr<std::vector<CUdeviceptr>> addresses = Bind(inputs, outputs);
  if (!addresses.ok()) return addresses.status();
  for (size_t k = 0; k < loaded_.size(); ++k) {
    if (absl::Status s = LaunchKernel(k, *addresses, stream); !s.ok()) return s;
  }
  return CopyAliasedOutputs(*addresses, outputs, stream);
}

absl::StatusOr<std::vector<HostTensor>> Executable::RunOnHost(absl::Span<const HostTensor> inputs) {
  if (absl::Status s = device_.Activate(); !s.ok()) return s;
  const std::vector<NodeId> graph_inputs = graph_.inputs();
  if (inputs.size() != graph_inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the graph takes ", graph_inputs.size(), " inputs; got ", inputs.size()));
  }
  std::vector<DeviceBuffer> in_buffers, out_buffers;
  std::vector<CUdeviceptr> in_ptrs, out_ptrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Node& node = graph_.node(graph_inputs[i]);
    if (inputs[i].dtype != node.dtype || inputs[i].shape != node.shape) {
      return absl::InvalidArgumentError(absl::StrCat("input for ", NodeLabel(node), " must be ",
                                                     DTypeName(node.dtype), DimsString(node.shape)));
    }
    const std::string bytes = EncodeTensor(inputs[i]);
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::FromHost(bytes.data(), static_cast<int64_t>(bytes.size()));
    if (!buffer.ok()) return buffer.status();
    in_ptrs.push_back(buffer->ptr());
    in_buffers.push_back(*std::move(buffer));
  }
  for (NodeId o : graph_.outputs()) {
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(TensorBytes(graph_.node(o)));
    if (!buffer.ok()) return buffer.status();
    if (absl::Status s = buffer->Memset8(0xff); !s.ok()) return s;  // NaN in every float dtype
    out_ptrs.push_back(buffer->ptr());
    out_buffers.push_back(*std::move(buffer));
  }
  if (absl::Status s = Run(in_ptrs, out_ptrs); !s.ok()) return s;
  if (absl::Status s = device_.Synchronize(); !s.ok()) return s;
  std::vector<HostTensor> results;
  for (size_t j = 0; j < out_buffers.size(); ++j) {
    const Node& node = graph_.node(graph_.outputs()[j]);
    std::string bytes(static_cast<size_t>(TensorBytes(node)), '\0');
    if (absl::Status s = out_buffers[j].CopyToHost(bytes.data(), static_cast<int64_t>(bytes.size())); !s.ok()) {
      return s;
    }
    results.push_back(DecodeTensor(bytes, node.dtype, node.shape));
  }
  return results;
}

absl::StatusOr<PlanTimings> Executable::Time(absl::Span<const CUdeviceptr> inputs,
                                             absl::Span<const CUdeviceptr> outputs, int iterations) {
  if (absl::Status s = Run(inputs, outputs); !s.ok()) return s;  // warm-up, allocates the workspace
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::vector<CUdeviceptr>> addresses = Bind(inputs, outputs);
  if (!addresses.ok()) return addresses.status();
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  // All samples are queued back to back before any is read, so each start
  // event fires as the previous work ends and launch latency stays out.
  auto timed = [&](const std::function<absl::Status()>& work) -> absl::StatusOr<double> {
    std::vector<EventTimer> timers;
    for (int i = 0; i < iterations; ++i) {
      absl::StatusOr<EventTimer> timer = EventTimer::Create();
      if (!timer.ok()) return timer.status();
      timers.push_back(*std::move(timer));
    }
    for (EventTimer& timer : timers) {
      if (absl::Status s = timer.Start(nullptr); !s.ok()) return s;
      if (absl::Status s = work(); !s.ok()) return s;
      if (absl::Status s = timer.Stop(nullptr); !s.ok()) return s;
    }
    std::vector<double> samples;
    for (const EventTimer& timer : timers) {
      absl::StatusOr<float> ms = timer.ElapsedMs();
      if (!ms.ok()) return ms.status();
      samples.push_back(*ms * 1000.0);
    }
    return median(samples);
  };
  PlanTimings timings;
  for (size_t k = 0; k < loaded_.size(); ++k) {
    absl::StatusOr<double> us = timed([&] { return LaunchKernel(k, *addresses, nullptr); });
    if (!us.ok()) return us.status();
    timings.kernel_us.push_back(*us);
  }
  absl::StatusOr<double> total = timed([&]() -> absl::Status {
    for (size_t k = 0; k < loaded_.size(); ++k) {
      if (absl::Status s = LaunchKernel(k, *addresses, nullptr); !s.ok()) return s;
    }
    return CopyAliasedOutputs(*addresses, outputs, nullptr);
  });
  if (!total.ok()) return total.status();
  timings.total_us = *total;
  return timings;
}

}  // namespace kiln
