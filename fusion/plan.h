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
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/check.h"
#include "graph/graph.h"

namespace kiln {

enum class KernelKind {
  kPointwise,      // elementwise ops over one shape, broadcasts by index arithmetic
  kRowReduction,   // reductions over trailing axes with their prologue and epilogue
  kReduction,      // a reduction over other axes, on its own
  kMatmul,         // a matmul with its elementwise epilogue
  kTranspose,      // a layout change, on its own
  kAttention,      // S = Q·Kᵀ, elementwise ops, a row softmax and P·V, with S and P kept on chip
  kSlice,          // a strided window of a tensor, on its own
};

enum class RowStrategy {
  kNone,
  kWarpPersistent,     // one warp per row, the row held in registers
  kPackedPersistent,   // several short rows per warp: a group of lanes per row, the row held in registers
  kStagedPersistent,   // short rows no vector fits: a block's rows staged in shared memory, a thread per row
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
  int threads = 0;                 // per block (per row for warp and packed strategies: lanes_per_row)
  // Warp and packed strategies: the lanes of a warp that share a row (32, or
  // a power of two below it for packed rows), and the rows each group of
  // lanes covers in turn, so that a thread has enough bytes in flight.
  int lanes_per_row = 32;
  int rows_per_group = 1;
  static constexpr int kWarpsPerBlock = 8;  // warp and packed strategies: each warp with its own rows
  int cluster_blocks = 1;          // blocks sharing one row
  int values_per_thread = 0;       // persistent strategies: row elements each thread holds
  // Block and cluster persistent strategies: each block's segment of the row
  // sits in shared memory, copied there without passing through registers,
  // so that registers do not limit the blocks an SM holds.
  bool segment_in_shared_memory = false;
  // Shared memory a block's reductions keep beside the segment: a block's
  // scratch, or a cluster's exchange of partials (two halves of 8 blocks x
  // 32 warps x a 16-byte slot at most, for the moments, and an 8-byte
  // mbarrier a half).
  static constexpr int64_t kReductionSharedBytes = 2 * 8 * 32 * 16 + 2 * 8;
  // Reduction stages in order; stage i's reductions can start once all earlier
  // stages are done. Where the schedule joins pairs, a max and the sum of
  // exp(t - max) over the same t are one stage (the online recurrence), and
  // so are a mean and the mean of (t - mean)^2 (the moments).
  std::vector<std::vector<NodeId>> stages;
  bool online_softmax = false;
  std::vector<std::pair<NodeId, NodeId>> online_pairs;  // (max, sum) computed as one recurrence
  // (mean, variance) computed as one statistic: count, mean and sum of
  // squared deviations (KilnMoments).
  std::vector<std::pair<NodeId, NodeId>> moment_pairs;
  // Passes over the row in global memory: 1 for persistent strategies, else
  // one per stage plus one to write full-length outputs. pass_inputs[i] lists
  // the full-shape inputs pass i reads.
  int passes = 1;
  std::vector<std::vector<NodeId>> pass_inputs;
  // Nodes of a smaller shape computed from graph inputs per element, at their
  // broadcast index (e.g. the cast of a layernorm weight [N]); see Group.
  std::vector<NodeId> broadcast_nodes;
  std::string reason;              // why this strategy, for reports
};

// The main loop a matmul kernel runs.
enum class MatmulTier {
  kWgmma,    // sm_90a: TMA loads, wgmma, producer and consumer warpgroups, a persistent grid
  kMmaSync,  // tensor cores through mma.sync and cp.async (any sm_80+ GPU)
  kFfma,     // CUDA cores: exact fp32 products and sums
};

absl::string_view MatmulTierName(MatmulTier tier);

// One operand of a matmul as its kernel reads it from memory.
struct MatmulOperand {
  NodeId node = -1;         // the tensor read: the operand itself, or the source of a folded transpose
  bool transposed = false;  // stored with the last two dims swapped: A as [K, M], B as [N, K]
  Dims batch_dims;          // its batch dims, right-aligned to the kernel's (1 where it broadcasts)
};

// The choices a tuner may make for a matmul kernel. block_k is the K step
// (64 on the wgmma tier, one 128-byte swizzle row); group_m is the number of
// tile rows that run side by side so their B columns are shared in L2;
// pingpong (wgmma only) gives each consumer warpgroup tiles of its own
// instead of half of every tile.
struct MatmulConfig {
  int block_m = 128, block_n = 128, block_k = 32, stages = 4, group_m = 16;
  bool pingpong = false;
  // wgmma, cooperative: the consumers hand each tile's products to the
  // producer warpgroup's three idle warps, which run the epilogue and the
  // store while the consumers go on to the next tile's main loop.
  bool epilogue_warps = false;
  // K cut into this many slices, each a work unit of its own (on wgmma,
  // cooperative tiles only), so that few tiles with a long K still fill the
  // SMs. Each unit publishes its fp32 partial products; the last of a tile's
  // units to finish adds them in slice order and runs the epilogue.
  int split_k = 1;
  // wgmma: blocks per thread-block cluster along M and N, two in all at
  // most. Blocks stacked along M compute with the same K slices of B, blocks
  // side by side along N with those of A: each loads its share of them once
  // for both with TMA multicast, halving that operand's L2 reads.
  int cluster_m = 1, cluster_n = 1;
  bool operator==(const MatmulConfig&) const = default;
  int ClusterBlocks() const { return cluster_m * cluster_n; }
  // "128x256x64:3:8", "128x128x64:5:8:pingpong", "128x256x64:3:8:epilogue-warps",
  // "128x256x64:3:8:cluster=2x1" or "128x128x64:6:8:split-k=4": the
  // --matmul-tile syntax
  std::string ToString() const;
};

// "MxNxK:STAGES[:GROUP[:pingpong|:epilogue-warps][:cluster=CMxCN][:split-k=S]]"
// as a config (GROUP defaults to 16, CMxCN to 1x1, S to 1); nullopt for
// anything else. Whether a tier can run it is ApplyMatmulConfig's question.
std::optional<MatmulConfig> ParseMatmulConfig(absl::string_view text);

// How a matmul kernel tiles its product; computed by the planner so reports
// and code generation agree.
struct MatmulSchedule {
  MatmulTier tier = MatmulTier::kFfma;
  // The product as the kernel iterates it: `batch` products of [m,k]x[k,n]
  // over the output's batch dims. A batch that only A has and B broadcasts is
  // folded into m (one taller product), leaving batch_dims empty.
  int64_t batch = 1, m = 0, n = 0, k = 0;
  Dims batch_dims;
  MatmulOperand a, b;
  MatmulConfig config;
  std::string config_source = "heuristic";  // or "--matmul-tile", "tuned", "tuning cache"
  int warps_m = 0, warps_n = 0;  // mma.sync: the warp grid over the tile
  int threads = 0;               // per block
  // mma.sync and FFMA: rows of A and B start on 16-byte boundaries, so tiles
  // are copied as 16-byte vectors; otherwise element by element.
  bool vector_copies = false;
  // wgmma: bytes per element of the widest output staged for a TMA store (0
  // when every output is stored from registers).
  int staging_element_bytes = 0;
  // wgmma: bytes per operand element, 2 (bf16, f16) or 4 (f32 read as tf32).
  int operand_bytes = 2;
  // wgmma: why MatmulConfig::epilogue_warps cannot serve this kernel; empty
  // where it can.
  std::string no_epilogue_warps;
  // wgmma tf32 with a row-major B: tf32 reads only K-major operands from
  // shared memory, so the kernel computes Cᵀ = Bᵀ·Aᵀ, with A (K-major) as the
  // shared-memory operand and B's tiles loaded into registers, and stores
  // the result transposed back. The config stays in C's terms.
  bool swap_operands = false;
  int64_t tiles = 0;         // output tiles
  int64_t grid = 0;          // blocks launched: one per tile, or one per SM when persistent
  int64_t shared_bytes = 0;  // dynamic shared memory per block
  std::string tier_reason;   // why this tier and operand reading
  std::string reason;        // tier_reason and why this tile, for reports
};

// How an attention kernel tiles its chain (fusion/attention_schedule.h): a
// block of query rows at a time, key/value blocks streamed past it, the
// softmax online (running max and sum, the output rescaled as the max grows).
struct AttentionSchedule {
  Dims batch_dims;  // shared by Q, K, V and O
  int64_t batch = 1, sq = 0, skv = 0, d = 0, dv = 0;
  MatmulOperand q, k, v;  // k.transposed: K stored [.., Skv, D] (Kᵀ folded); else Kᵀ stored [.., D, Skv]
  NodeId scores = -1, logits = -1, output = -1;
  std::vector<NodeId> score_program;  // computes the logits from a score
  bool causal = false;                // key blocks right of the diagonal skipped
  int block_q = 128, block_kv = 128, stages = 2;
  int threads = 0;
  int64_t grid = 0;          // one block per block of query rows of each batch
  int64_t shared_bytes = 0;
  std::string reason;
};

// How a reduction over leading or middle axes reads its operand
// (fusion/axis_reduction_schedule.h). The operand is seen as [outer,
// reduced, inner]: `inner` is the product of the kept dims after the last
// reduced one (contiguous in memory), `reduced` of the reduced dims, `outer`
// of the other kept dims. Each block owns a tile of inner columns of
// `outer_lanes` outer indices, its threads split the tile's reduced rows, and
// `split` blocks share a tile when the tiles alone cannot fill the GPU.
struct AxisReductionSchedule {
  // A group of adjacent operand dims walked as one index: its element count
  // and the element distance between consecutive indices.
  struct Axis {
    int64_t extent = 1;
    int64_t stride = 0;
    bool operator==(const Axis&) const = default;
  };
  int64_t outer = 1, reduced = 1, inner = 1;
  // Slowest first. When the reduced dims (those over 1) are adjacent, each
  // holds at most one axis: the shape collapses. Otherwise an index is split
  // over several axes (gathered rows).
  std::vector<Axis> outer_axes, reduced_axes;
  int vector = 1;         // elements per load along inner: 16 bytes when inner allows
  int column_lanes = 1;   // threads across a tile's columns, `vector` columns each
  int row_lanes = 1;      // threads across the reduced rows
  int outer_lanes = 1;    // outer indices per tile (when one tile spans all of inner)
  int threads = 1;        // column_lanes * row_lanes * outer_lanes
  int unroll = 1;         // loads in flight per thread
  int blocks_per_sm = 1;  // resident blocks the split assumes (the launch bound)
  int64_t tiles_per_outer = 1;
  int64_t tiles = 1;      // ceil(outer / outer_lanes) * tiles_per_outer
  int split = 1;          // blocks sharing one tile's rows; the last to finish combines them
  int64_t rows_per_split = 0;
  int64_t blocks = 1;     // tiles * split; a launch caps its grid and blocks loop over the rest
  std::string reason;
  int64_t tile_columns() const { return int64_t{column_lanes} * vector; }
  bool collapsed() const { return outer_axes.size() <= 1 && reduced_axes.size() <= 1; }
};

// How a transpose kernel moves its tensor (fusion/transpose_schedule.h):
// the permutation collapsed to its fewest dims, and the strategy that suits
// what is left of it.
enum class TransposeStrategy {
  kCopy,    // nothing moves but dims of size 1: a vectorized copy
  kRowRun,  // the last dim stays last: contiguous runs copied as vectors
  kTiled,   // the last dim moves: tiles staged in shared memory, coalesced both ways
  // The operand is computed where it is read (an iota or a scalar constant):
  // each output element computes its value from its index.
  kComputed,
};

// How a tiled transpose moves the rows of one side of its tile (the input's
// rows when reading, the output's when writing), always as 16-byte vectors.
enum class TileRows {
  kAligned,     // every row starts on a vector boundary
  kStraddling,  // rows start off boundaries: aligned vectors shifted in registers, split only at a row's ends
  kContiguous,  // rows start off boundaries but are whole and adjacent: the tile is one span of vectors
};

struct TransposeSchedule {
  TransposeStrategy strategy = TransposeStrategy::kCopy;
  // The operand's dims with size-1 dims dropped and dims that stay adjacent
  // and in order merged; output dim i is dims[perm[i]].
  Dims dims;
  std::vector<int64_t> perm;
  int element_bytes = 0;
  // Elements per vector access: 16 bytes' worth (kRowRun: the widest of at
  // most 16 bytes that divides a run; kCopy: the tail element by element).
  int vector_elements = 1;
  int vectors_per_thread = 0;  // kCopy, kRowRun
  // kTiled: tiles of tile_rows (along dims[perm.back()], the output's last
  // dim) x tile_cols (along dims.back(), the input's last dim).
  int tile_rows = 0, tile_cols = 0;
  TileRows reads = TileRows::kAligned, writes = TileRows::kAligned;
  int threads = 0;     // per block
  int64_t blocks = 0;  // work items, a block each: a chunk of vectors, a tile, or (kComputed) `threads` elements
  std::string reason;  // for reports
};

struct Traffic {
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  double flops = 0;
  bool tensor_core = false;  // flops run on the matrix units
  bool tf32 = false;         // ... as tf32, at half the 16-bit rate
  int64_t bytes() const { return bytes_read + bytes_written; }
};

struct Kernel {
  std::string name;             // f<i>_<kind> (fused) or u<i>_<op> (unfused); also the CUDA symbol
  KernelKind kind = KernelKind::kPointwise;
  std::vector<NodeId> nodes;    // compute nodes, topological order
  std::vector<NodeId> inputs;   // tensors read from memory (inputs, other kernels' outputs, views)
  std::vector<NodeId> outputs;  // nodes materialized by this kernel
  // The kind's own schedule: RowSchedule for kRowReduction, MatmulSchedule
  // for kMatmul, AttentionSchedule for kAttention, AxisReductionSchedule for
  // kReduction, TransposeSchedule for kTranspose; none for the other kinds.
  // The accessors check that the kernel has that one.
  std::variant<std::monostate, RowSchedule, MatmulSchedule, AttentionSchedule, AxisReductionSchedule,
               TransposeSchedule>
      schedule;
  Traffic traffic;
  template <typename S>
  const S& Scheduled() const {
    KILN_CHECK(std::holds_alternative<S>(schedule));
    return std::get<S>(schedule);
  }
  template <typename S>
  S& Scheduled() {
    KILN_CHECK(std::holds_alternative<S>(schedule));
    return std::get<S>(schedule);
  }
  const RowSchedule& row() const { return Scheduled<RowSchedule>(); }
  RowSchedule& row() { return Scheduled<RowSchedule>(); }
  const MatmulSchedule& matmul() const { return Scheduled<MatmulSchedule>(); }
  MatmulSchedule& matmul() { return Scheduled<MatmulSchedule>(); }
  const AttentionSchedule& attention() const { return Scheduled<AttentionSchedule>(); }
  AttentionSchedule& attention() { return Scheduled<AttentionSchedule>(); }
  const AxisReductionSchedule& axis_reduction() const { return Scheduled<AxisReductionSchedule>(); }
  const TransposeSchedule& transpose() const { return Scheduled<TransposeSchedule>(); }
  std::string Strategy() const;  // printable, e.g. "looped (online softmax, 2 passes)"
  std::string Reason() const;    // why this schedule; empty for kinds that have only one
};

// A producer and a consumer placed in different kernels, and why.
struct Boundary {
  NodeId producer = -1;
  NodeId consumer = -1;
  std::string reason;
};

// A transpose folded into the matmul kernel that reads it.
struct LayoutFold {
  NodeId transpose = -1;
  NodeId matmul = -1;
  int operand = 0;  // 0: A, 1: B
};

// A matmul that reads a softmax but was not fused as attention, and why.
struct AttentionRefusal {
  NodeId matmul = -1;
  std::string reason;
};

// A reduction over axes of size 1, planned as the elementwise copy it is
// (fusion/op_class.h, IsUnitReduction), and why.
struct UnitReduction {
  NodeId reduction = -1;
  std::string reason;
};

struct Plan {
  bool fused = true;
  std::vector<Kernel> kernels;
  std::vector<Boundary> boundaries;
  // Transposes a matmul reads as an operand layout: no kernel, no bytes.
  std::vector<LayoutFold> layout_folds;
  std::vector<AttentionRefusal> attention_refusals;
  std::vector<UnitReduction> unit_reductions;
  // For each node: the kernel computing it, or -1 for inputs, constants and views.
  std::vector<int> kernel_of;
  Traffic total;
};

}  // namespace kiln

#endif  // KILN_FUSION_PLAN_H_
