#include "codegen/axis_reduction_emitter.h"

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "codegen/reduce_ops.h"

namespace kiln {
namespace {

// A device function from an index over `axes` (slowest first) to its element
// offset: one multiply for a single axis, mixed-radix digits otherwise.
std::string OffsetFunction(absl::string_view name, const std::vector<AxisReductionSchedule::Axis>& axes) {
  std::string terms;
  int64_t below = 1;  // extent of the axes after the current one
  for (auto axis = axes.rbegin(); axis != axes.rend(); ++axis) {
    std::string digit = below == 1 ? "i" : absl::StrCat("(i / ", below, "LL)");
    if (axis != axes.rend() - 1) digit = absl::StrCat("(", digit, " % ", axis->extent, "LL)");
    absl::StrAppend(&terms, terms.empty() ? "" : " + ", digit, " * ", axis->stride, "LL");
    below *= axis->extent;
  }
  return absl::StrCat("__device__ __forceinline__ long long ", name, "(long long i) {\n  ",
                      terms.empty() ? "(void)i;\n  return 0;" : absl::StrCat("return ", terms, ";"), "\n}\n");
}

class AxisReductionEmitter {
 public:
  AxisReductionEmitter(const Graph& graph, const Kernel& kernel)
      : kernel_(kernel),
        s_(kernel.axis_reduction()),
        node_(graph.node(kernel.nodes.front())),
        operand_(graph.node(node_.operands[0])),
        signature_(graph, kernel),
        op_(ReduceCodeOf(node_.op).combiner),
        in_(signature_.InputName(node_.operands[0])),
        out_(signature_.OutputName(kernel.nodes.front())),
        prefix_(absl::StrCat("kiln_", kernel.name)) {}

  GeneratedKernel Run();

 private:
  bool Split() const { return s_.split > 1; }
  void EmitHeader();
  void EmitRowLoop();
  void EmitSplitCombine();
  void EmitStore();
  // `acc` combined with the kV stored elements of `vec`.
  std::string CombineLoaded(absl::string_view vec, absl::string_view indent) const;
  std::string Identity(absl::string_view indent) const;

