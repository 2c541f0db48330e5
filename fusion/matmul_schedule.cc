#include "fusion/matmul_schedule.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

// A tile the heuristic chooses from. `resident` is how many such blocks share
// one SM and `relative_rate` each SM's throughput with them, against the
// tier's best tile.
struct TileCandidate {
  MatmulConfig config;
  int resident;
  double relative_rate;
};

// mma.sync, measured on an H200 at bf16 8192^3 (bench/results, --matmul-tile):
// 128x128 2969 us, 128x256 3622 us (two 4-warp blocks per SM hide each
// other's barriers better than one 8-warp block does). The smaller tiles'
// rates are estimates.
constexpr TileCandidate kMmaSyncTiles[] = {
    {{.block_m = 128, .block_n = 128, .block_k = 32, .stages = 4, .group_m = 16}, 2, 1.00},
    {{.block_m = 128, .block_n = 256, .block_k = 32, .stages = 4, .group_m = 16}, 1, 0.82},
    {{.block_m = 64, .block_n = 128, .block_k = 32, .stages = 4, .group_m = 16}, 2, 0.75},
    {{.block_m = 64, .block_n = 64, .block_k = 32, .stages = 4, .group_m = 16}, 4, 0.55},
};

// wgmma, one persistent block per SM, measured on an H200 at bf16 8192^3
// (2026-12-01): 128x256 800 TFLOP/s, 128x128 756, 256x128 745. The 128x64
// rate is an estimate. Stages are as many as fit (see WgmmaConfig).
constexpr TileCandidate kWgmmaTiles[] = {
    {{.block_m = 128, .block_n = 256, .block_k = 64, .group_m = 8}, 1, 1.00},
    {{.block_m = 256, .block_n = 128, .block_k = 64, .group_m = 8}, 1, 0.93},
    {{.block_m = 128, .block_n = 128, .block_k = 64, .group_m = 8}, 1, 0.94},
    {{.block_m = 128, .block_n = 64, .block_k = 64, .group_m = 8}, 1, 0.75},
};

constexpr int kMaxStages = 8;
constexpr int kMinWgmmaStages = 3;

// Split K: at most 16 slices, each of at least 8 K steps so that a slice's
// main loop outlasts the write of its partial tile, and at most 64 MiB of
// partials. The small products split K serves have partials that stay in L2.
constexpr int kMaxSplitK = 16;
constexpr int64_t kMinSplitKSteps = 8;
constexpr int64_t kMaxSplitPartialBytes = int64_t{64} << 20;

// Blocks of an mma.sync tile that share one SM (registers and shared memory allow it).
int MmaSyncResident(const MatmulConfig& c) {
  for (const TileCandidate& t : kMmaSyncTiles) {
    if (t.config.block_m == c.block_m && t.config.block_n == c.block_n) return t.resident;
  }
  return 1;
}

std::string Waves(int64_t tiles, int64_t slots) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", static_cast<double>(tiles) / static_cast<double>(slots));
  return buffer;
}

bool OneOf(int v, std::initializer_list<int> allowed) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

int64_t MmaSyncSharedBytes(const MatmulConfig& c) {
  return int64_t{c.stages} * (c.block_m * c.block_k + c.block_k * c.block_n) * 2;
}

// The largest element the epilogue stages for a TMA store (StagesOutput);
// 0 when every output is stored from registers.
int StagingElementBytes(const Graph& graph, const Kernel& kernel, int64_t n) {
  int bytes = 0;
  for (NodeId output : kernel.outputs) {
    const int64_t size = DTypeSize(graph.node(output).dtype);
    if (StagesOutput(size, n)) bytes = std::max(bytes, static_cast<int>(size));
  }
  return bytes;
}

absl::Status ValidateGroup(const MatmulConfig& c, absl::string_view name) {
  if (c.group_m < 1 || c.group_m > 64) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": group of ", c.group_m, " tile rows is outside 1..64"));
  }
  if (c.stages < 2 || c.stages > kMaxStages) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": stages must be 2..", kMaxStages));
  }
  return absl::OkStatus();
}

absl::Status FitsSharedMemory(int64_t bytes, const DeviceLimits& limits, absl::string_view name) {
  if (bytes <= limits.shared_bytes_per_block) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(name, " needs ", bytes, " bytes of shared memory; a block may have ",
                                                 limits.shared_bytes_per_block));
}

