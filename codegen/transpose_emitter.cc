#include "codegen/transpose_emitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

// The index arithmetic a run of tiles or vectors needs fits in 32 bits below this.
constexpr int64_t kUnsigned32 = int64_t{1} << 32;

std::string Constant(absl::string_view name, int64_t value) {
  return absl::StrCat("  constexpr long long ", name, " = ", value, "LL;\n");
}

// Row-major strides of the output, indexed by the input dim each output dim reads.
std::vector<int64_t> OutputStridesByInputDim(const TransposeSchedule& s) {
  Dims out_dims;
  for (int64_t p : s.perm) out_dims.push_back(s.dims[p]);
  const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  std::vector<int64_t> by_input(s.dims.size());
  for (size_t i = 0; i < s.perm.size(); ++i) by_input[s.perm[i]] = out_strides[i];
  return by_input;
}

// A term added to one offset for each coordinate of a decomposed index.
struct OffsetTerm {
  std::string offset;            // the variable accumulating it
  std::vector<int64_t> strides;  // one per decomposed dim
};

// Decomposes the long long variable `index` (consumed) over `dims`, the last
// fastest, adding coordinate * stride to each term's offset: one division by
// a constant per dim, done once per run or tile rather than per element.
std::string DecomposeIndex(absl::string_view index, const Dims& dims, const std::vector<OffsetTerm>& terms,
                           absl::string_view indent) {
  std::string out;
  for (size_t d = dims.size(); d-- > 0;) {
    std::string coordinate(index);
    if (d > 0) {
      absl::StrAppend(&out, indent, "{\n", indent, "  const long long next = ", index, " / ", dims[d], "LL;\n");
      coordinate = absl::StrCat("(", index, " - next * ", dims[d], "LL)");
    }
    for (const OffsetTerm& term : terms) {
      absl::StrAppend(&out, indent, d > 0 ? "  " : "", term.offset, " += ", coordinate, " * ", term.strides[d], "LL;\n");
    }
    if (d > 0) absl::StrAppend(&out, indent, "  ", index, " = next;\n", indent, "}\n");
  }
  return out;
}

// The work items, a block each. Past kMaxGridBlocks the grid is capped and
// each block loops over items with the grid's stride (a barrier between
// items when they share memory); otherwise a block takes its one item, since
// the loop would keep per-thread indices in registers across iterations (58
// registers instead of 32 for a 64x64 f32 tile: half the blocks per SM).
struct ItemScope {
  std::string open, close;
};

ItemScope Items(int64_t items, bool shares_memory) {
  if (items <= kMaxGridBlocks) return {"  {\n    const long long item = blockIdx.x;\n", "  }\n"};
  return {absl::StrCat(Constant("kItems", items),
                       "  for (long long item = blockIdx.x; item < kItems; item += gridDim.x) {\n"),
          shares_memory ? "    __syncthreads();\n  }\n" : "  }\n"};
}

// Streams kPerThread vectors per thread: every load first, so all are in
// flight together, then every store to consecutive output vectors.
// `source` computes `const T* src` for vector index `v` (and may use the
// chunk's first vector v0).
std::string StreamVectors(absl::string_view out, absl::string_view source) {
  return absl::StrCat(
      "    const long long v0 = item * kChunk;\n"
      "    KilnVec<T, kV> x[kPerThread];\n"
      "#pragma unroll\n"
      "    for (int u = 0; u < kPerThread; ++u) {\n"
      "      const long long v = v0 + threadIdx.x + u * kThreads;\n"
      "      if (v < kVectors) {\n",
      source,
      "        x[u] = kiln_load_vec<T, kV>(src);\n"
      "      }\n"
      "    }\n"
      "#pragma unroll\n"
      "    for (int u = 0; u < kPerThread; ++u) {\n"
      "      const long long v = v0 + threadIdx.x + u * kThreads;\n"
      "      if (v < kVectors) kiln_store_vec<T, kV>(", out, " + v * kV, x[u]);\n"
      "    }\n");
}

std::string StreamConstants(const TransposeSchedule& s, int64_t n) {
  return absl::StrCat("  constexpr int kThreads = ", s.threads, ";\n  constexpr int kPerThread = ", s.vectors_per_thread,
                      ";\n  constexpr int kV = ", s.vector_elements, ";\n",
                      "  constexpr long long kChunk = static_cast<long long>(kThreads) * kPerThread;\n",
                      Constant("kVectors", n / s.vector_elements));
}

std::string CopyBody(const TransposeSchedule& s, absl::string_view in, absl::string_view out) {
  const int64_t n = NumElements(s.dims);
  const ItemScope items = Items(s.blocks, /*shares_memory=*/false);
  std::string body = absl::StrCat(StreamConstants(s, n), items.open,
                                  StreamVectors(out, absl::StrCat("        const T* src = ", in, " + v * kV;\n")),
                                  items.close);
  if (const int64_t tail = n % s.vector_elements; tail > 0) {
    absl::StrAppend(&body, "  if (blockIdx.x == 0 && threadIdx.x < ", tail, ") ", out, "[kVectors * kV + threadIdx.x] = ",
                    in, "[kVectors * kV + threadIdx.x];\n");
  }
  return body;
}

