// A graph compiled for one GPU: the plan, one loaded kernel per plan kernel,
// and a workspace for intermediates (reused by liveness). Compile once, run
// many times, on the caller's device pointers or on host tensors.
//
//   std::unique_ptr<Device> device = *Device::Open();
//   KernelCache cache;
//   auto exe = *Executable::Compile(graph, *device, cache, {.fuse = true});
//   ABSL_CHECK_OK(exe->Run({x_ptr}, {y_ptr}));            // device pointers, graph order
//   std::vector<HostTensor> outs = *exe->RunOnHost({x});  // copies in and out
//
// Every launch is inside an NVTX range named by KernelRangeName, so Nsight
// Systems shows which graph nodes each kernel on its timeline computes.
//
// The graph's constants are uploaded once, by Compile; UseConstantMemory
// points the kernels at a copy the caller already has on the device.
//
// Run is safe to call from several threads: launches of one Executable are
// serialized because they share its workspace.
//
// Every plan is replayed as a CUDA graph (runtime/graph_replay.h): from the
// second Run on the same device pointers, each Run is one cuGraphLaunch
// instead of a launch per kernel. Its NVTX ranges are pushed when the graph is
// captured, not on every replay. Even one kernel gains: on the H200 a
// one-kernel plan cost the host 2.44 us a Run replayed, 4.12 us launched
// plainly.
#ifndef KILN_RUNTIME_EXECUTABLE_H_
#define KILN_RUNTIME_EXECUTABLE_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/plan.h"
#include "fusion/plan_options.h"
#include "graph/host_tensor.h"
#include "runtime/constant_buffers.h"
#include "runtime/device.h"
#include "runtime/autotuner.h"
#include "runtime/device_buffer.h"
#include "runtime/graph_replay.h"
#include "runtime/kernel_cache.h"
#include "runtime/loaded_kernel.h"
#include "runtime/nvtx_ranges.h"
#include "runtime/tuning_cache.h"
#include "runtime/memory_budget.h"

namespace kiln {

struct ExecutableOptions {
  bool fuse = true;  // false: the unfused baseline, one kernel per op
  PlanOptions plan;  // what the planner may do beyond exact semantics (tf32)
  // Planning limits; unset: the device's own (DeviceLimitsOf). Features the
  // device lacks (clusters) stay off whatever is asked.
  std::optional<DeviceLimits> limits;
  // Set: every matmul kernel runs this config (reported as "--matmul-tile")
  // instead of the planner's.
  std::optional<MatmulConfig> matmul_config;
  // Other matmul kernels take their config from tuning (runtime/autotuner.h):
  // the tuning cache, or timing the candidates on first use of a key. Launch
  // bounds that spill and the clusters of rows split over them are timed
  // too. false: the planner's choices, with no GPU timing.
  bool autotune = true;
  TuningCache* tuning_cache = nullptr;  // null: the process's default cache
  TuningOptions tuning;                 // progress lines
};

// The planning limits of a device: its SM count, registers, shared memory and
// cluster support, with the default H200 rates for the roofline.
DeviceLimits DeviceLimitsOf(const DeviceInfo& info);

// Per-kernel and whole-plan times from Executable::Time, medians in microseconds.
struct PlanTimings {
  std::vector<double> kernel_us;
  double total_us = 0;
};

// When one kernel of one run started and ended, in microseconds from the
// start of the first (Executable::Trace).
struct KernelSpan {
  double start_us = 0;
  double end_us = 0;
};

// What Nsight Systems calls a kernel's launches (an NVTX range around each):
// its name and the nodes it computes, the first `max_nodes` of them.
//   "f0_pointwise: t1 t2 t3 t4 t5 t6 t7 t8 y"
//   "u0_add: a" ... "f3_pointwise: n0 n1 n2 n3 n4 n5 n6 n7 (+12 more)"
std::string KernelRangeName(const Graph& graph, const Kernel& kernel, size_t max_nodes = 8);

class Executable {
 public:
  static absl::StatusOr<std::unique_ptr<Executable>> Compile(const Graph& graph, const Device& device,
                                                             KernelCache& cache, ExecutableOptions options);

  const Graph& graph() const { return graph_; }
  const Plan& plan() const { return plan_; }
  const std::vector<GeneratedKernel>& kernels() const { return generated_; }
  // Per kernel, what compiling and loading it found beyond the plan: empty,
  // or the launch bound tuning chose and what it timed
  // (runtime/launch_bound_tuner.h), the cluster size tuning chose for rows
  // split over clusters (runtime/row_cluster_tuner.h), and for a cluster
  // kernel how many of its clusters fit on the GPU at once
  // (runtime/cluster_residency.h).
  const std::vector<std::string>& compile_notes() const { return compile_notes_; }
  // What tuning decided, one entry per matmul kernel it chose a config for.
  const std::vector<TuningReport>& tuning() const { return tuning_; }
  DeviceLimits limits() const { return limits_; }

