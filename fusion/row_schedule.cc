#include "fusion/row_schedule.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "fusion/op_class.h"
#include "graph/checked_math.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int64_t kWarpRowLimit = 32 * DeviceLimits::kValuesPerThread;  // 1024 values
// A reduction alone holds no row, so a warp takes rows up to twice as long:
// measured on the H200, sum [65472, 1025] f32 looped with a block per row ran
// at 0.61 of the copy rate against 1.00 for [65600, 1023] on a warp per row,
// and looped rows reach 1.00 from 2048 values on.
constexpr int64_t kStreamedWarpRowLimit = 2 * kWarpRowLimit;
constexpr int kTargetValuesPerThread = 16;
// A block per row aims at this many bytes of its row per thread (16 f32
// values): bf16 rows at 16 values a thread ran twice the threads of f32 rows
// for the same bytes, and paid twice the block reductions per byte.
constexpr int kTargetBytesPerThread = kTargetValuesPerThread * 4;
// Threads of each block of a cluster that holds a row at two blocks an SM.
constexpr int kClusterThreads = 512;
// Rows of at most this many vectors share a warp, a group of lanes per row.
constexpr int64_t kPackedRowVectors = 16;
// Warp and packed rows: a thread keeps at least this many bytes of loads in
// flight, covering several rows in turn where one row gives it fewer. A warp
// per row of 33 f32 values (a vector on 9 lanes) left 8 KiB in flight an SM,
// a third of what the H200's HBM latency needs: 0.19 of the copy rate.
constexpr int64_t kBytesInFlightPerThread = 32;
constexpr int kMaxRowsPerGroup = 16;
// Staged rows: rows of at most this many elements (and values a thread holds)
// that no vector fits go a thread each, from a block's span of rows staged in
// shared memory. A lane group per row of 33 (no vector divides it) was a warp
// with a lane a value: sum [2033601, 33] bf16 ran at 0.04 of the copy rate.
constexpr int64_t kStagedRowLimit = 64;
// Shared memory a block stages (its rows' full-shape inputs and outputs):
// under the 48 KiB of static shared memory, and five blocks an SM keep about
// 100 KiB of copies in flight.
constexpr int64_t kStagedBytes = 40 * 1024;
constexpr int kStagedThreads = 256;
constexpr int kMaxStagedRowsPerThread = 32;
constexpr int kWarpsPerSm = 64;  // resident threads of an sm_80/sm_90 SM, in warps

int PowerOfTwoAtLeast(int64_t v) { return static_cast<int>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(v, 1)))); }

std::string Bytes(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20) && bytes % (int64_t{1} << 20) == 0) return absl::StrCat(bytes >> 20, " MiB");
  if (bytes >= 1024 && bytes % 1024 == 0) return absl::StrCat(bytes >> 10, " KiB");
  return absl::StrCat(bytes, " B");
}


// The widest vector (16 bytes of the narrowest type, at most 8 elements) that
// divides the row, so every row starts on a vector boundary.
int AlignedVector(int64_t length, int64_t element_bytes) {
  int v = static_cast<int>(std::min<int64_t>(16 / std::max<int64_t>(element_bytes, 2), 8));
  while (v > 1 && length % v != 0) v /= 2;
  return v;
}

class RowScheduler {
 public:
  RowScheduler(const Graph& graph, const Group& group, const std::vector<NodeId>& inputs,
               const std::vector<NodeId>& outputs, const DeviceLimits& limits)
      : graph_(graph), group_(group), inputs_(inputs), outputs_(outputs), limits_(limits),
        members_(group.nodes.begin(), group.nodes.end()) {}

  RowSchedule Run();

