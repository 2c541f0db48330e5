#include "runtime/executable.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "fusion/matmul_schedule.h"
#include "fusion/op_class.h"
#include "fusion/planner.h"
#include "fusion/traffic.h"
#include "graph/tensor_bytes.h"
#include "runtime/cluster_residency.h"
#include "runtime/event_series.h"
#include "runtime/event_timer.h"
#include "runtime/kernel_timing.h"
#include "runtime/memory_planner.h"
#include "runtime/row_cluster_tuner.h"
#include "runtime/tensor_map.h"

namespace kiln {
DeviceLimits DeviceLimitsOf(const DeviceInfo& info) {
  DeviceLimits limits;
  limits.sm_count = info.sm_count;
  limits.registers_per_sm = info.registers_per_sm;
  limits.max_threads_per_block = info.max_threads_per_block;
  limits.max_threads_per_sm = info.max_threads_per_sm;
  limits.supports_clusters = info.supports_clusters;
  limits.shared_bytes_per_block = info.shared_memory_per_block_optin;
  limits.compute_capability = info.sm_major * 10 + info.sm_minor;
  limits.cluster_residency = info.cluster_residency;
  return limits;
}

std::string KernelRangeName(const Graph& graph, const Kernel& kernel, size_t max_nodes) {
  std::string name = absl::StrCat(kernel.name, ":");
  for (size_t i = 0; i < kernel.nodes.size() && i < max_nodes; ++i) {
    absl::StrAppend(&name, " ", graph.node(kernel.nodes[i]).name);
  }
  if (kernel.nodes.size() > max_nodes) absl::StrAppend(&name, " (+", kernel.nodes.size() - max_nodes, " more)");
  return name;
}

absl::StatusOr<std::unique_ptr<Executable>> Executable::Compile(const Graph& graph, const Device& device,
                                                                KernelCache& cache, ExecutableOptions options) {
  if (absl::Status s = device.Activate(); !s.ok()) return s;
  DeviceLimits limits = options.limits.value_or(DeviceLimitsOf(device.info()));
  limits.supports_clusters = limits.supports_clusters && device.info().supports_clusters;
  absl::StatusOr<Plan> plan = options.fuse ? PlanFusion(graph, limits, options.plan) : PlanUnfused(graph, limits, options.plan);
  if (!plan.ok()) return plan.status();
  if (options.matmul_config.has_value()) {
    if (absl::Status s = OverrideMatmulConfigs(*options.matmul_config, "--matmul-tile", limits, *plan); !s.ok()) {
      return s;
    }
  }
  std::vector<TuningReport> tuning;
  if (options.autotune) {
    static TuningCache* const default_tuning = new TuningCache();
    absl::StatusOr<std::vector<TuningReport>> tuned =
        TuneMatmulKernels(graph, *plan, limits, device, cache,
                          options.tuning_cache != nullptr ? *options.tuning_cache : *default_tuning, options.tuning);
    if (!tuned.ok()) return tuned.status();
    tuning = *std::move(tuned);
  }
  std::unique_ptr<Executable> exe(new Executable(graph, *std::move(plan), device));
  exe->limits_ = limits;
  exe->tuning_ = std::move(tuning);
  absl::StatusOr<ConstantBuffers> constants = ConstantBuffers::Upload(exe->graph_, exe->plan_);
  if (!constants.ok()) return constants.status();
  exe->constants_ = *std::move(constants);
  const Graph& g = exe->graph_;
  for (Kernel& kernel : exe->plan_.kernels) {
    absl::StatusOr<TunedKernel> tuned = LoadWithTunedRowClusters(g, kernel, limits, device, cache, options.autotune);
    if (!tuned.ok()) return tuned.status();
    const LaunchConfig config = LaunchConfigOf(tuned->generated);
    const std::string residency = ClusterResidencyNote(*tuned->loaded, config, tuned->generated.launch.cluster);
    exe->launch_.push_back(config);
    exe->generated_.push_back(std::move(tuned->generated));
    exe->compile_notes_.push_back(tuned->note.empty() || residency.empty()
                                      ? absl::StrCat(tuned->note, residency)
                                      : absl::StrCat(tuned->note, "; ", residency));
    exe->loaded_.push_back(std::move(tuned->loaded));
  }
  const Plan& p = exe->plan_;
  exe->graph_inputs_ = g.inputs();
  std::vector<std::string> range_names;
  for (const Kernel& kernel : p.kernels) range_names.push_back(KernelRangeName(g, kernel));
  exe->ranges_ = std::make_unique<NvtxRanges>(range_names);

  exe->root_.resize(g.size());
  for (NodeId n = 0; n < g.size(); ++n) exe->root_[n] = ViewRoot(g, n);
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
  for (size_t i = 0; i < requested.size(); ++i) exe->workspace_nodes_.push_back({requested[i], layout.offsets[i]});
  exe->workspace_bytes_ = layout.total_bytes;

  absl::MutexLock lock(&exe->mu_);
  exe->addresses_.assign(g.size(), 0);
  for (const GeneratedKernel& generated : exe->generated_) {
    BoundParams& bound = exe->bound_.emplace_back();
    const size_t count = generated.params.size();
    bound.pointers.assign(count, 0);
    bound.maps.resize(count);
    bound.map_addresses.assign(count, 0);
    for (size_t i = 0; i < count; ++i) {
      const bool map = generated.params[i].kind == KernelParam::Kind::kTensorMap;
      bound.args.push_back(map ? static_cast<void*>(&bound.maps[i]) : static_cast<void*>(&bound.pointers[i]));
    }
  }
  return exe;
}

absl::Status Executable::Bind(absl::Span<const CUdeviceptr> inputs, absl::Span<const CUdeviceptr> outputs) {
  if (inputs.size() != graph_inputs_.size() || outputs.size() != graph_.outputs().size()) {
    return absl::InvalidArgumentError(absl::StrCat("the graph takes ", graph_inputs_.size(), " inputs and ",
                                                   graph_.outputs().size(), " outputs; got ", inputs.size(),
                                                   " and ", outputs.size()));
  }
  auto check_aligned = [&](CUdeviceptr ptr, NodeId id) -> absl::Status {
    if (ptr == 0 || ptr % 16 != 0) {
      return absl::InvalidArgumentError(absl::StrCat("device pointer for ", NodeLabel(graph_.node(id)),
                                                     " is null or not 16-byte aligned"));
    }
    return absl::OkStatus();
  };
  std::fill(addresses_.begin(), addresses_.end(), 0);
  constants_.Bind(addresses_);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = check_aligned(inputs[i], graph_inputs_[i]); !s.ok()) return s;
    addresses_[graph_inputs_[i]] = inputs[i];
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    const NodeId root = root_[graph_.outputs()[j]];
    if (absl::Status s = check_aligned(outputs[j], graph_.outputs()[j]); !s.ok()) return s;
    // The first output holding a computed value is where its kernel writes.
    if (plan_.kernel_of[root] >= 0 && addresses_[root] == 0) addresses_[root] = outputs[j];
  }
  for (const auto& [node, offset] : workspace_nodes_) addresses_[node] = workspace_.ptr() + offset;
  return absl::OkStatus();
}