// Ping-pong, epilogue warps and clusters are schedules of the wgmma tier
// alone (split K is every tier's: ValidateSplitK).
absl::Status ValidateNoWgmmaSchedule(const MatmulConfig& c, absl::string_view name) {
  if (c.pingpong) return absl::InvalidArgumentError(absl::StrCat(name, ": ping-pong is a wgmma schedule"));
  if (c.epilogue_warps) return absl::InvalidArgumentError(absl::StrCat(name, ": epilogue warps are a wgmma schedule"));
  if (c.ClusterBlocks() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": clusters with TMA multicast are a wgmma schedule"));
  }
  return absl::OkStatus();
}

// The tile as the kernel iterates it: C's, or Cᵀ's when the operands swap.
MatmulConfig KernelTile(MatmulConfig c, bool swap_operands) {
  if (swap_operands) {
    std::swap(c.block_m, c.block_n);
    std::swap(c.cluster_m, c.cluster_n);
  }
  return c;
}

// Clusters of two blocks, stacked along M or side by side along N, where
// the device forms clusters; never with split K, whose units are single tiles.
absl::Status ValidateCluster(const MatmulConfig& c, const DeviceLimits& limits, absl::string_view name) {
  if (c.ClusterBlocks() == 1) return absl::OkStatus();
  if (!((c.cluster_m == 2 && c.cluster_n == 1) || (c.cluster_m == 1 && c.cluster_n == 2))) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": a cluster is 2x1 or 1x2 blocks, not ", c.cluster_m, "x",
                                                   c.cluster_n));
  }
  if (!limits.supports_clusters || limits.max_cluster_blocks < c.ClusterBlocks()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": the device forms no clusters of ", c.ClusterBlocks(),
                                                   " blocks"));
  }
  if (c.split_k != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": split-K units are single tiles, which a cluster's blocks do not share"));
  }
  return absl::OkStatus();
}

int64_t KSteps(const MatmulSchedule& s, const MatmulConfig& c) { return CeilDiv(s.k, int64_t{c.block_k}); }

// The fp32 partial products of a split-K kernel: a tile per unit.
int64_t SplitPartialBytes(const MatmulSchedule& s, const MatmulConfig& c) {
  return MatmulTileCount(s, c) * c.split_k * c.block_m * c.block_n * 4;
}

absl::Status ValidateSplitK(const MatmulConfig& c, const MatmulSchedule& s, absl::string_view name) {
  if (c.split_k == 1) return absl::OkStatus();
  if (c.split_k < 1 || c.split_k > kMaxSplitK) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": split-K takes 1 to ", kMaxSplitK, " slices"));
  }
  if (c.pingpong || c.epilogue_warps) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": split-K tiles are cooperative with the epilogue on the consumers, which run it only for the last "
              "slice of a tile to finish"));
  }
  // Slices of ceil(steps / split) steps: the last must not start past K.
  const int64_t steps = KSteps(s, c), per_slice = CeilDiv(steps, int64_t{c.split_k});
  if ((c.split_k - 1) * per_slice >= steps) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": split-K x", c.split_k, " leaves a slice empty: K=", s.k,
                                                   " is ", steps, " steps of ", c.block_k));
  }
  if (SplitPartialBytes(s, c) > kMaxSplitPartialBytes) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": split-K x", c.split_k, " needs ", SplitPartialBytes(s, c),
                                                   " bytes of partial products; the most is ", kMaxSplitPartialBytes));
  }
  return absl::OkStatus();
}

absl::Status ValidateMmaSync(const MatmulConfig& c, const MatmulSchedule& s, const DeviceLimits& limits,
                             absl::string_view name) {
  if (absl::Status st = ValidateNoWgmmaSchedule(c, name); !st.ok()) return st;
  if (!OneOf(c.block_m, {64, 128, 256}) || !OneOf(c.block_n, {64, 128, 256}) ||
      (c.block_m == 256 && c.block_n == 256)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": block sides must be 64, 128 or 256, and not both 256"));
  }
  if (!OneOf(c.block_k, {32, 64})) return absl::InvalidArgumentError(absl::StrCat(name, ": K step must be 32 or 64"));
  if (absl::Status st = ValidateGroup(c, name); !st.ok()) return st;
  if (absl::Status st = ValidateSplitK(c, s, name); !st.ok()) return st;
  return FitsSharedMemory(MmaSyncSharedBytes(c), limits, name);
}

