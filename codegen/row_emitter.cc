#include "codegen/row_emitter.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/cuda_types.h"
#include "codegen/element_program.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "codegen/reduce_ops.h"
#include "fusion/occupancy.h"
#include "fusion/op_class.h"
#include "graph/check.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int kLoopUnroll = 4;  // tiles in flight per thread in looped passes
// Registers per thread that persistent kernels may spend keeping values the
// last reduction pass computed for the output pass, instead of computing them
// twice (softmax's exp: a bf16 row kernel is bound by its instructions).
constexpr int64_t kHeldValueBudget = 32;
// Most elements a lane reads of an unaligned row as scalars (below).
constexpr int64_t kScalarRowSlots = 4;

// Ops worth a register to compute once: the transcendental ones and division.
bool CostlyToRecompute(OpKind op) {
  switch (op) {
    case OpKind::kExp: case OpKind::kLog: case OpKind::kTanh: case OpKind::kErf: case OpKind::kSqrt:
    case OpKind::kRsqrt: case OpKind::kSigmoid: case OpKind::kReciprocal: case OpKind::kDiv: case OpKind::kPow:
      return true;
    default:
      return false;
  }
}

// What covers one row: a group of lanes of a warp (the whole warp, or part
// of it for packed rows), a thread (rows staged in shared memory), a block,
// or a cluster of blocks.
enum class Unit { kGroup, kThread, kBlock, kCluster };

// Blocks of `threads` threads and `shared_bytes` of dynamic shared memory that
// one SM can hold, whatever registers ptxas gives them.
int MaxBlocksPerSm(int threads, int64_t shared_bytes, const DeviceLimits& limits) {
  const Occupancy occupancy =
      BlocksPerSm({.threads = threads, .shared_bytes = shared_bytes + RowSchedule::kReductionSharedBytes}, limits);
  return std::max(occupancy.blocks, 1);
}

// Adds two spaces before every line of `code`, pragmas aside.
std::string Indented(absl::string_view code) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(code, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&out, absl::StartsWith(line, "#") ? "" : "  ", line, "\n");
  }
  return out;
}

class RowEmitter {
 public:
  RowEmitter(const Graph& graph, const Kernel& kernel, const DeviceLimits& limits)
      : graph_(graph), kernel_(kernel), row_(kernel.row()), limits_(limits), signature_(graph, kernel) {}

  absl::StatusOr<GeneratedKernel> Run();

 private:
  bool IsFull(NodeId id) const { return graph_.node(id).shape == full_shape_; }
  // A reduction over the rows; a unit reduction in the kernel is element code.
  bool IsReduction(NodeId id) const { return ClassifyNode(graph_, id) == OpClass::kRowReduction; }
  // Computed once per element of the row: full-shape nodes and the plan's broadcast nodes.
  bool IsElementNode(NodeId id) const {
    return IsFull(id) ||
           std::find(row_.broadcast_nodes.begin(), row_.broadcast_nodes.end(), id) != row_.broadcast_nodes.end();
  }
  bool Persistent() const {
    return row_.strategy == RowStrategy::kWarpPersistent || row_.strategy == RowStrategy::kPackedPersistent ||
           row_.strategy == RowStrategy::kStagedPersistent || row_.strategy == RowStrategy::kBlockPersistent || row_.strategy == RowStrategy::kClusterPersistent;
  }
  std::string ExternalLoad(NodeId operand, NodeId consumer);
  // An operand that varies along the row only, the same for every row (a
  // layernorm weight [N] against rows of [M, N]).
  bool IsColumnOperand(const Node& operand) const;
  // The value a full-shape output's store converts.
  NodeId StoredValue(NodeId output) const;
  // Element-program nodes feeding `roots`, up to the reductions and the inputs.
  absl::flat_hash_set<NodeId> ConeOf(const std::vector<NodeId>& roots) const;
  // The costly values of the last reduction pass that the output pass needs
  // again, when they fit kHeldValueBudget.
  std::vector<NodeId> ChooseHeldValues(const std::vector<NodeId>& full_outputs) const;
  std::string LoadAt(NodeId input, absl::string_view g) const;
  // Appends the code for one element given the known values: of a whole
  // vector (element j of the slot's vector), or of an unaligned segment's
  // ends (one element a lane, no slot).
  using PerElement = std::function<absl::Status(absl::flat_hash_map<NodeId, std::string>& known, std::string& code,
                                                absl::string_view indent, bool whole_vector)>;
  // Emits a loop over this thread's elements of the row; `per_element`
  // appends the code for one element given the known values, and
  // `after_vector` follows each whole vector's elements. With `reads_held`,
  // the held values are known from the registers that keep them.
  absl::Status EmitElementLoop(const std::vector<NodeId>& inputs, const PerElement& per_element,
                               absl::string_view after_vector, const std::vector<NodeId>& vector_outputs,
                               bool reads_held);
  absl::Status EmitStage(const std::vector<NodeId>& reductions, const std::vector<NodeId>& inputs, bool last);
  absl::Status EmitRowNodes();
  // Divisions of the output pass by a row's value become products with its
  // reciprocal, computed once per row.
  void EmitRowReciprocals();
  // The statements that name this row of the unit (`row`, `row_base`, the
  // segment and its first vector); for lane groups, row `p` of the group.
  std::string RowLines(absl::string_view indent) const;
  std::string UnitReduce(absl::string_view op, absl::string_view value) const;
  // Where a full-shape input or output lives for the row kernel: in global
  // memory, or in the block's staged span (kiln_stage_<name>, from tile_base).
  std::string Base(absl::string_view name) const;
  // The unit's reduction of a statistic (KilnOnline, KilnMoments).
  std::string UnitStat(absl::string_view type, absl::string_view value) const;
  // The floats of the widest statistic the kernel reduces, which size the
  // halves of the block's scratch and the cluster's exchange slots for all
  // its reductions: 1 without pairs.
  int StatFloats() const { return !row_.moment_pairs.empty() ? 3 : !row_.online_pairs.empty() ? 2 : 1; }
  // "true" where an online pair's exps reach the outputs only as 16-bit
  // floats, so its rescales may be approximate: the template argument of
  // kiln_online_push and kiln_online_push_vec.
  const char* ApproxExp(NodeId sum) const {
    return program_->SixteenBitBound(graph_.node(sum).operands[0]) ? "true" : "false";
  }
  // The kernel's index type (kiln_index): 32-bit where no index can overflow
  // it. 64-bit index arithmetic tripled the instructions of a warp per row
  // on unaligned rows (ncu, sum [528416, 127] f32: 257 instructions a warp
  // for its 2 rows against 84 on rows of 128, 68% of issue slots busy and
  // DRAM at 44%); 32-bit, it ran in 65.4 us instead of 97.6.
  const char* IndexType() const;