 private:
  bool InGroup(NodeId id) const { return members_.contains(id); }
  bool IsFull(NodeId id) const { return graph_.node(id).shape == group_.shape; }
  // A reduction over the rows; a unit reduction in the group is elementwise.
  bool IsReduction(NodeId id) const { return ClassifyNode(graph_, id) == OpClass::kRowReduction; }
  // The max reduction m when `sum` is sum(exp(t - m)) with m = max(t) in the group.
  NodeId OnlineSoftmaxPartner(NodeId sum) const;
  // The mean m when `var` is the mean (or sum) of (t - m)^2 with m = mean(t)
  // in the group, all in f32: layernorm's statistics.
  NodeId MomentsPartner(NodeId var) const;
  // With `merge_pairs`, each online or moments pair is one stage.
  void AssignStages(bool merge_pairs);
  // Whether a pass needs the row again after a reduction over it: a later
  // stage, or a full-shape value computed from a reduction's result. With
  // `merge_pairs`, the values a pair's second reduction reduces (the sub and
  // exp of an online pair, the deviation and its square of the moments) are
  // not such values: the pass that reduces the first takes them.
  bool NeedsHold(bool merge_pairs);
  // What the merged pairs join, for reports ("max and sum of exp"); empty
  // without pairs.
  std::string PairsJoined() const;
  std::vector<NodeId> FullInputsReachedFrom(const std::vector<NodeId>& roots) const;
  // `streams_joined`, where not empty: a row that needs holding only for its
  // pairs (logsumexp) can instead stream in one pass, which joins them.
  void ChooseStrategy(RowSchedule& s, bool needs_hold, absl::string_view streams_joined, int64_t held_inputs) const;
  // One pass over rows that no later pass reads again; `why` says why no
  // row is held.
  void ScheduleStreamed(RowSchedule& s, const std::string& row, absl::string_view why) const;
  // Few rows streamed over a cluster each: sets the cluster size, the
  // largest that fits, and the threads, the first of `thread_counts` that
  // fits, so that every row's cluster is resident at once at the blocks an
  // SM the threads allow, where the GPU holds that many; returns the
  // reason's words for it.
  std::string FitRowClusters(RowSchedule& s, std::initializer_list<int> thread_counts) const;
  // Block and cluster persistent rows: the segment goes to shared memory
  // where it fits there, in the inputs' own types.
  void PlaceSegment(RowSchedule& s) const;
  // A row that fits one warp: a warp per row, or for rows of a few vectors a
  // group of lanes per row with the warp's rows side by side, so the warp's
  // loads cover one contiguous span. `what` names what fits ("row of 3 f32
  // = 12 B"); `held` says the row stays in registers for a later pass.
  void ScheduleWarpRows(RowSchedule& s, const std::string& what, bool held) const;
  // Short rows that lane groups of whole vectors fit badly (rows of 33, of 3
  // f32 on 4 lanes, of 1 bf16 at 2 bytes a lane): a block stages a
  // contiguous span of rows in shared memory with 16-byte copies and a
  // thread reduces each row. False where the rows do not qualify.
  bool ScheduleStagedRows(RowSchedule& s, const std::string& what) const;

  const Graph& graph_;
  const Group& group_;
  const std::vector<NodeId>& inputs_;
  const std::vector<NodeId>& outputs_;
  const DeviceLimits& limits_;
  absl::flat_hash_set<NodeId> members_;
  absl::flat_hash_map<NodeId, int> level_;   // reductions that must finish before the value is known
  std::map<int, std::vector<NodeId>> stages_;
  std::vector<std::pair<NodeId, NodeId>> online_pairs_;
  std::vector<std::pair<NodeId, NodeId>> moment_pairs_;
  // The narrowest full-shape input or output, as the kernel's vectors (of at
  // most 8 elements, so 1-byte types count as 2).
  int64_t element_bytes_ = 4;
};

NodeId RowScheduler::OnlineSoftmaxPartner(NodeId sum) const {
  const Node& s = graph_.node(sum);
  if (s.op != OpKind::kReduceSum) return -1;
  const NodeId e = s.operands[0];
  if (!InGroup(e) || graph_.node(e).op != OpKind::kExp) return -1;
  const NodeId d = graph_.node(e).operands[0];
  if (!InGroup(d) || graph_.node(d).op != OpKind::kSub) return -1;
  const NodeId t = graph_.node(d).operands[0];
  const NodeId m = graph_.node(d).operands[1];
  if (!InGroup(m) || !IsReduction(m) || graph_.node(m).op != OpKind::kReduceMax || graph_.node(m).operands[0] != t) {
    return -1;
  }
  if (!IsFull(t) || !IsFull(d)) return -1;
  return m;
}