// Two FFMA stages are loaded through registers and hold A transposed; more
// are cp.async copies, with A's rows as stored, padded by 4 floats
// (KilnFfmaMainloop in kiln_matmul.cuh).
int64_t FfmaSharedBytes(const MatmulConfig& c) {
  const int64_t a = c.stages == 2 ? c.block_k * c.block_m : c.block_m * (c.block_k + 4);
  return c.stages * (a + int64_t{c.block_k} * c.block_n) * 4;
}

absl::Status ValidateFfma(const MatmulConfig& c, const MatmulSchedule& s, const DeviceLimits& limits,
                          absl::string_view name) {
  if (absl::Status st = ValidateNoWgmmaSchedule(c, name); !st.ok()) return st;
  if (!OneOf(c.block_m, {128, 256}) || c.block_n != 128 || !OneOf(c.block_k, {8, 16}) || c.stages < 2 ||
      c.stages > 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": FFMA tiles are 128x128 or 256x128, 8 or 16 deep, with 2 to 4 stages"));
  }
  if (c.block_k == 16 && c.stages == 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": FFMA slices 16 deep are cp.async copies, which take 3 or 4 stages"));
  }
  if (c.stages > 2 && !s.vector_copies) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": FFMA stages beyond 2 are cp.async copies, which need K and N to be multiples of 4"));
  }
  if (absl::Status st = ValidateGroup(c, name); !st.ok()) return st;
  if (absl::Status st = ValidateSplitK(c, s, name); !st.ok()) return st;
  return FitsSharedMemory(FfmaSharedBytes(c), limits, name);
}

absl::Status ValidateWgmma(const MatmulConfig& config, const MatmulSchedule& s, const DeviceLimits& limits,
                           absl::string_view name) {
  const MatmulConfig c = KernelTile(config, s.swap_operands);
  if (s.operand_bytes == 4 && c.pingpong) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": tf32 tiles are cooperative, not ping-pong"));
  }
  // A consumer warpgroup owns half the rows (cooperative) or all of them
  // (ping-pong), 64 or 128, and keeps its 64-row slabs' accumulators
  // (block_n / 2 registers each) in 128 registers. Swapped operands give
  // the kernel C's columns as rows: the rule holds for the kernel's tile.
  const std::string swapped = s.swap_operands ? " (of Cᵀ: tf32 swaps the operands)" : "";
  if (c.pingpong) {
    if (!OneOf(c.block_m, {64, 128}) || !OneOf(c.block_n, {64, 128, 192, 256}) ||
        (c.block_m == 128 && c.block_n > 128)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": ping-pong wgmma tiles are 64 x (64, 128, 192 or 256), or 128 x (64 or 128)", swapped));
    }
  } else if (!OneOf(c.block_m, {128, 256}) || !OneOf(c.block_n, {64, 128, 192, 256}) ||
             (c.block_m == 256 && c.block_n > 128)) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": wgmma tiles are 128 x (64, 128, 192 or 256), or 256 x (64 or 128)", swapped));
  }
  if (c.epilogue_warps && c.pingpong) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": epilogue warps serve cooperative tiles; ping-pong overlaps its epilogue already"));
  }
  if (c.epilogue_warps && !s.no_epilogue_warps.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": epilogue warps cannot serve this kernel: ",
                                                   s.no_epilogue_warps));
  }
  if (absl::Status st = ValidateSplitK(config, s, name); !st.ok()) return st;
  if (absl::Status st = ValidateCluster(config, limits, name); !st.ok()) return st;
  if (c.block_k != WgmmaBlockK(s.operand_bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": the wgmma K step for ", s.operand_bytes,
                                                   "-byte operands is ", WgmmaBlockK(s.operand_bytes),
                                                   " (one 128-byte swizzle row)"));
  }
  if (absl::Status st = ValidateGroup(c, name); !st.ok()) return st;
  return FitsSharedMemory(WgmmaSharedBytes(c, s.staging_element_bytes), limits, name);
}