// Each block moves a chunk of consecutive output vectors. It first computes
// the input offset of every run the chunk touches into shared memory (the
// index decomposition, once per run), then streams the vectors.
std::string RowRunBody(const TransposeSchedule& s, absl::string_view in, absl::string_view out) {
  const int64_t n = NumElements(s.dims);
  const int64_t run_vectors = s.dims.back() / s.vector_elements;
  const int64_t chunk = int64_t{s.threads} * s.vectors_per_thread;
  const int64_t slots = std::min(chunk / run_vectors + 2, chunk + 1);
  const std::string local_type = run_vectors + chunk < kUnsigned32 ? "unsigned" : "unsigned long long";
  // The outer dims in output order, each read at its input stride.
  const std::vector<int64_t> in_strides = RowMajorStrides(s.dims);
  Dims outer;
  OffsetTerm term{.offset = "offset"};
  for (size_t i = 0; i + 1 < s.perm.size(); ++i) {
    outer.push_back(s.dims[s.perm[i]]);
    term.strides.push_back(in_strides[s.perm[i]]);
  }
  const ItemScope items = Items(s.blocks, /*shares_memory=*/true);
  return absl::StrCat(
      StreamConstants(s, n), Constant("kRunVectors", run_vectors),
      "  __shared__ long long run_offset[", slots, "];  // input offset of each run the chunk touches\n",
      items.open,
      "    const long long first_run = item * kChunk / kRunVectors;\n"
      "    const long long last_vector = (item + 1) * kChunk < kVectors ? (item + 1) * kChunk - 1 : kVectors - 1;\n"
      "    const int runs = static_cast<int>(last_vector / kRunVectors - first_run) + 1;\n"
      "    for (int k = threadIdx.x; k < runs; k += kThreads) {\n"
      "      long long run = first_run + k;\n"
      "      long long offset = 0;\n",
      DecomposeIndex("run", outer, {term}, "      "),
      "      run_offset[k] = offset;\n"
      "    }\n"
      "    __syncthreads();\n",
      "    const ", local_type, " skew = static_cast<", local_type, ">(item * kChunk - first_run * kRunVectors);\n",
      StreamVectors(out, absl::StrCat("        const ", local_type, " local = skew + static_cast<", local_type,
                                      ">(v - v0);\n        const ", local_type,
                                      " run = local / kRunVectors;\n        const T* src = ", in,
                                      " + run_offset[run] + static_cast<long long>(local - run * kRunVectors) * kV;\n")),
      items.close);
}

// A tile is kTileR rows (along the dim that becomes the output's last) by
// kTileC columns (along the input's last dim), moved by kiln_transpose_tile
// (codegen/device/kiln_transpose.cuh); the kernel finds the tile's origin and
// its batch's offsets in both tensors. `tile_shape` names the struct of
// constants the device function takes.
std::string TiledBody(const TransposeSchedule& s, absl::string_view tile_shape, absl::string_view in,
                      absl::string_view out) {
  const int64_t rank = static_cast<int64_t>(s.dims.size());
  const int64_t row_dim = s.perm.back();
  const int64_t rows = s.dims[row_dim], cols = s.dims.back();
  const std::vector<int64_t> in_strides = RowMajorStrides(s.dims);
  const std::vector<int64_t> out_strides = OutputStridesByInputDim(s);
  Dims batch_dims;
  OffsetTerm in_term{.offset = "in_base"}, out_term{.offset = "out_base"};
  for (int64_t d = 0; d + 1 < rank; ++d) {
    if (d == row_dim) continue;
    batch_dims.push_back(s.dims[d]);
    in_term.strides.push_back(in_strides[d]);
    out_term.strides.push_back(out_strides[d]);
  }
  const ItemScope items = Items(s.blocks, /*shares_memory=*/true);
  return absl::StrCat(
      "  using Tile = ", tile_shape, ";\n", Constant("kRowTiles", CeilDiv(rows, s.tile_rows)),
      Constant("kColTiles", CeilDiv(cols, s.tile_cols)), items.open,
      "    long long batch = item / (kRowTiles * kColTiles);\n"
      "    const long long row_tile = item / kColTiles - batch * kRowTiles;\n"
      "    const long long col_tile = item % kColTiles;\n"
      "    long long in_base = 0, out_base = 0;\n",
      DecomposeIndex("batch", batch_dims, {in_term, out_term}, "    "),
      "    const long long r0 = row_tile * Tile::kTileR, c0 = col_tile * Tile::kTileC;\n"
      "    kiln_transpose_tile<T, Tile>(", in, ", ", out, ", in_base + r0 * Tile::kInRowStride + c0, out_base + c0 * "
      "Tile::kOutColStride + r0, r0, c0);\n",
      items.close);
}

absl::string_view TileRowsName(TileRows rows) {
  switch (rows) {
    case TileRows::kAligned: return "KILN_ROWS_ALIGNED";
    case TileRows::kStraddling: return "KILN_ROWS_STRADDLING";
    case TileRows::kContiguous: return "KILN_ROWS_CONTIGUOUS";
  }
  return "?";
}