absl::Status Executable::LaunchKernel(size_t k, CUstream stream) {
  const std::vector<KernelParam>& params = generated_[k].params;
  BoundParams& bound = bound_[k];
  for (size_t i = 0; i < params.size(); ++i) {
    // A view reads its root's memory.
    const CUdeviceptr address = addresses_[root_[params[i].node]];
    if (params[i].kind == KernelParam::Kind::kPointer) {
      bound.pointers[i] = address;
    } else if (bound.map_addresses[i] != address) {
      absl::StatusOr<CUtensorMap> map = EncodeTensorMap(device_.driver(), params[i].map, address, generated_[k].name);
      if (!map.ok()) return map.status();
      bound.maps[i] = *map;
      bound.map_addresses[i] = address;
    }
  }
  ranges_->Push(k);
  absl::Status launched = loaded_[k]->Launch(launch_[k], bound.args.data(), stream);
  ranges_->Pop();
  return launched;
}

// Runs every kernel, then copies any output that is an input, a view of one,
// or shares its value with an earlier output.
absl::Status Executable::LaunchAll(absl::Span<const CUdeviceptr> outputs, CUstream stream) {
  for (size_t k = 0; k < loaded_.size(); ++k) {
    if (absl::Status s = LaunchKernel(k, stream); !s.ok()) return s;
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    const NodeId o = graph_.outputs()[j];
    const CUdeviceptr source = addresses_[root_[o]];
    if (source == outputs[j]) continue;
    const CUresult result =
        device_.driver().MemcpyDtoDAsync(outputs[j], source, TensorBytes(graph_.node(o)), stream);
    if (result != CUDA_SUCCESS) {
      return CudaCall(result, "cuMemcpyDtoDAsync", absl::StrCat("output ", graph_.node(o).name));
    }
  }
  return absl::OkStatus();
}

