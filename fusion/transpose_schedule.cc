#include "fusion/transpose_schedule.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int kThreads = 256;
// Copies: vectors each thread has in flight, so a block moves 1024 vectors
// (16 KiB) at a time.
constexpr int kVectorsPerThread = 4;
constexpr int kVectorBytes = 16;
// Tiles: 16 KiB, and a block of one thread per kV x kV micro-tile, so each
// thread has kV 16-byte loads in flight before its first shared-memory store
// (4 for f32 and i32, 8 for 16-bit types, 16 for bool; the previous 64x64
// 16-bit tile on 256 threads had 2). 64 columns (128 for bool, whose 64
// would be half a 128-byte line), the rows making up the rest: 64x64 f32,
// 128x64 16-bit, 128x128 bool. Taller rather than wider: a tile whose writes
// straddle vector boundaries also reads the kV rows after its own
// (kiln_transpose.cuh), 7% more of 120 rows. A dim shorter than its side
// gets a tile as short as it (at least one vector), and the other side grows
// to fill the 16 KiB, so a narrow tensor still moves long rows.
constexpr int kTileBytes = 16384;
constexpr int kMinTileThreads = 32;

int TileColumns(int element_bytes) { return std::max(64, 128 / element_bytes); }

int64_t PowerOfTwoAtLeast(int64_t v) { return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(v))); }

// The widest vector, in elements, of at most 16 bytes whose width divides
// `length`, so every run or row of that length starts on a vector boundary.
int VectorElements(int64_t length, int element_bytes) {
  int v = kVectorBytes / element_bytes;
  while (v > 1 && length % v != 0) v /= 2;
  return v;
}

TileRows SideRows(int64_t length, int vector_elements, bool whole_and_adjacent) {
  if (length % vector_elements == 0) return TileRows::kAligned;
  return whole_and_adjacent ? TileRows::kContiguous : TileRows::kStraddling;
}

std::string PermString(const std::vector<int64_t>& perm) { return absl::StrCat("[", absl::StrJoin(perm, ","), "]"); }

// "16-byte vectors", "8-byte vectors"; "scalar" for one element.
std::string Vectors(int elements, int element_bytes) {
  return elements > 1 ? absl::StrCat(elements * element_bytes, "-byte vectors") : "scalar";
}

}  // namespace

CollapsedPermutation CollapsePermutation(const Dims& dims, const std::vector<int64_t>& perm) {
  // Input dims of size > 1, renumbered, in output order.
  std::vector<int64_t> kept_index(dims.size(), -1);
  Dims kept;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    kept_index[d] = static_cast<int64_t>(kept.size());
    kept.push_back(dims[d]);
  }
  // Runs of consecutive input dims in output order move as one dim.
  std::vector<std::vector<int64_t>> groups;
  for (int64_t p : perm) {
    const int64_t d = kept_index[p];
    if (d < 0) continue;
    if (!groups.empty() && groups.back().back() + 1 == d) {
      groups.back().push_back(d);
    } else {
      groups.push_back({d});
    }
  }
  std::vector<int64_t> by_input(groups.size());
  std::iota(by_input.begin(), by_input.end(), 0);
  std::sort(by_input.begin(), by_input.end(), [&](int64_t a, int64_t b) { return groups[a].front() < groups[b].front(); });
  CollapsedPermutation out;
  out.perm.resize(groups.size());
  for (size_t i = 0; i < by_input.size(); ++i) {
    int64_t size = 1;
    for (int64_t d : groups[by_input[i]]) size *= kept[d];
    out.dims.push_back(size);
    out.perm[by_input[i]] = static_cast<int64_t>(i);
  }
  return out;
}