NodeId RowScheduler::MomentsPartner(NodeId var) const {
  const Node& v = graph_.node(var);
  if (v.op != OpKind::kReduceMean && v.op != OpKind::kReduceSum) return -1;
  const NodeId q = v.operands[0];
  if (!InGroup(q) || graph_.node(q).op != OpKind::kMul || graph_.node(q).operands[0] != graph_.node(q).operands[1]) {
    return -1;
  }
  const NodeId d = graph_.node(q).operands[0];
  if (!InGroup(d) || graph_.node(d).op != OpKind::kSub) return -1;
  const NodeId t = graph_.node(d).operands[0];
  const NodeId m = graph_.node(d).operands[1];
  if (!InGroup(m) || !IsReduction(m) || graph_.node(m).op != OpKind::kReduceMean || graph_.node(m).operands[0] != t) {
    return -1;
  }
  for (NodeId n : {var, q, d, t, m}) {
    if (graph_.node(n).dtype != DType::kF32) return -1;
  }
  if (!IsFull(t) || !IsFull(d) || !IsFull(q)) return -1;
  return m;
}

std::string RowScheduler::PairsJoined() const {
  if (moment_pairs_.empty()) return online_pairs_.empty() ? "" : "max and sum of exp";
  if (online_pairs_.empty()) return "mean and variance";
  return "max and sum of exp, and mean and variance,";
}

void RowScheduler::AssignStages(bool merge_pairs) {
  level_.clear();
  stages_.clear();
  online_pairs_.clear();
  moment_pairs_.clear();
  for (NodeId n : group_.nodes) {
    int level = 0;
    const Node& node = graph_.node(n);
    for (NodeId p : node.operands) {
      if (InGroup(p)) level = std::max(level, level_[p]);
    }
    if (IsReduction(n)) {
      int stage = level;
      const NodeId online = merge_pairs ? OnlineSoftmaxPartner(n) : -1;
      const NodeId moments = merge_pairs && online < 0 ? MomentsPartner(n) : -1;
      if (online >= 0) {
        stage = level_[online] - 1;
        online_pairs_.push_back({online, n});
      } else if (moments >= 0) {
        stage = level_[moments] - 1;
        moment_pairs_.push_back({moments, n});
      }
      stages_[stage].push_back(n);
      level = stage + 1;
    }
    level_[n] = level;
  }
}

bool RowScheduler::NeedsHold(bool merge_pairs) {
  AssignStages(merge_pairs);
  absl::flat_hash_set<NodeId> in_recurrence;
  for (const auto& pairs : {online_pairs_, moment_pairs_}) {
    for (const auto& pair : pairs) {
      const NodeId reduced = graph_.node(pair.second).operands[0];  // exp(t - m), or (t - m)^2
      in_recurrence.insert(reduced);
      in_recurrence.insert(graph_.node(reduced).operands[0]);
    }
  }
  bool hold = stages_.size() > 1;
  for (NodeId n : group_.nodes) {
    const bool taken_by_recurrence =
        in_recurrence.contains(n) && std::find(outputs_.begin(), outputs_.end(), n) == outputs_.end();
    if (IsFull(n) && !IsReduction(n) && level_[n] > 0 && !taken_by_recurrence) hold = true;
  }
  return hold;
}

// External full-shape inputs that the values of `roots` need, stopping at
// reductions (their results are known once their stage is done).
std::vector<NodeId> RowScheduler::FullInputsReachedFrom(const std::vector<NodeId>& roots) const {
  absl::flat_hash_set<NodeId> seen;
  std::vector<NodeId> stack = roots;
  std::vector<NodeId> found;
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    for (NodeId p : graph_.node(n).operands) {
      if (!seen.insert(p).second) continue;
      if (InGroup(p)) {
        if (!IsReduction(p)) stack.push_back(p);
      } else if (IsFull(p) && !IsScalarConstant(graph_.node(p))) {
        found.push_back(p);
      }
    }
  }
  std::vector<NodeId> ordered;
  for (NodeId input : inputs_) {
    if (std::find(found.begin(), found.end(), input) != found.end()) ordered.push_back(input);
  }
  return ordered;
}