absl::Status Executable::LaunchPlan(absl::Span<const CUdeviceptr> outputs, CUstream stream) {
  // Every address the launches use: each node's (views read their roots'),
  // and the outputs, which copies of inputs and of repeated values write.
  // Together they are the parameters a captured graph holds.
  graph_key_.assign(addresses_.begin(), addresses_.end());
  graph_key_.insert(graph_key_.end(), outputs.begin(), outputs.end());
  return graphs_.Run(graph_key_, stream, [&](CUstream s) { return LaunchAll(outputs, s); });
}

absl::Status Executable::TakeWorkspace(MemoryBudget& budget) const {
  // In order of where they end, each intermediate adds what it takes past
  // the ones before (alignment padding, under 256 bytes each, is not counted).
  std::vector<std::pair<int64_t, NodeId>> ends;
  for (const auto& [node, offset] : workspace_nodes_) ends.push_back({offset + TensorBytes(graph_.node(node)), node});
  std::sort(ends.begin(), ends.end());
  int64_t reached = 0;
  for (const auto& [end, node] : ends) {
    const Node& n = graph_.node(node);
    if (absl::Status s = budget.Take(n, TensorBytes(n), std::max<int64_t>(end - reached, 0)); !s.ok()) return s;
    reached = std::max(reached, end);
  }
  return absl::OkStatus();
}