// Why the producer warpgroup's spare warps cannot run the kernel's epilogue
// (MatmulConfig::epilogue_warps); empty where they can. They rewrite the
// staged products in place and store them with TMA, so the kernel's one
// output must be a staged 16-bit tensor computed from a 16-bit product (the
// product's own value is rounded to 16 bits, so staging it loses nothing).
std::string NoEpilogueWarps(const Graph& graph, const Kernel& kernel, const MatmulSchedule& s) {
  if (s.tier != MatmulTier::kWgmma) return "they are a wgmma schedule";
  if (s.operand_bytes != 2) return "a tf32 product is f32, which staging in 16 bits would round";
  if (kernel.outputs.size() != 1) return "the kernel has several outputs, and a staged tile holds one";
  const NodeId output = kernel.outputs[0];
  if (output == kernel.nodes.front()) return "the output is the product itself: there is no epilogue to move";
  const int64_t size = DTypeSize(graph.node(output).dtype);
  if (size != 2 || !StagesOutput(size, s.n)) return "the output is not a 16-bit tensor staged for a TMA store";
  return "";
}

// The most stages (up to kMaxStages) that fit beside the staging tiles.
MatmulConfig WithMostStages(MatmulConfig c, int staging_element_bytes, const DeviceLimits& limits) {
  c.stages = kMaxStages;
  while (c.stages > 2 && WgmmaSharedBytes(c, staging_element_bytes) > limits.shared_bytes_per_block) --c.stages;
  return c;
}

std::string TierReason(const Graph& graph, const MatmulSchedule& s, DType dtype, const absl::Status& wgmma,
                       const PlanOptions& options) {
  const int64_t per_16_bytes = 16 / DTypeSize(dtype);
  std::string reason;
  switch (s.tier) {
    case MatmulTier::kWgmma:
      reason = absl::StrCat(DTypeName(dtype), dtype == DType::kF32 ? " as tf32 (allowed)" : "",
                            " on tensor cores (wgmma + TMA, producer and consumer warpgroups, persistent grid, "
                            "fp32 accumulators)");
      if (s.swap_operands) {
        absl::StrAppend(&reason, "; computed as Cᵀ = Bᵀ·Aᵀ, since tf32 reads only K-major operands from shared "
                                 "memory and B is row-major");
      }
      break;
    case MatmulTier::kMmaSync:
      reason = absl::StrCat(DTypeName(dtype), " on tensor cores (mma.sync, fp32 accumulators)");
      if (!wgmma.ok()) absl::StrAppend(&reason, ", not wgmma: ", wgmma.message());
      break;
    case MatmulTier::kFfma:
      reason = absl::StrCat(DTypeName(dtype), " on CUDA cores (FFMA, exact fp32 rather than tf32)");
      if (options.allow_tf32) absl::StrAppend(&reason, ", not tf32: ", wgmma.message());
      break;
  }
  for (const auto& [operand, label] : {std::pair{&s.a, "A"}, std::pair{&s.b, "B"}}) {
    if (operand->transposed) {
      absl::StrAppend(&reason, "; ", label, " is read column-major from \"", absl::CEscape(graph.node(operand->node).name),
                      "\" (the transpose is its layout, not a kernel)");
    }
  }
  if (s.tier != MatmulTier::kWgmma && !s.vector_copies) {
    absl::StrAppend(&reason, "; K=", s.k, " or N=", s.n, " is not a multiple of ", per_16_bytes,
                    ", so tiles are copied element by element");
  }
  return reason;
}

// Describes the tiling `config` gives `s`, for reports.
std::string TileReason(const MatmulSchedule& s, const MatmulConfig& c, int resident, const DeviceLimits& limits) {
  const int sms = std::max(limits.sm_count, 1);
  std::string out = absl::StrCat(c.block_m, "x", c.block_n, " tiles: ", s.tiles, " tiles, ",
                                 Waves(s.tiles, int64_t{sms} * resident), " waves of ", sms, " SMs");
  if (resident > 1) absl::StrAppend(&out, " x ", resident, " blocks");
  return out;
}