bool RowScheduler::ScheduleStagedRows(RowSchedule& s, const std::string& what) const {
  const int64_t length = s.row_length;
  const int vector = AlignedVector(length, element_bytes_);
  const int64_t vectors = length / vector;
  const bool lanes_fit = vector * element_bytes_ >= 4 && vectors <= kPackedRowVectors &&
                         std::has_single_bit(static_cast<uint64_t>(vectors));
  // A thread reads its row's element s as the warp's other threads read theirs,
  // a row apart: rows of a multiple of 4 elements would meet in a bank 4 or more ways.
  if (lanes_fit || length > kStagedRowLimit || length % 4 == 0) return false;
  int64_t full_inputs = 0;
  int64_t row_bytes = 0;
  for (NodeId input : inputs_) {
    if (!IsFull(input)) continue;
    ++full_inputs;
    row_bytes += length * DTypeSize(graph_.node(input).dtype);
  }
  for (NodeId out : outputs_) {
    if (IsFull(out)) row_bytes += length * DTypeSize(graph_.node(out).dtype);
  }
  if (std::max<int64_t>(full_inputs, 1) * length > kStagedRowLimit) return false;
  // Rows built from broadcasts alone read and write no full row: nothing to stage.
  if (row_bytes == 0) return false;
  const int64_t fit_rows = kStagedBytes / row_bytes;
  if (fit_rows < 32) return false;
  s.strategy = RowStrategy::kStagedPersistent;
  s.lanes_per_row = 1;
  s.threads = static_cast<int>(std::min<int64_t>(kStagedThreads, fit_rows / 32 * 32));
  int group_rows = 1;
  while (group_rows < kMaxStagedRowsPerThread && int64_t{s.threads} * group_rows * 2 <= fit_rows) group_rows *= 2;
  // Larger spans must not leave SMs with fewer than four blocks.
  while (group_rows > 1 && CeilDiv(s.rows, int64_t{s.threads} * group_rows) < int64_t{limits_.sm_count} * 4) {
    group_rows /= 2;
  }
  s.rows_per_group = group_rows;
  s.values_per_thread = static_cast<int>(length * group_rows);
  const int64_t span_rows = int64_t{s.threads} * group_rows;
  s.reason = absl::StrCat(what, ": no vector both divides the row and fills a lane's load, so a block stages ",
                          span_rows, " rows (", Bytes(span_rows * row_bytes),
                          ") in shared memory with 16-byte copies and each of its ", s.threads,
                          " threads reduces ", group_rows == 1 ? "a row" : absl::StrCat(group_rows, " rows in turn"));
  return true;
}

void RowScheduler::ScheduleWarpRows(RowSchedule& s, const std::string& what, bool held) const {
  if (ScheduleStagedRows(s, what)) return;
  const int64_t length = s.row_length;
  const int64_t vectors = length / AlignedVector(length, element_bytes_);
  const bool packed = vectors <= kPackedRowVectors;
  s.strategy = packed ? RowStrategy::kPackedPersistent : RowStrategy::kWarpPersistent;
  s.lanes_per_row = packed ? PowerOfTwoAtLeast(vectors) : 32;
  s.threads = s.lanes_per_row;
  const int64_t per_lane = CeilDiv(length, s.lanes_per_row);
  int group_rows = 1;
  while (group_rows < kMaxRowsPerGroup && per_lane * group_rows * element_bytes_ < kBytesInFlightPerThread) {
    group_rows *= 2;
  }
  // More rows a group must not leave SMs without a full complement of warps.
  const int64_t rows_per_warp = 32 / s.lanes_per_row;
  while (group_rows > 1 && CeilDiv(s.rows, rows_per_warp * group_rows) < int64_t{limits_.sm_count} * kWarpsPerSm) {
    group_rows /= 2;
  }
  s.rows_per_group = group_rows;
  s.values_per_thread = static_cast<int>(per_lane * group_rows);
  const std::string unit =
      packed ? absl::StrCat(s.lanes_per_row, s.lanes_per_row == 1 ? " lane" : " lanes") : "one warp";
  const absl::string_view registers = !held ? "" : s.lanes_per_row == 1 || !packed ? "'s registers" : "' registers";
  s.reason = absl::StrCat(what, " fits ", unit, registers, ": ",
                          packed ? absl::StrCat(rows_per_warp, " rows side by side in a warp") : "a warp per row");
  if (group_rows > 1) {
    absl::StrAppend(&s.reason, ", each ", packed ? "lane group" : "warp", " covering ", group_rows, " rows in turn (",
                    kBytesInFlightPerThread, " bytes in flight a thread)");
  }
}