TransposeSchedule ScheduleTranspose(const Graph& graph, NodeId transpose) {
  const Node& node = graph.node(transpose);
  const Node& operand = graph.node(node.operands[0]);
  const Dims& dims = operand.shape;
  const std::vector<int64_t>& perm = node.perm;
  CollapsedPermutation collapsed = CollapsePermutation(dims, perm);
  TransposeSchedule s;
  s.dims = std::move(collapsed.dims);
  s.perm = std::move(collapsed.perm);
  s.element_bytes = static_cast<int>(DTypeSize(node.dtype));
  s.threads = kThreads;
  const int64_t n = NumElements(s.dims);
  const int64_t rank = static_cast<int64_t>(s.dims.size());
  std::string head = absl::StrCat("perm ", PermString(perm), " of ", DimsString(dims));
  if (IsComputedSource(operand)) {
    s.strategy = TransposeStrategy::kComputed;
    s.blocks = CeilDiv(n, kThreads);
    s.reason = absl::StrCat(head, ": its operand (", OpName(operand.op),
                            ") is computed where it is read, so each output element computes its own value");
    return s;
  }
  if (rank <= 1) {
    s.strategy = TransposeStrategy::kCopy;
    s.vector_elements = kVectorBytes / s.element_bytes;
    s.vectors_per_thread = kVectorsPerThread;
    s.blocks = CeilDiv(n, int64_t{s.vector_elements} * kThreads * kVectorsPerThread);
    s.reason = absl::StrCat(head, " keeps every dim of size > 1 in place: a copy of ", n,
                            n == 1 ? " element" : " elements");
    return s;
  }
  if (s.dims != dims || s.perm != perm) {
    absl::StrAppend(&head, " is perm ", PermString(s.perm), " of ", DimsString(s.dims), ", which");
  }
  if (s.perm.back() == rank - 1) {
    const int64_t run = s.dims.back();
    s.strategy = TransposeStrategy::kRowRun;
    s.vector_elements = VectorElements(run, s.element_bytes);
    s.vectors_per_thread = kVectorsPerThread;
    s.blocks = CeilDiv(n / s.vector_elements, int64_t{kThreads} * kVectorsPerThread);
    s.reason = absl::StrCat(head, " keeps the last dim: ", n / run, " runs of ", run, " contiguous elements (",
                            run * s.element_bytes, " bytes)");
    return s;
  }
  const int64_t rows = s.dims[s.perm.back()];  // becomes the output's last dim
  const int64_t cols = s.dims.back();
  const int64_t batches = n / (rows * cols);
  s.strategy = TransposeStrategy::kTiled;
  s.vector_elements = kVectorBytes / s.element_bytes;
  const int64_t v = s.vector_elements;
  const int64_t tile_elements = kTileBytes / s.element_bytes;
  const int64_t full_cols = TileColumns(s.element_bytes), full_rows = tile_elements / full_cols;
  // A side spans at least one vector: micro-tiles are kV x kV.
  auto side = [&](int64_t length, int64_t most) { return std::clamp(PowerOfTwoAtLeast(length), v, most); };
  int64_t tile_rows = side(rows, full_rows), tile_cols = side(cols, full_cols);
  if (tile_cols < full_cols) {
    tile_rows = side(rows, tile_elements / tile_cols);
  } else if (tile_rows < full_rows) {
    tile_cols = side(cols, tile_elements / tile_rows);
  }
  s.tile_rows = static_cast<int>(tile_rows);
  s.tile_cols = static_cast<int>(tile_cols);
  // A thread per micro-tile (256 at most, for f32's 64x64), at least a warp.
  s.threads = static_cast<int>(std::max<int64_t>(tile_rows * tile_cols / (v * v), kMinTileThreads));
  // A tile's input rows are adjacent when the row dim comes right before the
  // last, and whole when one tile spans the last dim; likewise its output rows.
  s.reads = SideRows(cols, s.vector_elements, s.perm.back() == rank - 2 && s.tile_cols >= cols);
  s.writes = SideRows(rows, s.vector_elements, s.perm[rank - 2] == rank - 1 && s.tile_rows >= rows);
  // Writes that straddle vector boundaries also read the kV rows after the
  // tile's own (kiln_transpose.cuh): the tile gives up one micro-tile row of
  // its own to them, so the rows held still number one row group per thread
  // group and every read thread has one item (16 loads in flight, not a
  // second round for a few threads).
  if (s.writes == TileRows::kStraddling && tile_rows < rows) s.tile_rows -= s.vector_elements;
  s.blocks = batches * CeilDiv(rows, s.tile_rows) * CeilDiv(cols, s.tile_cols);
  s.reason = absl::StrCat(head, " moves the last dim: ", s.blocks, s.blocks == 1 ? " tile of " : " tiles of ",
                          s.tile_rows, "x", s.tile_cols,
                          batches > 1 ? absl::StrCat(" over ", batches, " batches") : "",
                          ", staged in shared memory, read along the input's last dim (", cols,
                          ") and written along the output's last dim (", rows, ")");
  for (auto [length, side, noun] : {std::tuple{cols, s.reads, "reads"}, {rows, s.writes, "writes"}}) {
    if (side == TileRows::kAligned) continue;
    absl::StrAppend(&s.reason, "; rows of ", length, " elements are no multiple of 16 bytes, so ", noun,
                    side == TileRows::kStraddling ? " split the vectors straddling their ends"
                                                  : " move the tile's adjacent rows as one span");
  }
  return s;
}

std::string TransposeStrategyText(const TransposeSchedule& s) {
  switch (s.strategy) {
    case TransposeStrategy::kCopy: return "vectorized copy";
    case TransposeStrategy::kComputed: return "computed from indices";
    case TransposeStrategy::kRowRun:
      return absl::StrCat("row-run copy (", Vectors(s.vector_elements, s.element_bytes), ")");
    case TransposeStrategy::kTiled: {
      const std::string tile = absl::StrCat("tiled ", s.tile_rows, "x", s.tile_cols);
      const bool reads = s.reads == TileRows::kAligned, writes = s.writes == TileRows::kAligned;
      if (reads && writes) return absl::StrCat(tile, " (16-byte vectors)");
      return absl::StrCat(tile, " (16-byte, unaligned ", !reads && !writes ? "rows" : !reads ? "reads" : "writes",
                          ")");
    }
  }
  return "?";
}

}  // namespace kiln