// What the config does beyond its tile: clusters, epilogue warps or split K.
std::string ScheduleNote(const MatmulSchedule& s, const MatmulConfig& c) {
  std::string cluster;
  if (c.ClusterBlocks() > 1) {
    cluster = absl::StrCat("; clusters of ", c.cluster_m, "x", c.cluster_n, " blocks (", ClusterTileCount(s, c),
                           " cluster tiles) share each K slice of ", c.cluster_m > 1 ? "B" : "A",
                           ", loaded once for both with TMA multicast");
  }
  if (c.epilogue_warps) {
    return absl::StrCat(cluster,
                        "; the epilogue runs on the producer warpgroup's spare warps, beside the next tile's main loop");
  }
  if (c.split_k == 1) return cluster;
  const int64_t steps = KSteps(s, c);
  return absl::StrCat("; split-K x", c.split_k, ": K of ", s.k, " in slices of ", CeilDiv(steps, int64_t{c.split_k}),
                      " steps, ", s.tiles * c.split_k, " work units; the last slice of a tile to finish adds the ",
                      SplitPartialBytes(s, c), " bytes of fp32 partials (through L2, not counted as traffic) in slice "
                      "order and runs the epilogue");
}

// Slices of K for a kernel whose tiles fill fewer than half the SMs: enough
// units to fill them, each of at least kMinSplitKSteps steps; 1 where that
// leaves fewer than two slices.
int HeuristicSplitK(const MatmulSchedule& s, const MatmulConfig& c, const DeviceLimits& limits) {
  if (!TilesLeaveSmsIdle(s, c, limits)) return 1;
  const int64_t sms = std::max(limits.sm_count, 1), tiles = MatmulTileCount(s, c);
  MatmulConfig split = c;
  split.epilogue_warps = false;
  split.split_k = static_cast<int>(std::min({sms / tiles, KSteps(s, c) / kMinSplitKSteps, int64_t{kMaxSplitK}}));
  while (split.split_k > 1 && !ValidateSplitK(split, s, "").ok()) --split.split_k;
  return std::max(split.split_k, 1);
}

}  // namespace

int WgmmaBlockK(int operand_bytes) { return 128 / operand_bytes; }

int64_t MatmulTileCount(const MatmulSchedule& s, const MatmulConfig& c) {
  return s.batch * CeilDiv(s.m, c.block_m) * CeilDiv(s.n, c.block_n);
}

int64_t ClusterTileCount(const MatmulSchedule& s, const MatmulConfig& c) {
  return s.batch * CeilDiv(s.m, int64_t{c.block_m} * c.cluster_m) * CeilDiv(s.n, int64_t{c.block_n} * c.cluster_n);
}

bool TilesLeaveSmsIdle(const MatmulSchedule& s, const MatmulConfig& c, const DeviceLimits& limits) {
  return 2 * MatmulTileCount(s, c) <= std::max(limits.sm_count, 1);
}

bool StagesOutput(int64_t element_bytes, int64_t n) { return element_bytes < 4 && (n * element_bytes) % 16 == 0; }

int64_t WgmmaSharedBytes(const MatmulConfig& c, int staging_element_bytes) {
  const int64_t stage = int64_t{c.block_m + c.block_n} * 128;
  // One staging tile per consumer: half the block's rows each, or all of them.
  const int64_t staging = int64_t{c.block_m} * (c.pingpong ? 2 : 1) * c.block_n * staging_element_bytes;
  // Barriers: full and empty per stage, a turn per consumer for ping-pong,
  // and a tile staged and a tile drained for epilogue warps.
  const int64_t barriers = 2 * c.stages + (c.pingpong ? 2 : 0) + (c.epilogue_warps ? 2 : 0);
  return c.stages * stage + staging + barriers * 8 + 1024;
}

MatmulOperand DescribeMatmulOperand(const Graph& graph, NodeId matmul, int index, const std::vector<bool>& folded) {
  const Node& node = graph.node(matmul);
  MatmulOperand operand;
  operand.node = node.operands[index];
  if (folded[operand.node]) {
    operand.node = graph.node(operand.node).operands[0];
    operand.transposed = true;
  }
  const Dims& shape = graph.node(operand.node).shape;
  const size_t batch_rank = node.shape.size() - 2;
  const size_t own_rank = shape.size() - 2;
  operand.batch_dims.assign(batch_rank - own_rank, 1);
  operand.batch_dims.insert(operand.batch_dims.end(), shape.begin(), shape.end() - 2);
  return operand;
}

