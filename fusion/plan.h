// A Plan: the kernels kiln will launch for a graph, as plain data.
//
//   Plan plan = *PlanFusion(graph, DeviceLimits{});
//   for (const Kernel& k : plan.kernels) { k.name; k.kind; k.nodes; k.traffic.bytes_read; }
//   plan.boundaries   // why each producer/consumer pair was not fused
//
// Kernels are in launch order. Each lists its nodes in topological order, the
// tensors it reads from memory (`inputs`) and the nodes whose values it writes
// (`outputs`). Reshape nodes are views: they belong to no kernel, and a
// kernel that reads one reads its operand's memory with the reshape's shape.
#ifndef KILN_FUSION_PLAN_H_
#define KILN_FUSION_PLAN_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace kiln {

enum class KernelKind {
  kPointwise,      // elementwise ops over one shape, broadcasts by index arithmetic
  kRowReduction,   // reductions over trailing axes with their prologue and epilogue
  kReduction,      // a reduction over other axes, on its own
  kMatmul,         // a matmul with its elementwise epilogue
  kTranspose,      // a layout change, on its own
};

enum class RowStrategy {
  kNone,
  kWarpPersistent,     // one warp per row, the row held in registers
  kBlockPersistent,    // one block per row, the row held in registers
  kClusterPersistent,  // split: a cluster of blocks per row, the row held across them
  kLooped,             // one block per row, tiles re-read for each pass
  kClusterLooped,      // split: a cluster of blocks per row, each looping over its part
};

absl::string_view KernelKindName(KernelKind kind);
absl::string_view RowStrategyName(RowStrategy strategy);

// How a row-reduction kernel covers a row; computed by the planner so that
// code generation and the traffic model agree.
struct RowSchedule {
  int64_t rows = 0;
  int64_t row_length = 0;          // elements reduced per row
  RowStrategy strategy = RowStrategy::kNone;
  int threads = 0;                 // per block (per row for warp strategies: 32)
  int cluster_blocks = 1;          // blocks sharing one row
  int values_per_thread = 0;       // persistent strategies: row elements each thread holds
  // Reduction stages in order; stage i's reductions can start once all earlier
  // stages are done. A max followed by a sum of exp(t - max) over the same t is
  // one stage, computed with the online recurrence.
  std::vector<std::vector<NodeId>> stages;
  bool online_softmax = false;
  std::vector<std::pair<NodeId, NodeId>> online_pairs;  // (max, sum) computed as one recurrence
  // Passes over the row in global memory: 1 for persistent strategies, else
  // one per stage plus one to write full-length outputs. pass_inputs[i] lists
  // the full-shape inputs pass i reads.
  int passes = 1;
  std::vector<std::vector<NodeId>> pass_inputs;
  std::string reason;              // why this strategy, for reports
};

// How a matmul kernel tiles its product; computed by the planner so reports
// and code generation agree.
struct MatmulSchedule {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  // mma.sync tensor cores with fp32 accumulators for f16/bf16; f32 runs on the
  // CUDA cores (FFMA) so its products and sums stay exact fp32, not tf32.
  bool tensor_cores = false;
  int block_m = 0, block_n = 0, block_k = 0;  // the tile one block computes, and its K step
  int warps_m = 0, warps_n = 0;               // tensor cores: the warp grid over the tile
  int threads = 0;                            // per block
  int stages = 0;                             // shared-memory stages in flight
  int group_m = 16;                           // tile rows per L2-friendly launch group
  // Rows of A and B start on 16-byte boundaries, so tiles are copied as
  // 16-byte vectors (cp.async on the tensor-core path); otherwise element by element.
  bool vector_copies = false;
  int64_t tiles = 0;                          // blocks launched
  int64_t shared_bytes = 0;                   // dynamic shared memory per block
  std::string reason;                         // why this tile, for reports
};

struct Traffic {
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  double flops = 0;
  bool tensor_core = false;  // flops run on the matrix units
  int64_t bytes() const { return bytes_read + bytes_written; }
};

struct Kernel {
  std::string name;             // f<i>_<kind> (fused) or u<i>_<op> (unfused); also the CUDA symbol
  KernelKind kind = KernelKind::kPointwise;
  std::vector<NodeId> nodes;    // compute nodes, topological order
  std::vector<NodeId> inputs;   // tensors read from memory (inputs, other kernels' outputs, views)
  std::vector<NodeId> outputs;  // nodes materialized by this kernel
  RowSchedule row;              // kRowReduction only
  MatmulSchedule matmul;        // kMatmul only
  Traffic traffic;
  std::string Strategy() const;  // printable, e.g. "looped (online softmax, 2 passes)"
  std::string Reason() const;    // why this schedule; empty for kinds that have only one
};

// A producer and a consumer placed in different kernels, and why.
struct Boundary {
  NodeId producer = -1;
  NodeId consumer = -1;
  std::string reason;
};

struct Plan {
  bool fused = true;
  std::vector<Kernel> kernels;
  std::vector<Boundary> boundaries;
  // For each node: the kernel computing it, or -1 for inputs, constants and views.
  std::vector<int> kernel_of;
  Traffic total;
};

}  // namespace kiln

#endif  // KILN_FUSION_PLAN_H_