  const Graph& graph_;
  const Kernel& kernel_;
  const RowSchedule& row_;
  const DeviceLimits& limits_;
  KernelSignature signature_;
  Dims full_shape_;
  Unit unit_ = Unit::kBlock;
  // Lane groups hold their rows' inputs as h_<input>[p][s], blocks and clusters as h_<input>[s].
  std::string row_slot_;
  int vec_ = 1;
  // Rows are a multiple of kV long, so every vector lies inside its row.
  bool aligned_ = true;
  // The element being emitted is one of an unaligned segment's ends, read and
  // written alone.
  bool edge_ = false;
  int slots_ = 0;
  // Slots [0, full_slots_) hold whole vectors of every segment, so only the
  // rest need a bounds test (in the unrolled loops the test of a full slot
  // folds away).
  int full_slots_ = 0;
  // The schedule put a block's segment of the row in shared memory
  // (r_<input>[s * kThreads + lane]): each thread copies its vectors there
  // with cp.async, and every pass reads them back as it comes to them.
  bool rows_in_shared_ = false;
  // Column operands the element block being emitted reads as vectors.
  std::vector<NodeId> column_loads_;
  std::vector<NodeId> held_values_;
  std::string body_;
  absl::flat_hash_map<NodeId, std::string> row_known_;  // reductions and per-row values
  std::unique_ptr<ElementProgram> program_;
};

// A cast from f32 to the 16-bit type it is stored as rounds once in the
// store: converting the rounded value again would cost two more instructions
// per element of a bf16 row kernel, for the same bits.
NodeId RowEmitter::StoredValue(NodeId output) const {
  const Node& node = graph_.node(output);
  if (node.op != OpKind::kCast || DTypeSize(node.dtype) != 2) return output;
  const NodeId operand = node.operands[0];
  const bool computed_here = std::find(kernel_.nodes.begin(), kernel_.nodes.end(), operand) != kernel_.nodes.end();
  return computed_here && graph_.node(operand).dtype == DType::kF32 ? operand : output;
}

bool RowEmitter::IsColumnOperand(const Node& operand) const {
  if (NumElements(operand.shape) != row_.row_length || operand.shape.size() > full_shape_.size()) return false;
  const size_t lead = full_shape_.size() - operand.shape.size();
  int64_t trailing = 1;
  for (size_t d = full_shape_.size(); d-- > 0;) {
    const int64_t extent = d < lead ? 1 : operand.shape[d - lead];
    if (trailing < row_.row_length ? extent != full_shape_[d] : extent != 1) return false;
    trailing *= extent;
  }
  return true;
}

std::string RowEmitter::ExternalLoad(NodeId operand, NodeId consumer) {
  const Node& node = graph_.node(operand);
  // A column operand is indexed by the column, not by a 64-bit modulo of the
  // element index, and on aligned rows read as the same vector as the row's
  // (16-byte loads, coalesced; shifted in registers on unaligned rows):
  // per-element scalar loads of layernorm's weight and bias, strided by the
  // vector width across a warp, bound the bf16 kernel by L1 wavefronts at
  // 0.38 of the copy rate (ncu: 60% excess sectors).
  if (IsElementNode(consumer) && IsColumnOperand(node)) {
    const std::string name = signature_.InputName(operand);
    if (!edge_ && !name.empty() && node.op != OpKind::kIota) {
      if (std::find(column_loads_.begin(), column_loads_.end(), operand) == column_loads_.end()) {
        column_loads_.push_back(operand);
      }
      return LoadConversion(node.dtype, absl::StrCat("c_", name, ".v[j]"));
    }
    return OperandAt(node, name, "i - row_base");
  }
  const std::string index = IsElementNode(consumer) ? BroadcastIndex(node.shape, full_shape_, "i")
                                             : BroadcastIndex(node.shape, graph_.node(consumer).shape, "row");
  return OperandAt(node, signature_.InputName(operand), index);
}

absl::flat_hash_set<NodeId> RowEmitter::ConeOf(const std::vector<NodeId>& roots) const {
  absl::flat_hash_set<NodeId> cone;
  std::vector<NodeId> stack = roots;
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    if (!IsFull(n) || IsReduction(n)) continue;
    if (std::find(kernel_.nodes.begin(), kernel_.nodes.end(), n) == kernel_.nodes.end()) continue;
    if (!cone.insert(n).second) continue;
    for (NodeId p : graph_.node(n).operands) stack.push_back(p);
  }
  return cone;
}

std::vector<NodeId> RowEmitter::ChooseHeldValues(const std::vector<NodeId>& full_outputs) const {
  // What EmitStage computes per element: a pair's second reduction sees only
  // the first's operand.
  std::vector<NodeId> operands;
  for (NodeId r : row_.stages.back()) {
    auto second_of_pair = [r](const std::pair<NodeId, NodeId>& pair) { return pair.second == r; };
    const bool paired = std::any_of(row_.online_pairs.begin(), row_.online_pairs.end(), second_of_pair) ||
                        std::any_of(row_.moment_pairs.begin(), row_.moment_pairs.end(), second_of_pair);
    if (!paired) operands.push_back(graph_.node(r).operands[0]);
  }
  const absl::flat_hash_set<NodeId> last_pass = ConeOf(operands);
  const absl::flat_hash_set<NodeId> output_pass = ConeOf(full_outputs);
  std::vector<NodeId> held;
  for (NodeId n : kernel_.nodes) {
    if (last_pass.contains(n) && output_pass.contains(n) && CostlyToRecompute(graph_.node(n).op)) held.push_back(n);
  }
  if (static_cast<int64_t>(held.size()) * slots_ * vec_ > kHeldValueBudget) return {};
  return held;
}

std::string RowEmitter::Base(absl::string_view name) const {
  if (unit_ == Unit::kThread) return absl::StrCat("kiln_stage_", name, " + (g - tile_base)");
  return absl::StrCat(name, " + g");
}

std::string RowEmitter::LoadAt(NodeId input, absl::string_view g) const {
  const std::string name = signature_.InputName(input);
  const std::string type = StorageType(graph_.node(input).dtype);
  if (unit_ == Unit::kThread) {
    return absl::StrCat("kiln_load_vec<", type, ", kV>(kiln_stage_", name, " + (", g, " - tile_base))");
  }
  return absl::StrCat("kiln_load_vec<", type, ", kV>(", name, " + ", g, ")");
}

std::string RowEmitter::UnitReduce(absl::string_view op, absl::string_view value) const {
  switch (unit_) {
    case Unit::kGroup: return absl::StrCat("kiln_group_reduce<", op, ", kLanes>(", value, ")");
    case Unit::kThread: return std::string(value);
    case Unit::kBlock: return absl::StrCat("kiln_block_reduce<", op, ">(", value, ", kiln_scratch, kiln_turn)");
    case Unit::kCluster:
      return absl::StrCat("kiln_cluster_reduce<", op, ", ", row_.cluster_blocks, ">(", value,
                          ", kiln_partials, kiln_turn)");
  }
  return "";
}