absl::Status WgmmaCanRun(const Graph& graph, NodeId matmul, const MatmulOperand& a, const MatmulOperand& b,
                         const DeviceLimits& limits, const PlanOptions& options) {
  const Node& node = graph.node(matmul);
  if (!limits.HasWgmma()) {
    return absl::FailedPreconditionError(absl::StrCat("it needs compute capability 9.0 (sm_90a); the device has ",
                                                      limits.compute_capability / 10, ".",
                                                      limits.compute_capability % 10));
  }
  const bool tf32 = node.dtype == DType::kF32 && options.allow_tf32;
  if (node.dtype == DType::kF32 && !tf32) {
    return absl::FailedPreconditionError("f32 runs on tensor cores only as tf32, which is not allowed (--allow-tf32)");
  }
  if (node.dtype != DType::kBF16 && node.dtype != DType::kF16 && !tf32) {
    return absl::FailedPreconditionError("its operands are not 16-bit floats");
  }
  // tf32 wgmma reads its shared-memory operand K-major only; the other comes
  // from registers in either layout (see MatmulSchedule::swap_operands).
  if (tf32 && a.transposed && !b.transposed) {
    return absl::FailedPreconditionError(
        "tf32 needs one operand K-major, and A is stored transposed ([K, M]) while B is row-major ([K, N])");
  }
  const int64_t m = node.shape[node.shape.size() - 2], n = node.shape.back();
  const int64_t k = graph.node(node.operands[0]).shape.back();
  // TMA reads rows whose starts are 16 bytes apart: the contiguous dim.
  const int64_t per_16_bytes = 16 / DTypeSize(node.dtype);
  for (const auto& [label, contiguous] : {std::pair{"A", a.transposed ? m : k}, std::pair{"B", b.transposed ? k : n}}) {
    if (contiguous % per_16_bytes != 0) {
      return absl::FailedPreconditionError(absl::StrCat("TMA cannot read ", label, ": its rows of ", contiguous,
                                                        " elements are not a multiple of 16 bytes"));
    }
  }
  // The smallest tile with two stages, staging 4-byte outputs.
  constexpr MatmulConfig kSmallest{.block_m = 128, .block_n = 64, .block_k = 64, .stages = 2};  // cooperative
  if (WgmmaSharedBytes(kSmallest, 4) > limits.shared_bytes_per_block) {
    return absl::FailedPreconditionError(
        absl::StrCat("no wgmma tile fits in ", limits.shared_bytes_per_block, " bytes of shared memory"));
  }
  // TMA coordinates and the kernel's tile indices are 32-bit.
  constexpr int64_t kMaxCoordinate = std::numeric_limits<int32_t>::max();
  const int64_t batch = NumElements(absl::MakeConstSpan(node.shape).first(node.shape.size() - 2));
  if (m * batch > kMaxCoordinate || n > kMaxCoordinate || k > kMaxCoordinate) {
    return absl::FailedPreconditionError("a dimension exceeds TMA's 32-bit coordinates");
  }
  return absl::OkStatus();
}