  // `inputs` and `outputs` follow graph.inputs() and graph.outputs(); every
  // pointer must be 16-byte aligned (cuMemAlloc's are). The first call
  // allocates the workspace, refused when it does not fit in free memory.
  absl::Status Run(absl::Span<const CUdeviceptr> inputs, absl::Span<const CUdeviceptr> outputs,
                   CUstream stream = nullptr);

  // Copies inputs to the device, fills the outputs with NaN bytes (so an
  // element no kernel writes cannot pass a check), runs, and copies back.
  // Buffers that would not fit in free device or host memory are refused
  // first, naming the tensor (runtime/memory_budget.h).
  absl::StatusOr<std::vector<HostTensor>> RunOnHost(absl::Span<const HostTensor> inputs);

  // Median times over `iterations` runs after a warm-up, per kernel and for
  // the whole plan, on the given device pointers.
  absl::StatusOr<PlanTimings> Time(absl::Span<const CUdeviceptr> inputs, absl::Span<const CUdeviceptr> outputs,
                                   int iterations);

  // One run of the plan with an event before and after every kernel: a
  // timeline of its kernels, in launch order.
  absl::StatusOr<std::vector<KernelSpan>> Trace(absl::Span<const CUdeviceptr> inputs,
                                                absl::Span<const CUdeviceptr> outputs);

  // Kernels read the constant node `constant` from the caller's device memory
  // (16-byte aligned, alive while runs use it) instead of kiln's uploaded copy.
  absl::Status UseConstantMemory(NodeId constant, CUdeviceptr ptr) {
    return constants_.UseDeviceMemory(graph_, constant, ptr);
  }
  const ConstantBuffers& constants() const { return constants_; }

  // How Run has launched the plan so far: plainly, or as CUDA graph replays.
  GraphReplayStats graph_stats() {
    absl::MutexLock lock(&mu_);
    return graphs_.stats();
  }

 private:
  Executable(Graph graph, Plan plan, const Device& device)
      : graph_(std::move(graph)),
        plan_(std::move(plan)),
        device_(device) {}
  // Sets addresses_: the device address of every node, for one call.
  absl::Status Bind(absl::Span<const CUdeviceptr> inputs, absl::Span<const CUdeviceptr> outputs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status LaunchKernel(size_t k, CUstream stream) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Counts the workspace's intermediates against `budget`, naming the first
  // one that does not fit.
  absl::Status TakeWorkspace(MemoryBudget& budget) const;
  // Whether RunOnHost's device buffers and host staging fit in free memory.
  absl::Status CheckRunOnHostFits();
  absl::Status LaunchAll(absl::Span<const CUdeviceptr> outputs, CUstream stream) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // LaunchAll, or the replay of its CUDA graph for the bound addresses.
  absl::Status LaunchPlan(absl::Span<const CUdeviceptr> outputs, CUstream stream) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Graph graph_;
  Plan plan_;
  const Device& device_;
  DeviceLimits limits_;
  std::vector<NodeId> graph_inputs_;
  ConstantBuffers constants_;
  std::vector<GeneratedKernel> generated_;
  std::vector<std::string> compile_notes_;  // per kernel
  std::vector<TuningReport> tuning_;
  std::vector<std::unique_ptr<LoadedKernel>> loaded_;
  std::vector<LaunchConfig> launch_;                          // per kernel
  std::unique_ptr<NvtxRanges> ranges_;                        // per kernel, around each launch
  std::vector<NodeId> root_;                                  // per node: itself, or the tensor a view reads
  std::vector<std::pair<NodeId, int64_t>> workspace_nodes_;   // node, byte offset in the workspace
  int64_t workspace_bytes_ = 0;

  // Per-call state, reused so that a launch allocates nothing.
  absl::Mutex mu_;
  DeviceBuffer workspace_ ABSL_GUARDED_BY(mu_);
  std::vector<CUdeviceptr> addresses_ ABSL_GUARDED_BY(mu_);  // per node
  // What one kernel's parameters are bound to, per parameter slot. A TMA
  // descriptor is encoded again only when its tensor's address changes.
  struct BoundParams {
    std::vector<CUdeviceptr> pointers;
    std::vector<CUtensorMap> maps;
    std::vector<CUdeviceptr> map_addresses;  // the address each map was encoded for
    std::vector<void*> args;                 // per slot: &pointers[i] or &maps[i]
  };
  std::vector<BoundParams> bound_ ABSL_GUARDED_BY(mu_);  // per kernel
  GraphReplay graphs_ ABSL_GUARDED_BY(mu_);
  std::vector<CUdeviceptr> graph_key_ ABSL_GUARDED_BY(mu_);  // LaunchPlan's, reused so a Run allocates nothing
};

}  // namespace kiln

#endif  // KILN_RUNTIME_EXECUTABLE_H_