void RowScheduler::ScheduleStreamed(RowSchedule& s, const std::string& row, absl::string_view why) const {
  // A row per block already fills the GPU once there are as many rows as SMs:
  // on the H200 a block per row summed [256, 1M] in 235 us against 271 us for
  // clusters of 8 and 242 us for clusters of 2.
  const bool few_rows = s.rows < static_cast<int64_t>(limits_.sm_count);
  if (s.row_length < kStreamedWarpRowLimit) {
    ScheduleWarpRows(s, row, /*held=*/false);
    absl::StrAppend(&s.reason, ", one pass");
  } else if (few_rows && limits_.supports_clusters) {
    s.strategy = RowStrategy::kClusterLooped;
    const std::string fit = FitRowClusters(s, {1024, 512});
    s.reason = absl::StrCat("single pass: ", why, "; ", s.rows, " rows cannot fill ", limits_.sm_count,
                            " SMs, so each row is split over ", fit);
  } else {
    s.strategy = RowStrategy::kLooped;
    s.threads = s.row_length >= 8192 ? 512 : 256;
    s.reason = absl::StrCat("single pass: ", why, "; a block per row");
  }
}

void RowScheduler::ChooseStrategy(RowSchedule& s, bool needs_hold, absl::string_view streams_joined,
                                  int64_t held_inputs) const {
  const int64_t length = s.row_length;
  const int64_t row_bytes = length * 4;
  // Saturated: a row too long to count in bytes exceeds every on-chip budget.
  const int64_t held_bytes = CheckedMul(held_inputs, row_bytes).value_or(std::numeric_limits<int64_t>::max());
  const int64_t block_budget = limits_.BlockRowBudgetBytes();
  const bool few_rows = s.rows < static_cast<int64_t>(limits_.sm_count);
  const std::string row = absl::StrCat("row of ", length, " f32 = ", Bytes(row_bytes));
  if (!needs_hold) {
    ScheduleStreamed(s, row, "a reduction alone needs no row held on chip");
    return;
  }
  const std::string held = held_inputs == 1 ? row : absl::StrCat(row, " x ", held_inputs, " inputs");
  const int64_t held_values = held_bytes / 4;
  if (held_values <= kWarpRowLimit) {
    ScheduleWarpRows(s, held, /*held=*/true);
    return;
  }
  if (held_bytes <= block_budget) {
    s.strategy = RowStrategy::kBlockPersistent;
    s.threads = std::clamp(PowerOfTwoAtLeast(CeilDiv(length, kTargetBytesPerThread / std::max<int64_t>(element_bytes_, 2))), 128,
                           limits_.max_threads_per_block);
    s.values_per_thread = static_cast<int>(CeilDiv(length, s.threads));
    s.reason = absl::StrCat(held, " fits one block's on-chip budget of ", Bytes(block_budget),
                            ": a block per row");
    return;
  }
  // Past a block, the online recurrence streams the row in one pass rather
  // than hold it in a cluster: logsumexp [1335, 50257] f16 ran in 51.2 us
  // instead of 75.5 on the H200. Within a block, holding stays faster
  // ([16396, 4093] bf16 46.5 us held against 96.3 streamed).
  if (!streams_joined.empty()) {
    ScheduleStreamed(s, row,
                     absl::StrCat(held, " exceeds one block's on-chip budget of ", Bytes(block_budget), ", but its ",
                                  streams_joined, " join in one online pass"));
    return;
  }
  const int64_t cluster_budget = block_budget * limits_.max_cluster_blocks;
  // Blocks of a cluster that hold half a block's budget fit two to an SM, so
  // one block's loads overlap the other's reductions and cluster exchanges.
  if (limits_.supports_clusters && held_bytes <= cluster_budget / 2) {
    s.strategy = RowStrategy::kClusterPersistent;
    s.cluster_blocks = std::max(PowerOfTwoAtLeast(CeilDiv(held_bytes, block_budget / 2)), 2);
    s.threads = kClusterThreads;
    s.values_per_thread = static_cast<int>(CeilDiv(length, int64_t{s.threads} * s.cluster_blocks));
    s.reason = absl::StrCat(held, " exceeds one block's on-chip budget of ", Bytes(block_budget),
                            "; split over a cluster of ", s.cluster_blocks, " blocks");
    return;
  }
  if (limits_.supports_clusters && held_bytes <= cluster_budget) {
    s.strategy = RowStrategy::kClusterPersistent;
    // Too long for two blocks an SM: the smallest cluster of full-budget
    // blocks that holds the row (at one block an SM, softmax [512, 131072]
    // ran on the H200 in 217 us with clusters of 4, 224 us with clusters of 8).
    s.cluster_blocks = std::min(PowerOfTwoAtLeast(CeilDiv(held_bytes, block_budget)), limits_.max_cluster_blocks);
    s.threads = std::clamp(
        PowerOfTwoAtLeast(CeilDiv(length, int64_t{kTargetValuesPerThread} * s.cluster_blocks)), 128,
        limits_.max_threads_per_block);
    s.values_per_thread = static_cast<int>(CeilDiv(length, int64_t{s.threads} * s.cluster_blocks));
    s.reason = absl::StrCat(held, " exceeds one block's on-chip budget of ", Bytes(block_budget),
                            "; split over a cluster of ", s.cluster_blocks, " blocks");
    return;
  }
  // Few rows take clusters of 8 here even where fewer fit at once than rows:
  // these kernels' registers set their blocks an SM (two for layernorm and
  // bf16 rmsnorm, three for f16 rmsnorm and softmax on an H100), which
  // planning does not know.
  // The runtime tunes the size of these clusters (runtime/row_cluster_tuner.h).
  s.strategy = few_rows && limits_.supports_clusters ? RowStrategy::kClusterLooped : RowStrategy::kLooped;
  s.cluster_blocks = s.strategy == RowStrategy::kClusterLooped ? limits_.max_cluster_blocks : 1;
  s.threads = 512;
  s.reason = absl::StrCat(held, " exceeds the on-chip budget of ",
                          limits_.supports_clusters ? "a cluster, " : "a block, ",
                          Bytes(limits_.supports_clusters ? cluster_budget : block_budget),
                          "; looped over tiles");
}