absl::Status Executable::Run(absl::Span<const CUdeviceptr> inputs, absl::Span<const CUdeviceptr> outputs,
                             CUstream stream) {
  if (absl::Status s = device_.Activate(); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  if (workspace_bytes_ > 0 && workspace_.size() < workspace_bytes_) {
    absl::StatusOr<MemoryBudget> budget = MemoryBudget::ForDevice();
    if (!budget.ok()) return budget.status();
    if (absl::Status s = TakeWorkspace(*budget); !s.ok()) return s;
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(workspace_bytes_);
    if (!buffer.ok()) return buffer.status();
    workspace_ = *std::move(buffer);
  }
  if (absl::Status s = Bind(inputs, outputs); !s.ok()) return s;
  return LaunchPlan(outputs, stream);
}

absl::Status Executable::CheckRunOnHostFits() {
  absl::StatusOr<MemoryBudget> device = MemoryBudget::ForDevice();
  if (!device.ok()) return device.status();
  absl::StatusOr<MemoryBudget> host = MemoryBudget::ForHost();
  if (!host.ok()) return host.status();
  // On the host the decoded outputs stay (a double per element); the encoded
  // bytes of one tensor at a time are staged on the way in or out.
  const Node* largest = nullptr;
  for (NodeId id : graph_inputs_) {
    const Node& node = graph_.node(id);
    if (absl::Status s = device->Take(node, TensorBytes(node)); !s.ok()) return s;
    if (largest == nullptr || TensorBytes(node) > TensorBytes(*largest)) largest = &node;
  }
  for (NodeId id : graph_.outputs()) {
    const Node& node = graph_.node(id);
    if (absl::Status s = device->Take(node, TensorBytes(node)); !s.ok()) return s;
    const int64_t decoded = NumElements(node.shape) * static_cast<int64_t>(sizeof(double));
    if (absl::Status s = host->Take(node, decoded); !s.ok()) return s;
    if (largest == nullptr || TensorBytes(node) > TensorBytes(*largest)) largest = &node;
  }
  if (absl::Status s = host->Take(*largest, TensorBytes(*largest)); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  return workspace_.size() < workspace_bytes_ ? TakeWorkspace(*device) : absl::OkStatus();
}

absl::StatusOr<std::vector<HostTensor>> Executable::RunOnHost(absl::Span<const HostTensor> inputs) {
  if (absl::Status s = device_.Activate(); !s.ok()) return s;
  if (inputs.size() != graph_inputs_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the graph takes ", graph_inputs_.size(), " inputs; got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Node& node = graph_.node(graph_inputs_[i]);
    if (inputs[i].dtype != node.dtype || inputs[i].shape != node.shape) {
      return absl::InvalidArgumentError(absl::StrCat("input for ", NodeLabel(node), " must be ",
                                                     DTypeName(node.dtype), DimsString(node.shape)));
    }
  }
  if (absl::Status s = CheckRunOnHostFits(); !s.ok()) return s;
  // A failed allocation despite the check (fragmentation, another process)
  // still names the tensor.
  auto for_node = [](const Node& node, const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat(NodeLabel(node), ": ", s.message()));
  };
  std::vector<DeviceBuffer> in_buffers, out_buffers;
  std::vector<CUdeviceptr> in_ptrs, out_ptrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string bytes = EncodeTensor(inputs[i]);
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::FromHost(bytes.data(), static_cast<int64_t>(bytes.size()));
    if (!buffer.ok()) return for_node(graph_.node(graph_inputs_[i]), buffer.status());
    in_ptrs.push_back(buffer->ptr());
    in_buffers.push_back(*std::move(buffer));
  }
  for (NodeId o : graph_.outputs()) {
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(TensorBytes(graph_.node(o)));
    if (!buffer.ok()) return for_node(graph_.node(o), buffer.status());
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
  if (absl::Status s = Bind(inputs, outputs); !s.ok()) return s;
  PlanTimings timings;
  for (size_t k = 0; k < loaded_.size(); ++k) {
    absl::StatusOr<double> us =
        MedianMicros([&] { return LaunchKernel(k, nullptr); }, iterations, /*warmup=*/0, nullptr);
    if (!us.ok()) return us.status();
    timings.kernel_us.push_back(*us);
  }
  // The plan as Run launches it; the warm-up captures its graph, if it has one.
  absl::StatusOr<double> total =
      MedianMicros([&] { return LaunchPlan(outputs, nullptr); }, iterations, /*warmup=*/1, nullptr);
  if (!total.ok()) return total.status();
  timings.total_us = *total;
  return timings;
}

absl::StatusOr<std::vector<KernelSpan>> Executable::Trace(absl::Span<const CUdeviceptr> inputs,
                                                          absl::Span<const CUdeviceptr> outputs) {
  if (absl::Status s = Run(inputs, outputs); !s.ok()) return s;  // warm-up, allocates the workspace
  absl::MutexLock lock(&mu_);
  if (absl::Status s = Bind(inputs, outputs); !s.ok()) return s;
  const int kernels = static_cast<int>(loaded_.size());
  absl::StatusOr<EventSeries> events = EventSeries::Create(2 * kernels);
  if (!events.ok()) return events.status();
  for (int k = 0; k < kernels; ++k) {
    if (absl::Status s = events->Record(2 * k, nullptr); !s.ok()) return s;
    if (absl::Status s = LaunchKernel(k, nullptr); !s.ok()) return s;
    if (absl::Status s = events->Record(2 * k + 1, nullptr); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<double>> us = events->MicrosSinceFirst();
  if (!us.ok()) return us.status();
  std::vector<KernelSpan> spans;
  for (int k = 0; k < kernels; ++k) spans.push_back({(*us)[2 * k], (*us)[2 * k + 1]});
  return spans;
}

}  // namespace kiln
