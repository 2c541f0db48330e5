#include "fusion/axis_reduction_schedule.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int kBlockThreads = 256;
// The split assumes four blocks of 256 threads per SM, and the kernel's launch
// bound keeps it there (at most 64 registers a thread): 4 x 256 threads x
// kBytesInFlight = 64 KiB of loads in flight per SM, about twice what HBM's
// latency needs at the copy rate.
constexpr int kResidentThreadsPerSm = 1024;
constexpr int kMaxBlocksPerSm = 32;  // the hardware's limit
constexpr int kBytesInFlight = 64;   // per thread: four 16-byte vectors
constexpr int kMinUnroll = 4, kMaxUnroll = 16;
// Past 32 column vectors a tile is 32 lanes wide: a warp reads 32 vectors of
// one row, 512 contiguous bytes at 16-byte vectors, and 8 warps take 8 rows.
constexpr int64_t kWideColumnLanes = 32;
constexpr int kWideRowLanes = 8;
// A split block's fixed cost (a tree over its row lanes, a partial written,
// an arrival counted), in rows each lane could have loaded meanwhile.
constexpr int64_t kSplitOverheadRows = 4;
// Each split block's lanes run at least this many unrolled batches, so its
// loads stay in flight long enough to pay for that fixed cost.
constexpr int64_t kMinBatchesPerSplit = 4;
constexpr int64_t kMaxSplit = 1024;
constexpr int64_t kMaxPartialBytes = int64_t{8} << 20;
// With tiles for this many waves of blocks, the last partial wave costs
// little: no split.
constexpr int64_t kFillWaves = 8;

// The widest power-of-two vector of at most 16 bytes that divides `inner`,
// so every row of inner columns starts on a vector boundary.
int VectorWidth(int64_t inner, int64_t element_bytes) {
  int vector = static_cast<int>(16 / element_bytes);
  while (vector > 1 && inner % vector != 0) vector /= 2;
  return vector;
}

// Time to cover every tile's rows with `split` blocks a tile, in rows a lane
// loads: whole waves of blocks, each wave as long as one block's share.
int64_t SplitCost(int64_t tiles, int64_t slots, int64_t rows_per_lane, int64_t split) {
  return CeilDiv(tiles * split, slots) * (CeilDiv(rows_per_lane, split) + kSplitOverheadRows);
}

// How many blocks share each tile: the cheapest SplitCost (the smallest split
// among equals) that keeps every split's lanes busy for a few batches and its
// partials within kMaxPartialBytes.
int ChooseSplit(const AxisReductionSchedule& s, int64_t slots, int64_t rows_per_lane) {
  if (s.tiles >= kFillWaves * slots) return 1;
  const int64_t partial_bytes = s.tiles * s.outer_lanes * s.tile_columns() * 4;
  const int64_t most = std::min({kMaxSplit, rows_per_lane / (kMinBatchesPerSplit * s.unroll),
                                 kMaxPartialBytes / partial_bytes});
  int64_t best = 1;
  for (int64_t split = 2; split <= most; ++split) {
    if (SplitCost(s.tiles, slots, rows_per_lane, split) < SplitCost(s.tiles, slots, rows_per_lane, best)) {
      best = split;
    }
  }
  return static_cast<int>(best);
}

// Picks the block's lanes (column vectors across the tile, row lanes, outer
// indices) and the tiles that cover [outer, inner]. Row lanes cost a tree in
// shared memory; a block has them only when the columns alone cannot keep
// every SM busy.
void ChooseLanes(AxisReductionSchedule& s, int64_t element_bytes, const DeviceLimits& limits) {
  const int64_t vectors = s.inner / s.vector;  // column vectors per outer index
  // A thread per column vector fills every SM to its 2048 resident threads.
  const bool columns_fill = s.outer * vectors >= int64_t{std::max(limits.sm_count, 1)} * 2048;
  if (vectors <= kWideColumnLanes) {
    // One tile spans all of inner. With row lanes, consecutive threads read
    // consecutive memory across columns, rows and (when rows are few) outer
    // indices; without, a thread walks its rows, which then must cover whole
    // 32-byte sectors to keep every byte fetched useful.
    s.column_lanes = static_cast<int>(vectors);
    const bool walk_rows = columns_fill && s.inner * element_bytes >= 32;
    s.row_lanes = walk_rows ? 1 : static_cast<int>(std::min<int64_t>(s.reduced, kBlockThreads / vectors));
    s.outer_lanes = static_cast<int>(std::clamp<int64_t>(kBlockThreads / (vectors * s.row_lanes), 1, s.outer));
    s.tiles_per_outer = 1;
  } else {
    // Few rows, or columns enough: a thread walks all its column's rows (at
    // most 2 batches of loads when rows are few) and the block's threads
    // spread over more columns instead.
    s.row_lanes = s.reduced <= 2 * s.unroll || columns_fill ? 1 : kWideRowLanes;
    const int64_t lanes = s.row_lanes == 1 ? kBlockThreads : kWideColumnLanes;
    s.tiles_per_outer = CeilDiv(vectors, lanes);
    s.column_lanes = static_cast<int>(CeilDiv(vectors, s.tiles_per_outer));
  }
  s.threads = s.column_lanes * s.row_lanes * s.outer_lanes;
  s.tiles = CeilDiv(s.outer, s.outer_lanes) * s.tiles_per_outer;
}