// Few rows leave SMs idle while any row's cluster waits for a second wave:
// on an H100, which holds 30 clusters of 8 blocks of 1024 threads, not the
// 33 its block slots allow, logsumexp [32, 2097152] bf16 ran in 66.3 us;
// with blocks of 512 threads, of which 62 such clusters fit, in 51.1 us.
std::string RowScheduler::FitRowClusters(RowSchedule& s, std::initializer_list<int> thread_counts) const {
  auto resident = [&](int cluster, int threads) {
    return limits_.ResidentClusters(cluster, limits_.max_threads_per_sm / threads);
  };
  s.threads = *thread_counts.begin();
  s.cluster_blocks = limits_.max_cluster_blocks;
  bool fits = false;
  for (int cluster = limits_.max_cluster_blocks; cluster >= 2 && !fits; cluster /= 2) {
    for (int threads : thread_counts) {
      s.threads = threads;
      s.cluster_blocks = cluster;
      fits = s.rows <= resident(cluster, threads);
      if (fits) break;
    }
  }
  const int64_t at_once = resident(s.cluster_blocks, s.threads);
  return absl::StrCat("a cluster of ", s.cluster_blocks, " blocks of ", s.threads, " threads (", at_once,
                      " such clusters fit on the GPU at once", s.rows <= at_once ? ")" : ", so they run in waves)");
}

// Registers held across the reductions' barriers kept two blocks of 512
// threads an SM, one of 1024, and an SM had no loads in flight while its
// blocks waited (s10 ncu: achieved occupancy 45-47%, membar and barrier
// stalls 35-45% of the samples). With the segment in shared memory those
// kernels took 27-45 registers and ran 1.02-1.21x faster on the H200 (s11).
// Smaller blocks already overlap one block's reductions with the others'
// loads, and reading the segment back cost more than it gained: layernorm
// [8193, 8191] f32 (512 threads) and rmsnorm [16396, 4093] bf16 (128) ran
// 0.94x. A segment that leaves room for one block an SM gains no blocks, and
// its two measured cases split (softmax [256, 262144] f32 0.98x, layernorm
// [2097, 32000] f32 1.08x): it stays in registers until a profile says why.
void RowScheduler::PlaceSegment(RowSchedule& s) const {
  // A block's vectors cover its share of the row, one more vector where the
  // share does not divide into them, and up to a vector a thread beyond.
  constexpr int64_t kMaxVector = 8;
  const int64_t share = CeilDiv(s.row_length, int64_t{s.cluster_blocks}) + kMaxVector * (s.threads + 1);
  int64_t bytes = 0;
  for (NodeId input : s.pass_inputs.front()) bytes += share * DTypeSize(graph_.node(input).dtype);
  const bool few_blocks_an_sm = s.threads == limits_.max_threads_per_block || s.cluster_blocks > 1;
  s.segment_in_shared_memory =
      few_blocks_an_sm && limits_.BlocksBySharedMemory(bytes + RowSchedule::kReductionSharedBytes) >= 2;
  absl::StrAppend(&s.reason, s.segment_in_shared_memory ? ", each block's segment held in shared memory"
                                                        : ", held in registers");
}