// Whether every batch of a tiled transpose starts on a vector boundary in
// both tensors: each batch dim's stride is a multiple of kV in each.
bool AlignedBatches(const TransposeSchedule& s) {
  const int64_t rank = static_cast<int64_t>(s.dims.size());
  const std::vector<int64_t> in_strides = RowMajorStrides(s.dims);
  const std::vector<int64_t> out_strides = OutputStridesByInputDim(s);
  for (int64_t d = 0; d + 1 < rank; ++d) {
    if (d == s.perm.back()) continue;
    if (in_strides[d] % s.vector_elements != 0 || out_strides[d] % s.vector_elements != 0) return false;
  }
  return true;
}

// The constants kiln_transpose_tile takes, as a struct at namespace scope
// (a local class cannot hold static members).
std::string TileShape(const TransposeSchedule& s, absl::string_view name) {
  const int64_t rank = static_cast<int64_t>(s.dims.size());
  return absl::StrCat(
      "struct ", name, " {\n  static constexpr int kThreads = ", s.threads, ";\n  static constexpr int kTileR = ",
      s.tile_rows, ";\n  static constexpr int kTileC = ", s.tile_cols, ";\n  static constexpr int kV = ",
      s.vector_elements, ";\n  static constexpr int kReads = ", TileRowsName(s.reads),
      ";\n  static constexpr int kWrites = ", TileRowsName(s.writes), ";\n  static constexpr long long kRows = ",
      s.dims[s.perm.back()], "LL;\n  static constexpr long long kCols = ", s.dims.back(),
      "LL;\n  static constexpr long long kInRowStride = ", RowMajorStrides(s.dims)[s.perm.back()],
      "LL;\n  static constexpr long long kOutColStride = ", OutputStridesByInputDim(s)[rank - 1],
      "LL;\n  static constexpr long long kN = ", NumElements(s.dims),
      "LL;\n  static constexpr bool kAlignedBatches = ", AlignedBatches(s) ? "true" : "false", ";\n};\n");
}

// A thread per output element: its flat index in the operand, then the
// operand's value there, computed (an iota's position, a constant's literal).
std::string ComputedBody(const TransposeSchedule& s, const Node& operand, DType dtype, absl::string_view out) {
  const std::vector<int64_t> in_strides = RowMajorStrides(s.dims);
  Dims out_dims;
  OffsetTerm term{.offset = "index"};
  for (int64_t p : s.perm) {
    out_dims.push_back(s.dims[p]);
    term.strides.push_back(in_strides[p]);
  }
  const std::string value = IsScalarConstant(operand) ? Literal(operand.dtype, operand.value)
                                                      : OperandAt(operand, "", "index");
  const ItemScope items = Items(s.blocks, /*shares_memory=*/false);
  return absl::StrCat("  constexpr int kThreads = ", s.threads, ";\n", Constant("kN", NumElements(s.dims)), items.open,
                      "    const long long o = item * kThreads + threadIdx.x;\n"
                      "    if (o < kN) {\n"
                      "      long long rest = o;\n"
                      "      long long index = 0;\n",
                      DecomposeIndex("rest", out_dims, {term}, "      "), "      ", out, "[o] = ",
                      StoreConversion(dtype, value), ";\n    }\n", items.close);
}

}  // namespace

absl::StatusOr<GeneratedKernel> EmitTranspose(const Graph& graph, const Kernel& kernel) {
  const TransposeSchedule& s = kernel.transpose();
  const NodeId id = kernel.nodes.front();
  const Node& node = graph.node(id);
  KernelSignature signature(graph, kernel);
  const std::string in = signature.InputName(node.operands[0]);  // empty for kComputed
  const std::string out = signature.OutputName(id);
  const std::string tile_shape = absl::StrCat(kernel.name, "_tile");
  std::string body = absl::StrCat(s.strategy == TransposeStrategy::kTiled ? TileShape(s, tile_shape) : "",
                                  "extern \"C\" __global__ void __launch_bounds__(", s.threads, ") ", kernel.name,
                                  "(", signature.ParameterList(), ") {\n  using T = ", StorageType(node.dtype), ";\n");
  switch (s.strategy) {
    case TransposeStrategy::kCopy: absl::StrAppend(&body, CopyBody(s, in, out)); break;
    case TransposeStrategy::kRowRun: absl::StrAppend(&body, RowRunBody(s, in, out)); break;
    case TransposeStrategy::kTiled: absl::StrAppend(&body, TiledBody(s, tile_shape, in, out)); break;
    case TransposeStrategy::kComputed:
      absl::StrAppend(&body, ComputedBody(s, graph.node(node.operands[0]), node.dtype, out));
      break;
  }
  absl::StrAppend(&body, "}\n");
  GeneratedKernel generated;
  signature.Fill(generated);
  generated.body = std::move(body);
  generated.launch.block = s.threads;
  generated.launch.grid = CappedGrid(s.blocks);
  return generated;
}

}  // namespace kiln