// "1 tile", "33 tiles".
std::string Count(int64_t n, absl::string_view noun) { return absl::StrCat(n, " ", noun, n == 1 ? "" : "s"); }

std::string AxesText(const std::vector<int64_t>& axes) { return absl::StrCat("[", absl::StrJoin(axes, ","), "]"); }

std::string Reason(const AxisReductionSchedule& s, const Node& operand, const std::vector<int64_t>& axes,
                   int64_t slots, int sm_count) {
  const absl::string_view dtype = DTypeName(operand.dtype);
  std::string out = absl::StrCat(DimsString(operand.shape), " ", dtype, " over axes ", AxesText(axes), ": ",
                                 Count(s.reduced, "row"), " of ", Count(s.inner, "column"));
  if (s.outer > 1) absl::StrAppend(&out, " for each of ", s.outer, " outer indices");
  if (!s.collapsed()) {
    absl::StrAppend(&out, " (the axes do not collapse: rows gathered from ", s.reduced_axes.size(),
                    " reduced and ", s.outer_axes.size(), " outer axis groups)");
  }
  if (s.vector > 1) {
    absl::StrAppend(&out, "; ", s.vector * DTypeSize(operand.dtype), "-byte loads (", s.vector, " ", dtype, ")");
  } else {
    const std::string columns = s.inner == 1 ? "one column" : absl::StrCat("an odd ", s.inner, " columns");
    absl::StrAppend(&out, "; scalar loads (", columns, ")");
  }
  absl::StrAppend(&out, "; tiles of ", Count(s.tile_columns(), "column"));
  if (s.outer_lanes > 1) absl::StrAppend(&out, " x ", s.outer_lanes, " outer indices");
  absl::StrAppend(&out, ", ", Count(s.row_lanes, "row lane"), " (", Count(s.threads, "thread"), ")");
  const std::string fill = absl::StrCat(slots, " block slots (", sm_count, " SMs x ", s.blocks_per_sm, ")");
  if (s.split > 1) {
    absl::StrAppend(&out, "; ", Count(s.tiles, "tile"), " cannot fill ", fill, ", so ", s.split,
                    " blocks share each tile's rows (", s.rows_per_split,
                    " each) and the last to finish combines their partials in order");
  } else if (s.tiles >= slots) {
    absl::StrAppend(&out, "; ", Count(s.tiles, "tile"), " fill ", fill);
  } else {
    absl::StrAppend(&out, "; ", Count(s.tiles, "tile"), " on ", fill, ", a block each (",
                    Count(CeilDiv(s.reduced, s.row_lanes), "row"), " per lane, too few to split)");
  }
  return out;
}

}  // namespace

AxisReductionSchedule CollapseReductionAxes(const Dims& shape, const std::vector<int64_t>& axes) {
  struct Run {
    int64_t extent;
    bool reduced;
  };
  std::vector<Run> runs;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;  // moves no address
    const bool reduced = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d));
    if (!runs.empty() && runs.back().reduced == reduced) {
      runs.back().extent *= shape[d];
    } else {
      runs.push_back({shape[d], reduced});
    }
  }
  AxisReductionSchedule s;
  if (!runs.empty() && !runs.back().reduced) {
    s.inner = runs.back().extent;
    runs.pop_back();
  }
  int64_t stride = s.inner;
  for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
    std::vector<AxisReductionSchedule::Axis>& group = run->reduced ? s.reduced_axes : s.outer_axes;
    group.insert(group.begin(), {run->extent, stride});
    (run->reduced ? s.reduced : s.outer) *= run->extent;
    stride *= run->extent;
  }
  return s;
}

AxisReductionSchedule ScheduleAxisReduction(const Graph& graph, NodeId reduce, const DeviceLimits& limits) {
  const Node& node = graph.node(reduce);
  const Node& operand = graph.node(node.operands[0]);
  AxisReductionSchedule s = CollapseReductionAxes(operand.shape, node.axes);
  const int64_t element_bytes = DTypeSize(operand.dtype);
  s.vector = VectorWidth(s.inner, element_bytes);
  s.unroll = static_cast<int>(std::clamp<int64_t>(kBytesInFlight / (s.vector * element_bytes), kMinUnroll, kMaxUnroll));
  ChooseLanes(s, element_bytes, limits);
  s.blocks_per_sm = std::clamp(kResidentThreadsPerSm / s.threads, 1, kMaxBlocksPerSm);
  const int64_t slots = int64_t{std::max(limits.sm_count, 1)} * s.blocks_per_sm;
  const int64_t rows_per_lane = CeilDiv(s.reduced, s.row_lanes);
  const int split = ChooseSplit(s, slots, rows_per_lane);
  s.rows_per_split = CeilDiv(s.reduced, split);
  s.split = static_cast<int>(CeilDiv(s.reduced, s.rows_per_split));  // no split left without rows
  s.blocks = s.tiles * s.split;
  s.reason = Reason(s, operand, node.axes, slots, limits.sm_count);
  return s;
}

}  // namespace kiln