RowSchedule RowScheduler::Run() {
  RowSchedule s;
  s.rows = NumElements(group_.row_shape);
  s.row_length = NumElements(group_.shape) / s.rows;
  s.broadcast_nodes = group_.broadcast_nodes;

  std::vector<NodeId> full_outputs;
  for (NodeId out : outputs_) {
    if (IsFull(out)) full_outputs.push_back(out);
  }
  const bool held_with_pairs = NeedsHold(/*merge_pairs=*/true);
  const std::string joined = PairsJoined();
  const bool needs_hold = NeedsHold(/*merge_pairs=*/false);
  const std::string streams_joined = needs_hold && !held_with_pairs ? joined : "";
  int64_t held = 0;
  for (NodeId input : inputs_) {
    if (!IsFull(input)) continue;
    ++held;
    element_bytes_ = std::min(element_bytes_, DTypeSize(graph_.node(input).dtype));
  }
  for (NodeId out : full_outputs) element_bytes_ = std::min(element_bytes_, DTypeSize(graph_.node(out).dtype));
  ChooseStrategy(s, needs_hold, streams_joined, std::max<int64_t>(held, 1));

  const bool looped = s.strategy == RowStrategy::kLooped || s.strategy == RowStrategy::kClusterLooped;
  if (!looped) {
    std::vector<NodeId> all;
    for (NodeId input : inputs_) {
      if (IsFull(input)) all.push_back(input);
    }
    s.pass_inputs.push_back(all);
    if (s.strategy == RowStrategy::kBlockPersistent || s.strategy == RowStrategy::kClusterPersistent) PlaceSegment(s);
  }
  // A held row's reductions each cost the unit a barrier or a cluster
  // exchange. Where the segment sits in shared memory (a block of 1024
  // threads, or a cluster), a pair joins in one reduction of a statistic:
  // each thread takes its own max or mean, then its sum of exp or of squared
  // deviations against it, two passes over shared memory, and the unit
  // combines the threads' statistics once. Held in registers, the second
  // pass keeps its exps for the output pass instead (ChooseHeldValues),
  // which exps against a thread's own max could not serve.
  const bool merge_pairs = looped || s.segment_in_shared_memory;
  AssignStages(merge_pairs);
  s.online_pairs = online_pairs_;
  s.online_softmax = !online_pairs_.empty();
  s.moment_pairs = moment_pairs_;
  for (auto& [stage, reductions] : stages_) s.stages.push_back(reductions);

  if (looped) {
    for (const std::vector<NodeId>& reductions : s.stages) {
      s.pass_inputs.push_back(FullInputsReachedFrom(reductions));
    }
    if (!full_outputs.empty()) s.pass_inputs.push_back(FullInputsReachedFrom(full_outputs));
  }
  s.passes = static_cast<int>(s.pass_inputs.size());
  const bool paired = !online_pairs_.empty() || !moment_pairs_.empty();
  if (looped && s.passes > 1) {
    absl::StrAppend(&s.reason, ", ", s.passes, " passes",
                    paired ? absl::StrCat(" (", PairsJoined(), " in one pass)") : "");
  } else if (!looped && paired) {
    absl::StrAppend(&s.reason, ", ", PairsJoined(), " in one reduction");
  }
  return s;
}

}  // namespace

RowSchedule ScheduleRows(const Graph& graph, const Group& group, const std::vector<NodeId>& inputs,
                         const std::vector<NodeId>& outputs, const DeviceLimits& limits) {
  return RowScheduler(graph, group, inputs, outputs, limits).Run();
}

}  // namespace kiln