  const Kernel& kernel_;
  const AxisReductionSchedule& s_;
  const Node& node_;
  const Node& operand_;
  KernelSignature signature_;
  const absl::string_view op_;
  const std::string in_, out_, prefix_;
  std::string body_;
};

std::string AxisReductionEmitter::Identity(absl::string_view indent) const {
  return absl::StrCat("#pragma unroll\n", indent, "for (int j = 0; j < kV; ++j) acc.v[j] = ", op_,
                      "::identity();\n");
}

std::string AxisReductionEmitter::CombineLoaded(absl::string_view vec, absl::string_view indent) const {
  return absl::StrCat("#pragma unroll\n", indent, "for (int j = 0; j < kV; ++j) acc.v[j] = ", op_,
                      "::combine(acc.v[j], ", LoadConversion(operand_.dtype, absl::StrCat(vec, ".v[j]")), ");\n");
}

void AxisReductionEmitter::EmitHeader() {
  absl::StrAppend(&body_, OffsetFunction(prefix_ + "_outer_offset", s_.outer_axes),
                  OffsetFunction(prefix_ + "_row_offset", s_.reduced_axes));
  if (Split()) {
    absl::StrAppend(&body_, "__device__ KilnVec<float, ", s_.vector, "> ", prefix_, "_partials[",
                    s_.blocks * s_.outer_lanes * s_.column_lanes, "];\n", "__device__ unsigned ", prefix_,
                    "_arrivals[", s_.tiles, "] = {};\n");
  }
  absl::StrAppend(&body_, "extern \"C\" __global__ void __launch_bounds__(", s_.threads, ", ", s_.blocks_per_sm,
                  ") ", kernel_.name, "(", signature_.ParameterList(), ") {\n",
                  "  constexpr long long kOuter = ", s_.outer, "LL, kRows = ", s_.reduced, "LL, kInner = ", s_.inner,
                  "LL;\n  constexpr long long kTilesPerOuter = ", s_.tiles_per_outer, "LL, kBlocks = ", s_.blocks,
                  "LL, kRowsPerSplit = ", s_.rows_per_split, "LL;\n  constexpr int kV = ", s_.vector,
                  ", kColumnLanes = ", s_.column_lanes, ", kRowLanes = ", s_.row_lanes, ", kOuterLanes = ",
                  s_.outer_lanes, ", kUnroll = ", s_.unroll, ", kSplit = ", s_.split, ";\n",
                  "  const int column_lane = threadIdx.x % kColumnLanes;\n",
                  "  const int row_lane = (threadIdx.x / kColumnLanes) % kRowLanes;\n",
                  "  const int outer_lane = threadIdx.x / (kColumnLanes * kRowLanes);\n");
  if (s_.row_lanes > 1) absl::StrAppend(&body_, "  __shared__ KilnVec<float, kV> kiln_slots[", s_.threads, "];\n");
  if (Split()) absl::StrAppend(&body_, "  __shared__ int kiln_last;\n");
  absl::StrAppend(&body_, "  for (long long block = blockIdx.x; block < kBlocks; block += gridDim.x) {\n",
                  "    const long long tile = block / kSplit;\n",
                  "    const long long rank = block % kSplit;\n",
                  "    const long long o = tile / kTilesPerOuter * kOuterLanes + outer_lane;\n",
                  "    const long long col = (tile % kTilesPerOuter * kColumnLanes + column_lane) * kV;\n",
                  "    const bool live = o < kOuter && col < kInner;\n", "    KilnVec<float, kV> acc;\n",
                  Identity("    "));
}

// Each lane walks its rows kRowLanes apart, kUnroll loads in flight (the
// batch loop itself is not unrolled further, so registers stay within the
// launch bound); the remainder (under kUnroll rows a lane) is one guarded
// batch, its loads still issued together.
void AxisReductionEmitter::EmitRowLoop() {
  const std::string type = StorageType(operand_.dtype);
  const std::string load =
      absl::StrCat("kiln_load_vec<", type, ", kV>(p + ", prefix_, "_row_offset(r + u * kRowLanes))");
  absl::StrAppend(
      &body_, "    if (live) {\n", "      const ", type, "* __restrict__ p = ", in_, " + ", prefix_,
      "_outer_offset(o) + col;\n",
      "      const long long end = (rank + 1) * kRowsPerSplit < kRows ? (rank + 1) * kRowsPerSplit : kRows;\n",
      "      long long r = rank * kRowsPerSplit + row_lane;\n", "#pragma unroll 1\n",
      "      for (; r + (kUnroll - 1) * kRowLanes < end; r += kUnroll * kRowLanes) {\n", "        KilnVec<", type,
      ", kV> x[kUnroll];\n", "#pragma unroll\n",
      "        for (int u = 0; u < kUnroll; ++u) x[u] = ", load, ";\n", "#pragma unroll\n",
      "        for (int u = 0; u < kUnroll; ++u) {\n", CombineLoaded("x[u]", "          "), "        }\n",
      "      }\n", "      KilnVec<", type, ", kV> x[kUnroll];\n",
      "      const int left = static_cast<int>((end - r + kRowLanes - 1) / kRowLanes);\n",
      "#pragma unroll\n", "      for (int u = 0; u < kUnroll; ++u) {\n",
      "        if (u < left) x[u] = ", load, ";\n", "      }\n", "#pragma unroll\n",
      "      for (int u = 0; u < kUnroll; ++u) {\n", "        if (u < left) {\n",
      CombineLoaded("x[u]", "          "), "        }\n", "      }\n", "    }\n",
      "    acc = kiln_lanes_reduce<", op_, ", kV, kRowLanes, kColumnLanes>(acc, ",
      s_.row_lanes > 1 ? "kiln_slots" : "nullptr", ", row_lane);\n");
}

// The tile's blocks publish their partials; the last to arrive spreads them
// over its row lanes (rank s to lane s % kRowLanes, in rank order) and
// combines the lanes with the same tree.
void AxisReductionEmitter::EmitSplitCombine() {
  const std::string slot = absl::StrCat(prefix_, "_partials[((tile * kSplit + s) * kOuterLanes + outer_lane) * ",
                                        "kColumnLanes + column_lane]");
  absl::StrAppend(
      &body_, "    if (row_lane == 0) ", prefix_,
      "_partials[(block * kOuterLanes + outer_lane) * kColumnLanes + column_lane] = acc;\n",
      "    if (!kiln_split_arrive(&", prefix_, "_arrivals[tile], kSplit, &kiln_last)) continue;\n",
      Identity("    "), "    for (int s = row_lane; s < kSplit; s += kRowLanes) {\n",
      "      const float* partial = ", slot, ".v;\n", "#pragma unroll\n",
      "      for (int j = 0; j < kV; ++j) acc.v[j] = ", op_, "::combine(acc.v[j], kiln_load_cg(partial + j));\n", "    }\n", "    acc = kiln_lanes_reduce<", op_,
      ", kV, kRowLanes, kColumnLanes>(acc, ", s_.row_lanes > 1 ? "kiln_slots" : "nullptr", ", row_lane);\n");
}

void AxisReductionEmitter::EmitStore() {
  const std::string type = StorageType(node_.dtype);
  const std::string value = ReduceCodeOf(node_.op).divides_by_count ? "acc.v[j] / static_cast<float>(kRows)"
                                                                     : "acc.v[j]";
  absl::StrAppend(&body_, "    if (live && row_lane == 0) {\n", "      KilnVec<", type, ", kV> y;\n",
                  "#pragma unroll\n", "      for (int j = 0; j < kV; ++j) y.v[j] = ",
                  StoreConversion(node_.dtype, value), ";\n", "      kiln_store_vec<", type, ", kV>(", out_,
                  " + o * kInner + col, y);\n", "    }\n", "  }\n}\n");
}

GeneratedKernel AxisReductionEmitter::Run() {
  EmitHeader();
  EmitRowLoop();
  if (Split()) EmitSplitCombine();
  EmitStore();
  GeneratedKernel generated;
  signature_.Fill(generated);
  generated.body = std::move(body_);
  generated.launch.block = s_.threads;
  generated.launch.grid = CappedGrid(s_.blocks);
  return generated;
}

}  // namespace

absl::StatusOr<GeneratedKernel> EmitAxisReduction(const Graph& graph, const Kernel& kernel, const DeviceLimits&) {
  return AxisReductionEmitter(graph, kernel).Run();
}

}  // namespace kiln