std::string RowEmitter::UnitStat(absl::string_view type, absl::string_view value) const {
  switch (unit_) {
    case Unit::kGroup: return absl::StrCat("kiln_group_stat<", type, ", kLanes>(", value, ")");
    case Unit::kThread: return std::string(value);
    case Unit::kBlock: return absl::StrCat("kiln_block_stat<", type, ">(", value, ", kiln_scratch, kiln_turn)");
    case Unit::kCluster: return absl::StrCat("kiln_cluster_stat<", type, ">(", value, ", kiln_partials, kiln_turn)");
  }
  return "";
}

const char* RowEmitter::IndexType() const {
  // Every index the kernel forms is an element of the tensor, a row index, or
  // at most a row or a block's vectors (1024 threads x 8 elements x
  // kLoopUnroll tiles) past the tensor's end before it is tested.
  constexpr int64_t kSlack = int64_t{1} << 20;
  const int64_t largest = NumElements(full_shape_) + row_.row_length + kSlack;
  return largest <= std::numeric_limits<int32_t>::max() ? "int" : "long long";
}

absl::Status RowEmitter::EmitElementLoop(const std::vector<NodeId>& inputs, const PerElement& per_element,
                                         absl::string_view after_vector, const std::vector<NodeId>& vector_outputs,
                                         bool reads_held) {
  // Whether the vectors read column operands beside unaligned rows, shifted
  // by the row's kColShift.
  bool shifted = false;
  // One whole vector's elements.
  auto vector_block = [&](absl::string_view held_suffix, absl::string_view indent) -> absl::Status {
    const std::string inner = absl::StrCat(indent, "  ");
    absl::flat_hash_map<NodeId, std::string> known = row_known_;
    for (NodeId input : inputs) {
      const std::string name = signature_.InputName(input);
      if (rows_in_shared_) {
        absl::StrAppend(&body_, indent, "const KilnVec<", StorageType(graph_.node(input).dtype), ", kV> h_", name,
                        " = r_", name, "[s * kThreads + lane];\n");
        known[input] = LoadConversion(graph_.node(input).dtype, absl::StrCat("h_", name, ".v[j]"));
      } else {
        known[input] = LoadConversion(graph_.node(input).dtype,
                                      absl::StrCat("h_", name, row_slot_, held_suffix, ".v[j]"));
      }
    }
    if (reads_held) {
      for (NodeId n : held_values_) known[n] = absl::StrCat("held", n, held_suffix, "[j]");
    }
    std::string element;
    column_loads_.clear();
    if (absl::Status s = per_element(known, element, inner, /*whole_vector=*/true); !s.ok()) return s;
    for (NodeId column : column_loads_) {
      const std::string name = signature_.InputName(column);
      const std::string type = StorageType(graph_.node(column).dtype);
      absl::StrAppend(&body_, indent, "const KilnVec<", type, ", kV> c_", name, " = ",
                      aligned_ ? absl::StrCat("kiln_load_vec<", type, ", kV>(", name, " + (g - row_base));\n")
                               : absl::StrCat("kiln_load_cols<", type, ", kV, kColShift>(", name,
                                              ", g - row_base, kCols);\n"));
    }
    shifted = !aligned_ && !column_loads_.empty();
    for (NodeId output : vector_outputs) {
      absl::StrAppend(&body_, indent, "KilnVec<", StorageType(graph_.node(output).dtype), ", kV> y_",
                      signature_.OutputName(output), ";\n");
    }
    absl::StrAppend(&body_, "#pragma unroll\n", indent, "for (int j = 0; j < kV; ++j) {\n", indent,
                    "  const kiln_index i = g + j;\n", indent, "  (void)i;\n", element, indent, "}\n");
    for (absl::string_view line : absl::StrSplit(after_vector, '\n', absl::SkipEmpty())) {
      absl::StrAppend(&body_, indent, line, "\n");
    }
    for (NodeId output : vector_outputs) {
      const std::string name = signature_.OutputName(output);
      absl::StrAppend(&body_, indent, "kiln_store_vec<", StorageType(graph_.node(output).dtype), ", kV>(",
                      Base(name), ", y_", name, ");\n");
    }
    return absl::OkStatus();
  };
  // On unaligned rows the elements before the segment's first whole vector
  // and after its last (fewer than kV each) take one lane apiece, so the
  // vectors need no per-element tests: those tests and the divergent
  // element-by-element path at both ends made bf16 rows of 4093
  // instruction-bound (ncu: 0.77 issued warps per scheduler).
  auto edge_block = [&](absl::string_view indent) -> absl::Status {
    if (aligned_) return absl::OkStatus();
    const std::string inner = absl::StrCat(indent, "  ");
    absl::flat_hash_map<NodeId, std::string> known = row_known_;
    std::string loads;
    for (NodeId input : inputs) {
      const std::string name = signature_.InputName(input);
      if (Persistent()) {
        known[input] = LoadConversion(graph_.node(input).dtype, absl::StrCat("e_", name, row_slot_));
      } else {
        absl::StrAppend(&loads, inner, "const ", StorageType(graph_.node(input).dtype), " e_", name, " = ", name,
                        "[edge_i];\n");
        known[input] = LoadConversion(graph_.node(input).dtype, absl::StrCat("e_", name));
      }
    }
    std::string element;
    column_loads_.clear();
    edge_ = true;
    absl::Status status = per_element(known, element, inner, /*whole_vector=*/false);
    edge_ = false;
    if (!status.ok()) return status;
    absl::StrAppend(&body_, indent, "if (edge_live) {\n", inner, "const kiln_index i = edge_i;\n", inner, "(void)i;\n",
                    inner, "constexpr int j = 0;\n", inner, "(void)j;\n", loads);
    for (NodeId output : vector_outputs) {
      absl::StrAppend(&body_, inner, "KilnVec<", StorageType(graph_.node(output).dtype), ", 1> y_",
                      signature_.OutputName(output), ";\n");
    }
    absl::StrAppend(&body_, element);
    for (NodeId output : vector_outputs) {
      const std::string name = signature_.OutputName(output);
      absl::StrAppend(&body_, inner, name, "[i] = y_", name, ".v[0];\n");
    }
    absl::StrAppend(&body_, indent, "}\n");
    return absl::OkStatus();
  };

  // An output pass writes its edge element first, so that the edge's
  // registers are free before the vectors; over a segment held in shared
  // memory it also keeps its slots in a loop, so that no later slot's loads,
  // hoisted by ptxas, stay live beside a slot's vectors and its shifted
  // column operands. Layernorm [1335, 50257] bf16 spilled 28 bytes a thread
  // at 4 blocks of 512 threads an SM, and none this way (H100: 119.0 ->
  // 115.5 us, no longer tuned down to 3 blocks). A pass that reduces keeps
  // its edge last, after the vector whose first value shifts a held moment;
  // held values in registers need unrolled slots.
  const bool edge_first = !vector_outputs.empty();
  const bool rolled = edge_first && rows_in_shared_ && !(reads_held && !held_values_.empty());
  if (edge_first) {
    if (absl::Status s = edge_block("  "); !s.ok()) return s;
  }
  std::string outer;
  std::swap(body_, outer);  // the vectors' loop, wrapped below where shifted
  if (Persistent()) {
    absl::StrAppend(&body_, rolled ? "#pragma unroll 1\n" : "#pragma unroll\n",
                    "  for (int s = 0; s < kSlots; ++s) {\n",
                    "    const kiln_index g = vec_begin + (static_cast<kiln_index>(s) * kThreads + lane) * kV;\n",
                    "    if (s < kFullSlots || g < vec_end) {\n");
    if (absl::Status s = vector_block("[s]", "      "); !s.ok()) return s;
    absl::StrAppend(&body_, "    }\n  }\n");
  } else {
    // Looped: loads of kLoopUnroll tiles are issued before any is used.
    absl::StrAppend(&body_, "  for (kiln_index g0 = vec_begin + lane * kV; g0 < vec_end; g0 += kThreads * kV * ",
                    kLoopUnroll, ") {\n");
    for (NodeId input : inputs) {
      absl::StrAppend(&body_, "    KilnVec<", StorageType(graph_.node(input).dtype), ", kV> h_",
                      signature_.InputName(input), "[", kLoopUnroll, "];\n");
    }
    absl::StrAppend(&body_, "#pragma unroll\n    for (int u = 0; u < ", kLoopUnroll, "; ++u) {\n",
                    "      const kiln_index g = g0 + static_cast<kiln_index>(u) * kThreads * kV;\n",
                    "      if (g < vec_end) {\n");
    for (NodeId input : inputs) {
      absl::StrAppend(&body_, "        h_", signature_.InputName(input), "[u] = ", LoadAt(input, "g"), ";\n");
    }
    absl::StrAppend(&body_, "      }\n    }\n#pragma unroll\n    for (int u = 0; u < ", kLoopUnroll, "; ++u) {\n",
                    "      const kiln_index g = g0 + static_cast<kiln_index>(u) * kThreads * kV;\n",
                    "      if (g < vec_end) {\n");
    if (absl::Status s = vector_block("[u]", "        "); !s.ok()) return s;
    absl::StrAppend(&body_, "      }\n    }\n  }\n");
  }
  std::swap(body_, outer);
  if (shifted) {
    // Every vector of the segment starts kColShift elements past a multiple
    // of kV in the column operands: one branch for the row, not one a load.
    absl::StrAppend(&body_,
                    "  kiln_with_shift<kV>(static_cast<int>((vec_begin - row_base) & (kV - 1)), [&](auto shift) {\n",
                    "    constexpr int kColShift = decltype(shift)::value;\n", Indented(outer), "  });\n");
  } else {
    absl::StrAppend(&body_, outer);
  }
  return edge_first ? absl::OkStatus() : edge_block("  ");
}