MatmulSchedule ScheduleMatmul(const Graph& graph, const Kernel& kernel, const std::vector<bool>& folded,
                              const DeviceLimits& limits, const PlanOptions& options) {
  const NodeId matmul = kernel.nodes.front();
  const Node& node = graph.node(matmul);
  MatmulSchedule s;
  s.a = DescribeMatmulOperand(graph, matmul, 0, folded);
  s.b = DescribeMatmulOperand(graph, matmul, 1, folded);
  s.m = node.shape[node.shape.size() - 2];
  s.n = node.shape.back();
  s.k = graph.node(node.operands[0]).shape.back();
  s.batch_dims.assign(node.shape.begin(), node.shape.end() - 2);
  s.batch = NumElements(s.batch_dims);
  // B shared by every batch and A stored batch after batch: one taller product.
  const bool b_shared = std::all_of(s.b.batch_dims.begin(), s.b.batch_dims.end(), [](int64_t d) { return d == 1; });
  std::string batch_note;
  if (s.batch > 1 && b_shared && !s.a.transposed) {
    batch_note = absl::StrCat("; batch ", DimsString(s.batch_dims), " folded into M (B has none): ", s.batch * s.m,
                              " rows");
    s.m *= s.batch;
    s.batch = 1;
    s.batch_dims.clear();
    s.a.batch_dims.clear();
    s.b.batch_dims.clear();
  }
  const int64_t per_16_bytes = 16 / DTypeSize(node.dtype);
  s.vector_copies = s.k % per_16_bytes == 0 && s.n % per_16_bytes == 0;

  const absl::Status wgmma = WgmmaCanRun(graph, matmul, s.a, s.b, limits, options);
  const int staging = StagingElementBytes(graph, kernel, s.n);
  if (node.dtype == DType::kF32) {
    s.tier = wgmma.ok() ? MatmulTier::kWgmma : MatmulTier::kFfma;
  } else {
    s.tier = wgmma.ok() ? MatmulTier::kWgmma : MatmulTier::kMmaSync;
  }
  if (s.tier == MatmulTier::kWgmma) {
    s.staging_element_bytes = staging;
    s.operand_bytes = static_cast<int>(DTypeSize(node.dtype));
    s.swap_operands = node.dtype == DType::kF32 && !s.b.transposed;
  }
  s.no_epilogue_warps = NoEpilogueWarps(graph, kernel, s);

  // Among the tiles that give every SM a block, the one with the least
  // estimated time: whole waves of resident blocks, each wave as long as its
  // blocks' work at the tile's rate. Where no tile fills the SMs, a block's
  // latency is the time, and the smallest tile has the least.
  const int sms = std::max(limits.sm_count, 1);
  // f32: 128x128 tiles, with 3 cp.async stages where rows allow them:
  // measured on an H200 at 4096^3, 3321 us against 3677 us through registers
  // (2 stages). 256x128 tiles 16 deep ran 3238 us there, but take one block
  // an SM, which fewer tiles leave idle: the tuner's to try.
  TileCandidate best{.config = {.block_m = 128, .block_n = 128, .block_k = 8, .stages = s.vector_copies ? 3 : 2},
                     .resident = 2,
                     .relative_rate = 1};
  std::string choice;
  if (s.tier != MatmulTier::kFfma) {
    const absl::Span<const TileCandidate> tiles =
        s.tier == MatmulTier::kWgmma ? absl::MakeConstSpan(kWgmmaTiles) : absl::MakeConstSpan(kMmaSyncTiles);
    double best_time = -1;
    bool deep_enough = false;  // the best so far has kMinWgmmaStages
    for (TileCandidate c : tiles) {
      if (s.tier == MatmulTier::kWgmma) {
        // The table is in the kernel's terms, at 16-bit operands.
        c.config = KernelTile(c.config, s.swap_operands);
        c.config.block_k = WgmmaBlockK(s.operand_bytes);
        c.config.epilogue_warps = s.no_epilogue_warps.empty();
        c.config = WithMostStages(c.config, s.staging_element_bytes, limits);
        if (WgmmaSharedBytes(c.config, s.staging_element_bytes) > limits.shared_bytes_per_block) continue;
        // Two stages cannot hide a load behind the product: measured on an
        // H200 at tf32 4096^3, when f32 outputs were staged and left 256x128
        // two stages, 792 us against 489 us for 128x128 with five. Shallow
        // tiles win only where no tile fits deeper.
        const bool deep = c.config.stages >= kMinWgmmaStages;
        if (deep_enough && !deep) continue;
        if (deep && !deep_enough) best_time = -1;
        deep_enough = deep_enough || deep;
      }
      const int64_t count = MatmulTileCount(s, c.config);
      const int64_t waves = CeilDiv(count, int64_t{sms} * c.resident);
      const double time = static_cast<double>(waves * c.resident * c.config.block_m * c.config.block_n) / c.relative_rate;
      if (best_time < 0 || time < best_time) {
        best = c;
        best_time = time;
      }
    }
    choice = MatmulTileCount(s, best.config) < sms ? ", too few to fill the SMs with any tile, so the one of least latency"
                                             : ", the least estimated time of the tiles that fill the SMs";
    // A device with less shared memory per block than an H200 gets fewer stages.
    while (s.tier == MatmulTier::kMmaSync && best.config.stages > 2 &&
           MmaSyncSharedBytes(best.config) > limits.shared_bytes_per_block) {
      --best.config.stages;
    }
  }
  if (const int split = HeuristicSplitK(s, best.config, limits); split > 1) {
    best.config.split_k = split;
    best.config.epilogue_warps = false;
  }
  s.tier_reason = absl::StrCat(TierReason(graph, s, node.dtype, wgmma, options), batch_note);
  // The heuristic's tiles are valid by construction, except on a device with
  // less shared memory than two mma.sync stages need: the error says so.
  if (absl::Status applied = ApplyMatmulConfig(best.config, "heuristic", limits, s); !applied.ok()) {
    s.reason = absl::StrCat(s.tier_reason, "; ", applied.message());
  } else {
    s.reason = absl::StrCat(s.tier_reason, "; ", TileReason(s, s.config, best.resident, limits), choice,
                            ScheduleNote(s, s.config));
  }
  return s;
}

absl::Status ApplyMatmulConfig(const MatmulConfig& config, absl::string_view source, const DeviceLimits& limits,
                               MatmulSchedule& s) {
  const std::string name = absl::StrCat("matmul tile ", config.block_m, "x", config.block_n, "x", config.block_k,
                                        " with ", config.stages, " stages");
  int resident = 1;
  switch (s.tier) {
    case MatmulTier::kFfma:
      if (absl::Status st = ValidateFfma(config, s, limits, name); !st.ok()) return st;
      s.config = config;
      s.threads = 256;
      s.shared_bytes = FfmaSharedBytes(config);
      s.tiles = MatmulTileCount(s, config);
      s.grid = s.tiles * config.split_k;  // a block per work unit
      // 8x8 outputs a thread take 127 registers, so two blocks share an SM.
      resident = config.block_m == 128 ? 2 : 1;
      break;
    case MatmulTier::kMmaSync: {
      if (absl::Status st = ValidateMmaSync(config, s, limits, name); !st.ok()) return st;
      const bool smallest = config.block_m == 64 && config.block_n == 64;
      s.warps_m = smallest ? 2 : config.block_m / 64;
      s.warps_n = smallest ? 2 : config.block_n / 64;
      s.threads = s.warps_m * s.warps_n * 32;
      s.shared_bytes = MmaSyncSharedBytes(config);
      s.config = config;
      s.tiles = MatmulTileCount(s, config);
      s.grid = s.tiles * config.split_k;  // a block per work unit
      resident = MmaSyncResident(config);
      break;
    }
    case MatmulTier::kWgmma: {
      if (absl::Status st = ValidateWgmma(config, s, limits, name); !st.ok()) return st;
      s.threads = 384;
      s.warps_m = s.warps_n = 0;
      s.shared_bytes = WgmmaSharedBytes(config, s.staging_element_bytes);
      s.config = config;
      s.tiles = MatmulTileCount(s, config);
      // One block per SM, in whole clusters, each taking a work unit (a
      // cluster tile, or one K slice of a tile) at a time.
      const int64_t clusters = std::max(limits.sm_count / config.ClusterBlocks(), 1);
      s.grid = std::min(ClusterTileCount(s, config) * config.split_k, clusters) * config.ClusterBlocks();
      break;
    }
  }
  s.config_source = std::string(source);
  s.reason = absl::StrCat(s.tier_reason, "; ", TileReason(s, s.config, resident, limits), ScheduleNote(s, s.config));
  if (source != "heuristic") absl::StrAppend(&s.reason, " (", source, ")");
  return absl::OkStatus();
}

absl::Status OverrideMatmulConfigs(const MatmulConfig& config, absl::string_view source, const DeviceLimits& limits,
                                   Plan& plan) {
  for (Kernel& kernel : plan.kernels) {
    if (kernel.kind != KernelKind::kMatmul) continue;
    MatmulConfig c = config;
    const MatmulSchedule& m = kernel.matmul();
    if (m.tier == MatmulTier::kWgmma && !m.no_epilogue_warps.empty()) c.epilogue_warps = false;
    if (absl::Status s = ApplyMatmulConfig(c, source, limits, kernel.matmul()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(source, "=", config.ToString(), " cannot run kernel ", kernel.name,
                                                     " (", MatmulTierName(kernel.matmul().tier), "): ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace kiln