absl::Status RowEmitter::EmitStage(const std::vector<NodeId>& reductions, const std::vector<NodeId>& inputs,
                                   bool last) {
  // The stage's pairs, each reduced as one statistic, on<m> after its first
  // reduction m.
  struct Pair {
    NodeId first;   // the max, or the mean
    NodeId second;  // the sum of exp, or the variance
    bool moments;
  };
  std::vector<Pair> pairs;
  std::vector<NodeId> plain;
  for (NodeId r : reductions) {
    bool in_pair = false;
    for (const auto& [m, s] : row_.online_pairs) {
      if (m == r) pairs.push_back({m, s, false});
      if (m == r || s == r) in_pair = true;
    }
    for (const auto& [m, v] : row_.moment_pairs) {
      if (m == r) pairs.push_back({m, v, true});
      if (m == r || v == r) in_pair = true;
    }
    if (!in_pair) plain.push_back(r);
  }
  for (NodeId r : plain) {
    absl::StrAppend(&body_, "  float acc", r, " = ", ReduceCodeOf(graph_.node(r).op).combiner, "::identity();\n");
  }
  // A streamed row's pair gathers a whole vector's operands in t<m> and
  // joins them to its statistic together (kiln_online_push_vec,
  // kiln_moments_push_vec); an unaligned end's join alone. A held row's
  // online pair is read twice instead: a thread's own max first, then its
  // sum of exp against that (an exp an element, no rescaling). Its moments
  // take one pass, of sums shifted by the thread's first value
  // (kiln_moments_shifted), where a pass for the thread's mean and one for
  // the squared deviations from it cost two more instructions an element
  // and a second read of the segment.
  const bool held = Persistent();
  const bool held_online = held && std::any_of(pairs.begin(), pairs.end(), [](const Pair& p) { return !p.moments; });
  auto type = [](const Pair& p) { return p.moments ? "KilnMoments" : "KilnOnline"; };
  std::string after_vector;
  for (const Pair& p : pairs) {
    const NodeId m = p.first;
    if (held) {
      absl::StrAppend(&body_, p.moments ? absl::StrCat("  float lshift", m, " = 0.0f;\n  float lsum", m,
                                                       " = 0.0f;\n  int lcount", m, " = 0;\n  float lsq", m,
                                                       " = 0.0f;\n")
                                        : absl::StrCat("  float lmax", m, " = KilnMax::identity();\n  float lexp", m,
                                                       " = 0.0f;\n"));
      continue;
    }
    absl::StrAppend(&body_, "  ", type(p), " on", m, " = ", type(p), "::identity();\n  float t", m, "[kV];\n");
    absl::StrAppend(&after_vector, "on", m, " = ",
                    p.moments ? "kiln_moments_push_vec" : absl::StrCat("kiln_online_push_vec<", ApproxExp(p.second), ">"),
                    "(on", m, ", t", m, ");\n");
  }
  const bool keeps_held = last && !held_values_.empty();
  if (keeps_held) {
    for (NodeId n : held_values_) absl::StrAppend(&body_, "  float held", n, "[kSlots][kV];\n");
  }

  // `second_pass`: a held row's second pass, which adds each element's exp
  // for its online pairs and reduces nothing else.
  bool second_pass = false;
  auto per_element = [&](absl::flat_hash_map<NodeId, std::string>& known, std::string& code,
                         absl::string_view indent, bool whole_vector) -> absl::Status {
    std::vector<NodeId> operands;
    if (!second_pass) {
      for (NodeId r : plain) operands.push_back(graph_.node(r).operands[0]);
    }
    for (const Pair& p : pairs) {
      if (!second_pass || !p.moments) operands.push_back(graph_.node(p.first).operands[0]);
    }
    if (absl::Status s = program_->Emit(operands, known, code, indent); !s.ok()) return s;
    if (!second_pass) {
      for (NodeId r : plain) {
        absl::StrAppend(&code, indent, "acc", r, " = ", ReduceCodeOf(graph_.node(r).op).combiner, "::combine(acc",
                        r, ", ", known[graph_.node(r).operands[0]], ");\n");
      }
    }
    for (const Pair& p : pairs) {
      const NodeId m = p.first;
      const std::string& value = known[graph_.node(m).operands[0]];
      if (held && p.moments) {
        if (second_pass) continue;
        // The slots and the vector's elements are unrolled, so the test
        // folds away: the shift is the thread's first whole vector's first
        // value (0 for a thread with none, its edge element aside).
        if (whole_vector) absl::StrAppend(&code, indent, "if (s == 0 && j == 0) lshift", m, " = ", value, ";\n");
        absl::StrAppend(&code, indent, "const float ld", m, " = ", value, " - lshift", m, ";\n", indent, "lsum", m,
                        " += ld", m, ";\n", indent, "lsq", m, " += ld", m, " * ld", m, ";\n", indent, "++lcount", m,
                        ";\n");
      } else if (held) {
        absl::StrAppend(&code, indent,
                        second_pass ? absl::StrCat("lexp", m, " += kiln_online_term(", value, ", lbase", m, ");\n")
                                    : absl::StrCat("lmax", m, " = KilnMax::combine(lmax", m, ", ", value, ");\n"));
      } else if (whole_vector) {
        absl::StrAppend(&code, indent, "t", m, "[j] = ", value, ";\n");
      } else {
        absl::StrAppend(&code, indent, "on", m, " = ",
                        p.moments ? "kiln_moments_push"
                                  : absl::StrCat("kiln_online_push<", ApproxExp(p.second), ">"),
                        "(on", m, ", ", value, ");\n");
      }
    }
    if (keeps_held && whole_vector) {
      for (NodeId n : held_values_) absl::StrAppend(&code, indent, "held", n, "[s][j] = ", known[n], ";\n");
    }
    return absl::OkStatus();
  };
  if (absl::Status s = EmitElementLoop(inputs, per_element, after_vector, {}, false); !s.ok()) return s;
  if (held_online) {
    for (const Pair& p : pairs) {
      // A thread with no element or only -inf has the max -inf: its exps are
      // taken against 0 instead, each exp(-inf) = 0 rather than exp(-inf - -inf).
      if (!p.moments) {
        absl::StrAppend(&body_, "  const float lbase", p.first, " = lmax", p.first, " == -KILN_INF ? 0.0f : lmax",
                        p.first, ";\n");
      }
    }
    if (rows_in_shared_) absl::StrAppend(&body_, "  kiln_reread_shared();\n");
    second_pass = true;
    if (absl::Status s = EmitElementLoop(inputs, per_element, "", {}, false); !s.ok()) return s;
  }
  if (held) {
    for (const Pair& p : pairs) {
      const NodeId m = p.first;
      absl::StrAppend(&body_, "  const ", type(p), " on", m, " = ",
                      p.moments ? absl::StrCat("kiln_moments_shifted(lcount", m, ", lshift", m, ", lsum", m, ", lsq", m,
                                               ")")
                                : absl::StrCat("{lmax", m, ", lexp", m, "}"),
                      ";\n");
    }
  }

  for (NodeId r : plain) {
    const std::string reduced = UnitReduce(ReduceCodeOf(graph_.node(r).op).combiner, absl::StrCat("acc", r));
    if (ReduceCodeOf(graph_.node(r).op).divides_by_count) {
      absl::StrAppend(&body_, "  const float v", r, " = ", reduced, " / static_cast<float>(kCols);\n");
    } else {
      absl::StrAppend(&body_, "  const float v", r, " = ", reduced, ";\n");
    }
    row_known_[r] = absl::StrCat("v", r);
  }
  for (const Pair& p : pairs) {
    const NodeId m = p.first;
    const NodeId s = p.second;
    absl::StrAppend(&body_, "  const ", type(p), " stats", m, " = ", UnitStat(type(p), absl::StrCat("on", m)), ";\n");
    if (p.moments) {
      const bool mean = ReduceCodeOf(graph_.node(s).op).divides_by_count;
      absl::StrAppend(&body_, "  const float v", m, " = stats", m, ".mean;\n  const float v", s, " = stats", m, ".m2",
                      mean ? " / static_cast<float>(kCols)" : "", ";\n");
    } else {
      absl::StrAppend(&body_, "  const float v", m, " = stats", m, ".m;\n  const float v", s, " = stats", m, ".s;\n");
    }
    row_known_[m] = absl::StrCat("v", m);
    row_known_[s] = absl::StrCat("v", s);
  }
  return EmitRowNodes();
}

// Per-row elementwise values (e.g. rsqrt(mean + eps)), once their operands are known.
absl::Status RowEmitter::EmitRowNodes() {
  for (NodeId n : kernel_.nodes) {
    const Node& node = graph_.node(n);
    if (IsElementNode(n) || IsReduction(n) || row_known_.contains(n)) continue;
    const bool ready = std::all_of(node.operands.begin(), node.operands.end(), [&](NodeId p) {
      return row_known_.contains(p) || std::find(kernel_.nodes.begin(), kernel_.nodes.end(), p) == kernel_.nodes.end();
    });
    if (!ready) continue;
    if (absl::Status s = program_->Emit({n}, row_known_, body_, "  "); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// An IEEE f32 division is about ten instructions and a slow-path branch per
// element; softmax's e / sum made bf16 rows instruction-bound (ncu, softmax
// [65536, 1024] bf16: 81% SM throughput, 48% DRAM). x * (1 / s) differs from
// x / s by at most one rounding (within every tolerance of the reference),
// and agrees on zeros, infinities and NaN; only a subnormal divisor, whose
// reciprocal overflows, differs.
void RowEmitter::EmitRowReciprocals() {
  for (NodeId n : kernel_.nodes) {
    const Node& node = graph_.node(n);
    if (node.op != OpKind::kDiv || !IsFloat(node.dtype) || !IsFull(n)) continue;
    auto divisor = row_known_.find(node.operands[1]);
    if (divisor == row_known_.end()) continue;
    const std::string reciprocal = absl::StrCat("rcp", n);
    absl::StrAppend(&body_, "  const float ", reciprocal, " = 1.0f / ", divisor->second, ";\n");
    program_->MultiplyByReciprocal(n, reciprocal);
  }
}

std::string RowEmitter::RowLines(absl::string_view indent) const {
  std::string code;
  if (unit_ == Unit::kThread) {
    absl::StrAppend(&code, indent, "const kiln_index row_raw = tile_row + static_cast<kiln_index>(p) * kBlockThreads + threadIdx.x;\n",
                    indent, "const bool row_live = row_raw < kRows;\n", indent,
                    "const kiln_index row = row_live ? row_raw : kRows - 1;\n");
  } else if (unit_ == Unit::kGroup) {
    // Rows past the end (in the last warp) repeat the last row, so that every
    // lane takes part in the shuffles; only their stores are skipped.
    absl::StrAppend(&code, indent, "const kiln_index row_raw = first_row + static_cast<kiln_index>(p) * (32 / kLanes);\n",
                    indent, "const bool row_live = row_raw < kRows;\n", indent,
                    "const kiln_index row = row_live ? row_raw : kRows - 1;\n");
  } else {
    absl::StrAppend(&code, indent, "const kiln_index row = first_row;\n");
  }
  absl::StrAppend(&code, indent, "const kiln_index row_base = row * kCols;\n", indent,
                  "const kiln_index seg_begin = row_base + col_begin;\n", indent,
                  "const kiln_index seg_end = row_base + col_end;\n");
  if (aligned_) {
    absl::StrAppend(&code, indent, "const kiln_index vec_begin = seg_begin;\n", indent,
                    "const kiln_index vec_end = seg_end;\n");
    return code;
  }
  // Vectors start on multiples of kV elements, on 16-byte boundaries however
  // long the rows are: the segment's whole vectors are [vec_begin, vec_end),
  // and lane t < 2 * (kV - 1) takes the t-th element outside them (edge_i).
  for (absl::string_view line :
       {"const kiln_index vec_first = (seg_begin + kV - 1) & ~static_cast<kiln_index>(kV - 1);",
        "const kiln_index vec_begin = vec_first < seg_end ? vec_first : seg_end;",
        "const kiln_index vec_last = seg_end & ~static_cast<kiln_index>(kV - 1);",
        "const kiln_index vec_end = vec_last > vec_begin ? vec_last : vec_begin;",
        "const kiln_index edge_head = vec_begin - seg_begin;",
        "const kiln_index edge_i = lane < edge_head ? seg_begin + lane : vec_end + (lane - edge_head);",
        "const bool edge_live = edge_i < seg_end;"}) {
    absl::StrAppend(&code, indent, line, "\n");
  }
  return code;
}

absl::StatusOr<GeneratedKernel> RowEmitter::Run() {
  for (NodeId n : kernel_.nodes) {
    if (IsReduction(n)) {
      full_shape_ = graph_.node(graph_.node(n).operands[0]).shape;
      break;
    }
  }
  program_ = std::make_unique<ElementProgram>(
      graph_, kernel_.nodes, [this](NodeId operand, NodeId consumer) { return ExternalLoad(operand, consumer); });
  const bool staged = row_.strategy == RowStrategy::kStagedPersistent;
  const bool grouped =
      row_.strategy == RowStrategy::kWarpPersistent || row_.strategy == RowStrategy::kPackedPersistent;
  // Either way a thread covers several rows in turn, each `row_live` or a repeat of the last row.
  const bool rows_in_turn = grouped || staged;
  unit_ = staged ? Unit::kThread : grouped ? Unit::kGroup : row_.cluster_blocks > 1 ? Unit::kCluster : Unit::kBlock;
  const int lanes = staged ? 1 : grouped ? row_.lanes_per_row : row_.threads;
  const int group_rows = rows_in_turn ? row_.rows_per_group : 1;
  if (grouped) row_slot_ = "[p]";
  std::vector<NodeId> full_outputs;
  std::vector<NodeId> row_outputs;
  for (NodeId out : kernel_.outputs) (IsFull(out) ? full_outputs : row_outputs).push_back(out);

  int64_t narrowest = 4;
  for (const auto& pass : row_.pass_inputs) {
    for (NodeId input : pass) narrowest = std::min(narrowest, DTypeSize(graph_.node(input).dtype));
  }
  for (NodeId out : full_outputs) narrowest = std::min(narrowest, DTypeSize(graph_.node(out).dtype));
  const int64_t cols = row_.row_length;
  // 16-byte vectors of the narrowest type, no wider than the row; packed
  // rows, side by side in a warp, take vectors that divide the row, so the
  // warp's loads are aligned vectors over one contiguous span.
  vec_ = static_cast<int>(std::min<int64_t>(16 / narrowest, 8));
  const bool packed = row_.strategy == RowStrategy::kPackedPersistent;
  while (vec_ > 1 && (vec_ > cols || (packed && cols % vec_ != 0) || staged)) vec_ /= 2;
  // An unaligned row that a lane group covers in a few elements a lane is
  // read as lane-strided scalars (each warp load 128 contiguous bytes for
  // f32): vectors would leave ends to compute a lane an element, a quarter
  // more work a lane on rows of 127, and shifted loads of column operands.
  // Layernorm [528416, 127] went from 158.4 to 135.8 us in f32 (132.2 for
  // rows of 128) and from 287.5 to 110.8 us in bf16.
  if (grouped && cols % vec_ != 0 && CeilDiv(cols, int64_t{lanes}) <= kScalarRowSlots) vec_ = 1;
  aligned_ = cols % vec_ == 0;
  // Cluster blocks split the row on vector boundaries.
  const int64_t chunk = AlignUp(CeilDiv(cols, row_.cluster_blocks), vec_);
  // Slots hold a segment's whole vectors; an unaligned segment's ends go a lane an element.
  slots_ = static_cast<int>(CeilDiv(chunk / vec_, int64_t{lanes}));
  // The shortest segment (a cluster's last block may have less) holds at
  // least this many whole vectors; an unaligned one loses up to kV - 1
  // elements at each end. Bounds tests of the slots that always lie inside
  // made a warp per row of 127 f32 bound by its instructions (logsumexp,
  // 1.26x the time of rows of 128, 84% of issue slots busy); without them
  // it took 78.7 us instead of 93.9 (74.5 for rows of 128).
  const int64_t shortest = std::min(chunk, cols - (row_.cluster_blocks - 1) * chunk);
  const int64_t whole_vectors = std::max<int64_t>(0, aligned_ ? shortest : shortest - 2 * (vec_ - 1)) / vec_;
  full_slots_ = static_cast<int>(std::min<int64_t>(slots_, whole_vectors / lanes));
  // Shared memory of the segments; the static scratch of the reductions
  // comes on top. The schedule's bound on them covers these exact bytes, and
  // a block's or cluster's vectors are 16 bytes of the narrowest type.
  int64_t row_shared_bytes = 0;
  rows_in_shared_ = row_.segment_in_shared_memory;
  if (rows_in_shared_) {
    for (NodeId input : row_.pass_inputs.front()) {
      const int64_t vector_bytes = vec_ * DTypeSize(graph_.node(input).dtype);
      KILN_CHECK(vector_bytes % 16 == 0);
      row_shared_bytes += int64_t{slots_} * lanes * vector_bytes;
    }
    const int64_t needed = row_shared_bytes + RowSchedule::kReductionSharedBytes;
    if (limits_.BlocksBySharedMemory(needed) < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          kernel_.name, ": the plan holds each block's row segment in shared memory, ", needed,
          " bytes with the reductions' scratch, more than the ", limits_.shared_bytes_per_block,
          " bytes a block of this device may have; plan for this device"));
    }
  }
  // A row in shared memory is read again for the output pass, so nothing
  // needs holding in registers across the reductions.
  if (Persistent() && !rows_in_shared_ && !full_outputs.empty() && !row_.stages.empty()) {
    held_values_ = ChooseHeldValues(full_outputs);
  }
  const int block = staged ? row_.threads : grouped ? 32 * RowSchedule::kWarpsPerBlock : lanes;

  // With the segment in shared memory, registers need not be what limits the
  // blocks an SM holds: ask for as many as its threads and shared memory
  // allow. Where the registers that leaves spill, the runtime tunes the ask.
  const int min_blocks = rows_in_shared_ ? MaxBlocksPerSm(block, row_shared_bytes, limits_) : 0;
  absl::StrAppend(&body_, "extern \"C\" __global__ void ");
  const size_t bound_at = body_.size();
  absl::StrAppend(&body_, rows_in_shared_ ? absl::StrCat("__launch_bounds__(", block, ", ", min_blocks, ")")
                                          : LaunchBounds(block, 1),
                  " ");
  if (unit_ == Unit::kCluster) absl::StrAppend(&body_, "__cluster_dims__(", row_.cluster_blocks, ", 1, 1) ");
  absl::StrAppend(&body_, kernel_.name, "(", signature_.ParameterList(), ") {\n",
                  "  using kiln_index = ", IndexType(), ";\n  constexpr kiln_index kRows = ", row_.rows,
                  ";\n  constexpr kiln_index kCols = ", cols, ";\n  constexpr int kV = ", vec_,
                  ";\n  constexpr int kThreads = ", lanes, ";\n");
  if (Persistent()) {
    absl::StrAppend(&body_, "  constexpr int kSlots = ", slots_, ";\n  constexpr int kFullSlots = ", full_slots_,
                    ";\n");
  }
  switch (unit_) {
    case Unit::kGroup:
      // Warp w covers rows [w, w + 1) * kGroupRows * (32 / kLanes): its
      // groups side by side on consecutive rows, then the next rows in turn.
      absl::StrAppend(&body_, "  constexpr int kLanes = kThreads;\n  constexpr int kGroupRows = ", group_rows, ";\n",
                      "  const int lane = threadIdx.x & (kLanes - 1);\n",
                      "  const kiln_index first_row = (static_cast<kiln_index>(blockIdx.x) * ",
                      RowSchedule::kWarpsPerBlock, " + (threadIdx.x >> 5)) * (kGroupRows * (32 / kLanes)) +\n",
                      "                              (threadIdx.x & 31) / kLanes;\n",
                      "  const kiln_index col_begin = 0;\n  const kiln_index col_end = kCols;\n");
      break;
    case Unit::kThread: {
      // Block b stages rows [b, b + 1) * kTileRows, contiguous in memory and
      // 16-byte aligned (kTileRows * kCols is a multiple of 16 elements), then
      // thread t covers rows t, t + kBlockThreads, ... of them in turn.
      absl::StrAppend(&body_, "  constexpr int kBlockThreads = ", row_.threads, ";\n  constexpr int kGroupRows = ", group_rows,
                      ";\n  constexpr kiln_index kTileRows = static_cast<kiln_index>(kBlockThreads) * kGroupRows;\n",
                      "  const int lane = 0;\n",
                      "  const kiln_index tile_row = static_cast<kiln_index>(blockIdx.x) * kTileRows;\n",
                      "  const kiln_index tile_base = tile_row * kCols;\n",
                      "  const kiln_index tile_count = (kRows - tile_row < kTileRows ? kRows - tile_row : kTileRows) * kCols;\n",
                      "  const kiln_index col_begin = 0;\n  const kiln_index col_end = kCols;\n");
      std::vector<std::pair<std::string, DType>> spans;
      for (NodeId input : row_.pass_inputs.front()) spans.push_back({signature_.InputName(input), graph_.node(input).dtype});
      for (NodeId out : full_outputs) spans.push_back({signature_.OutputName(out), graph_.node(out).dtype});
      for (const auto& [name, dtype] : spans) {
        absl::StrAppend(&body_, "  __shared__ __align__(16) ", StorageType(dtype), " kiln_stage_", name,
                        "[kTileRows * kCols];\n");
      }
      for (NodeId input : row_.pass_inputs.front()) {
        const std::string name = signature_.InputName(input);
        absl::StrAppend(&body_, "  kiln_stage_load(kiln_stage_", name, ", ", name, " + tile_base, tile_count);\n");
      }
      absl::StrAppend(&body_, "  kiln_stage_wait();\n");
      break;
    }
    case Unit::kBlock:
      absl::StrAppend(&body_, "  const kiln_index first_row = blockIdx.x;\n  const int lane = threadIdx.x;\n",
                      "  const kiln_index col_begin = 0;\n  const kiln_index col_end = kCols;\n",
                      "  __shared__ float kiln_scratch[2][", 32 * StatFloats(), "];\n  int kiln_turn = 0;\n");
      break;
    case Unit::kCluster:
      absl::StrAppend(&body_, "  __shared__ KilnClusterExchange<", row_.cluster_blocks, ", ", std::max(StatFloats(), 2),
                      "> kiln_partials;\n",
                      "  kiln_cluster_start(kiln_partials);\n  int kiln_turn = 0;\n",
                      "  constexpr kiln_index kChunk = ", chunk, ";\n",
                      "  const kiln_index first_row = blockIdx.x / ", row_.cluster_blocks, ";\n",
                      "  const int lane = threadIdx.x;\n",
                      "  const kiln_index col_begin = static_cast<kiln_index>(kiln_cluster_rank()) * kChunk;\n",
                      "  const kiln_index col_end = col_begin + kChunk < kCols ? col_begin + kChunk : kCols;\n");
      break;
  }
  absl::StrAppend(&body_, "  (void)kRows;\n");
  if (!rows_in_turn) absl::StrAppend(&body_, RowLines("  "));

  // A lane group loads all its rows before it computes any, so each thread
  // has every row's loads in flight at once.
  std::string loads;
  if (Persistent()) {
    if (rows_in_shared_) absl::StrAppend(&body_, "  extern __shared__ __align__(16) unsigned char kiln_rows[];\n");
    int64_t row_offset = 0;
    for (NodeId input : row_.pass_inputs.front()) {
      const std::string name = signature_.InputName(input);
      const std::string vector = absl::StrCat("KilnVec<", StorageType(graph_.node(input).dtype), ", kV>");
      std::string load;
      if (rows_in_shared_) {
        absl::StrAppend(&body_, "  ", vector, "* const r_", name, " = reinterpret_cast<", vector, "*>(kiln_rows + ",
                        row_offset, ");\n");
        row_offset += int64_t{slots_} * lanes * vec_ * DTypeSize(graph_.node(input).dtype);
        load = absl::StrCat("kiln_copy_vec_async(&r_", name, "[s * kThreads + lane], ", name, " + g)");
      } else {
        absl::StrAppend(staged ? &loads : &body_, "  ", vector, " h_", name, grouped ? "[kGroupRows]" : "",
                        "[kSlots];\n");
        load = absl::StrCat("h_", name, row_slot_, "[s] = ", LoadAt(input, "g"));
      }
      absl::StrAppend(&loads, "#pragma unroll\n", "  for (int s = 0; s < kSlots; ++s) {\n",
                      "    const kiln_index g = vec_begin + (static_cast<kiln_index>(s) * kThreads + lane) * kV;\n",
                      "    if (s < kFullSlots || g < vec_end) ", load, ";\n  }\n");
      if (!aligned_) {
        absl::StrAppend(&body_, "  ", StorageType(graph_.node(input).dtype), " e_", name,
                        grouped ? "[kGroupRows] = {}" : " = 0", ";\n");
        absl::StrAppend(&loads, "  if (edge_live) e_", name, row_slot_, " = ", name, "[edge_i];\n");
      }
    }
    // Each thread reads back only the vectors it copied, so no barrier.
    if (rows_in_shared_) absl::StrAppend(&loads, "  kiln_copy_wait();\n");
    if (grouped) {
      absl::StrAppend(&body_, "#pragma unroll\n  for (int p = 0; p < kGroupRows; ++p) {\n", RowLines("    "),
                      Indented(loads), "  }\n");
    } else if (!staged) {
      absl::StrAppend(&body_, loads);
    }
  }
  std::string unit_body;
  std::swap(body_, unit_body);  // what follows is emitted once per row of the unit
  // A staged row is read from shared memory as its thread comes to it, so
  // only one row's values take registers.
  if (staged) std::swap(body_, loads);
  for (size_t stage = 0; stage < row_.stages.size(); ++stage) {
    const std::vector<NodeId>& inputs = Persistent() ? row_.pass_inputs.front() : row_.pass_inputs[stage];
    if (absl::Status s = EmitStage(row_.stages[stage], inputs, stage + 1 == row_.stages.size()); !s.ok()) {
      return s;
    }
  }
  if (!full_outputs.empty()) {
    EmitRowReciprocals();
    const std::vector<NodeId>& inputs = Persistent() ? row_.pass_inputs.front() : row_.pass_inputs.back();
    auto per_element = [&](absl::flat_hash_map<NodeId, std::string>& known, std::string& code,
                           absl::string_view indent, bool) -> absl::Status {
      std::vector<NodeId> stored;
      for (NodeId out : full_outputs) stored.push_back(StoredValue(out));
      if (absl::Status s = program_->Emit(stored, known, code, indent); !s.ok()) return s;
      for (NodeId out : full_outputs) {
        absl::StrAppend(&code, indent, "y_", signature_.OutputName(out), ".v[j] = ",
                        StoreConversion(graph_.node(out).dtype, known[StoredValue(out)]), ";\n");
      }
      return absl::OkStatus();
    };
    // The output pass has no shuffles: a repeated row skips it whole.
    if (rows_in_turn) absl::StrAppend(&body_, "  if (row_live) {\n");
    std::string pass;
    std::swap(body_, pass);
    if (absl::Status s = EmitElementLoop(inputs, per_element, "", full_outputs, Persistent()); !s.ok()) return s;
    std::swap(body_, pass);
    absl::StrAppend(&body_, rows_in_turn ? Indented(pass) : pass);
    if (rows_in_turn) absl::StrAppend(&body_, "  }\n");
  }
  if (!row_outputs.empty()) {
    if (absl::Status s = program_->Emit(row_outputs, row_known_, body_, "  "); !s.ok()) return s;
    absl::StrAppend(&body_, unit_ == Unit::kCluster ? "  if (lane == 0 && kiln_cluster_rank() == 0) {\n"
                            : rows_in_turn         ? "  if (lane == 0 && row_live) {\n"
                                                   : "  if (lane == 0) {\n");
    for (NodeId out : row_outputs) {
      absl::StrAppend(&body_, "    ", signature_.OutputName(out), "[row] = ",
                      StoreConversion(graph_.node(out).dtype, row_known_[out]), ";\n");
    }
    absl::StrAppend(&body_, "  }\n");
  }
  std::swap(body_, unit_body);
  if (grouped) {
    absl::StrAppend(&body_, "#pragma unroll\n  for (int p = 0; p < kGroupRows; ++p) {\n", RowLines("    "),
                    Indented(unit_body), "  }\n");
  } else if (staged) {
    absl::StrAppend(&body_, "#pragma unroll 1\n  for (int p = 0; p < kGroupRows; ++p) {\n", RowLines("    "),
                    Indented(unit_body), "  }\n");
    for (NodeId out : full_outputs) {
      const std::string name = signature_.OutputName(out);
      absl::StrAppend(&body_, "  kiln_stage_store(", name, " + tile_base, kiln_stage_", name, ", tile_count);\n");
    }
  } else {
    absl::StrAppend(&body_, unit_body);
  }
  absl::StrAppend(&body_, "}\n");

  GeneratedKernel generated;
  signature_.Fill(generated);
  if (min_blocks > 1) {
    generated.min_blocks_per_sm = min_blocks;
    generated.bound_at = bound_at;
  }
  generated.body = std::move(body_);
  generated.launch.block = block;
  generated.launch.cluster = row_.cluster_blocks;
  if (rows_in_shared_) generated.launch.shared_bytes = static_cast<unsigned>(row_shared_bytes);
  const int64_t rows_per_block = staged ? int64_t{row_.threads} * group_rows
                                        : int64_t{RowSchedule::kWarpsPerBlock} * (32 / lanes) * group_rows;
  absl::StatusOr<unsigned> grid = LaunchGrid(
      kernel_.name, rows_in_turn ? CeilDiv(row_.rows, rows_per_block) : row_.rows * row_.cluster_blocks);
  if (!grid.ok()) return grid.status();
  generated.launch.grid = *grid;
  return generated;
}

}  // namespace

absl::StatusOr<GeneratedKernel> EmitRowKernel(const Graph& graph, const Kernel& kernel, const DeviceLimits& limits) {
  return RowEmitter(graph, kernel, limits).Run();
}

}  // namespace kiln
