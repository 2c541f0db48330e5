#include "codegen/matmul_sm90_emitter.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "codegen/matmul_epilogue.h"
#include "codegen/wgmma_instruction.h"
#include "fusion/matmul_schedule.h"

namespace kiln {
namespace {

constexpr int kSwizzleBytes = 128;  // one row of a 128-byte-swizzled box

// The TMA view of one operand's memory. K-major operands (A as stored
// [M,K], B as [N,K]) are read a whole K slice of `tile_rows` rows at a time;
// MN-major ones in boxes of 128 bytes of columns (see kiln_sm90_gemm.cuh).
// A K-major tile that a cluster's `sharers` blocks share is read in as many
// bands of rows, one by each block.
TensorMapSpec OperandMap(const Graph& graph, const MatmulOperand& operand, int64_t rows, int64_t cols,
                         bool k_major, int tile_rows, int sharers) {
  const Node& node = graph.node(operand.node);
  const int64_t size = DTypeSize(node.dtype);
  const int side = static_cast<int>(kSwizzleBytes / size);  // elements in one swizzle row
  TensorMapSpec spec;
  spec.dtype = node.dtype;
  spec.dims = {cols, rows, NumElements(operand.batch_dims)};
  spec.strides = {cols * size, rows * cols * size};
  spec.box = {side, k_major ? tile_rows / sharers : side, 1};
  return spec;
}

std::string Bool(bool b) { return b ? "true" : "false"; }

// The declaration of the pair's flat index, where the element code reads it.
std::string FlatIndexIfUsed(const std::string& declaration, const std::string& code) {
  return code.find("(i0 + ") == std::string::npos ? "" : declaration;
}

// The product as the kernel iterates it: C = A·B, or Cᵀ = Bᵀ·Aᵀ where the
// operands swap (MatmulSchedule::swap_operands). Rows, columns and tiles
// are the kernel's; `a` is the operand it reads as A.
struct KernelProduct {
  int64_t m, n;
  int block_m, block_n;
  int cluster_m, cluster_n;
  const MatmulOperand* a;
  const MatmulOperand* b;
  bool a_mn_major, b_mn_major;
};

KernelProduct ProductOf(const MatmulSchedule& s) {
  // A: [M,K] row-major is K-major; stored transposed ([K,M]) it is M-major.
  // B: [K,N] row-major is N-major; stored transposed ([N,K]) it is K-major.
  // Swapped, Bᵀ is the kernel's A: row-major B is its M-major storage; and
  // Aᵀ the kernel's B: row-major A is its K-major storage.
  if (s.swap_operands) {
    return {.m = s.n, .n = s.m, .block_m = s.config.block_n, .block_n = s.config.block_m,
            .cluster_m = s.config.cluster_n, .cluster_n = s.config.cluster_m, .a = &s.b, .b = &s.a,
            .a_mn_major = !s.b.transposed, .b_mn_major = s.a.transposed};
  }
  return {.m = s.m, .n = s.n, .block_m = s.config.block_m, .block_n = s.config.block_n,
          .cluster_m = s.config.cluster_m, .cluster_n = s.config.cluster_n, .a = &s.a, .b = &s.b,
          .a_mn_major = s.a.transposed, .b_mn_major = !s.b.transposed};
}

// The consumers' epilogue of each tile (no epilogue warps): every output
// computed from the accumulator pairs, the staged ones one at a time through
// the consumer's staging tile and a TMA store, the others stored from the
// registers. A pair is two adjacent accumulators: C's (row, col) and
// (row, col + 1), or, transposed, C's (row, col) and (row + 1, col); the
// pair's callback names its kernel coordinates so that `row` and `col` are
// always C's. `flat_index` declares i0, as for EpilogueWarpsLoop.
absl::StatusOr<std::string> ConsumerEpilogue(const Graph& graph, const MatmulSchedule& s,
                                             const MatmulEpilogue& epilogue, const KernelSignature& signature,
                                             const std::vector<std::pair<NodeId, std::string>>& staged,
                                             const std::vector<NodeId>& direct, const std::string& flat_index) {
  const bool transposed_output = s.swap_operands;
  const std::string coordinates = transposed_output ? "int col, int row" : "int row, int col";
  const std::string pair_parameters = absl::StrCat("int r, int c, ", coordinates, ", float acc0, float acc1");
  auto at = [&](int e) {
    if (transposed_output) {
      return ElementCoordinates{.flat = absl::StrCat("(i0 + ", e * s.n, "LL)"), .batch = "tile.batch",
                                .row = absl::StrCat("(row + ", e, ")"), .col = "col"};
    }
    return ElementCoordinates{.flat = absl::StrCat("(i0 + ", e, ")"), .batch = "tile.batch", .row = "row",
                              .col = absl::StrCat("(col + ", e, ")")};
  };
  // Whether element e of a pair lies inside C: the second of a transposed
  // pair may lie past the last row, where M is odd.
  auto inside = [&](int e) {
    return transposed_output ? absl::StrCat("row + ", e, " < ", s.m) : absl::StrCat("col + ", e, " < ", s.n, "LL");
  };
  const std::string pair_outside = absl::StrCat("row >= ", s.m, " || col >= ", s.n);
  std::string code;
  for (const auto& [output, map] : staged) {
    const std::string type = StorageType(graph.node(output).dtype);
    std::string pair_code;
    for (int e = 0; e < 2; ++e) {
      std::string element;
      absl::StatusOr<StoredValues> values =
          epilogue.Emit({output}, absl::StrCat("acc", e), at(e), "          ", element);
      if (!values.ok()) return values.status();
      const std::string stored = absl::StrCat("s", e);
      const std::string compute = absl::StrCat("        {\n", element, "          ", stored, " = ", (*values)[output],
                                               ";\n        }\n");
      // Staged elements past C's edge are clipped by the TMA store; they
      // are zero rather than computed from operands read out of bounds.
      absl::StrAppend(&pair_code, "        ", type, " ", stored, " = 0;\n",
                      e == 1 && transposed_output ? absl::StrCat("        if (", inside(e), ")\n", compute) : compute);
    }
    absl::StrAppend(&code, "      consumer.staging_acquire();\n", "      consumer.for_each_pair(tile, [&](",
                    pair_parameters, ") {\n", "        if (", pair_outside, ") return;\n",
                    FlatIndexIfUsed(flat_index, pair_code), pair_code, "        consumer.stage_pair",
                    transposed_output ? "_transposed" : "", "<", type, ">(r, c, s0, s1);\n", "      });\n",
                    "      consumer.store_staged", transposed_output ? "_transposed" : "", "<", type, ">(&", map,
                    ", tile);\n");
  }
  if (!direct.empty()) {
    std::string element_code[2];
    for (int e = 0; e < 2; ++e) {
      std::string element;
      absl::StatusOr<StoredValues> values = epilogue.Emit(direct, absl::StrCat("acc", e), at(e), "          ", element);
      if (!values.ok()) return values.status();
      for (NodeId output : direct) {
        absl::StrAppend(&element, "          ", signature.OutputName(output), "[", at(e).flat, "] = ",
                        (*values)[output], ";\n");
      }
      element_code[e] = absl::StrCat("        if (", inside(e), ") {\n", element, "        }\n");
    }
    absl::StrAppend(&code, "      consumer.for_each_pair(tile, [&](int, int, ", coordinates,
                    ", float acc0, float acc1) {\n", "        if (",
                    transposed_output ? absl::StrCat("col >= ", s.n) : absl::StrCat("row >= ", s.m),
                    ") return;\n", FlatIndexIfUsed(flat_index, absl::StrCat(element_code[0], element_code[1])),
                    element_code[0], element_code[1], "      });\n");
  }
  return code;
}

// The epilogue warps' loop (MatmulConfig::epilogue_warps): each tile the
// consumers staged is rewritten in place, a 16-byte chunk of eight elements
// at a time, from the staged products to `output`, then stored through `map`.
// `flat_index` declares i0, the flat index of (row, col), where the code
// reads it. The generated code asserts that a chunk holds the kChunkElements
// it computes.
absl::StatusOr<std::string> EpilogueWarpsLoop(const MatmulSchedule& s, const MatmulEpilogue& epilogue, NodeId output,
                                              const std::string& map, const std::string& flat_index) {
  constexpr int kChunkElements = 8;
  std::string chunk_code;
  for (int e = 0; e < kChunkElements; ++e) {
    std::string element;
    const ElementCoordinates at{.flat = absl::StrCat("(i0 + ", e, ")"), .batch = "tile.batch", .row = "row",
                                .col = absl::StrCat("(col + ", e, ")")};
    absl::StatusOr<StoredValues> values =
        epilogue.EmitFromStored({output}, absl::StrCat("values.v[", e, "]"), at, "            ", element);
    if (!values.ok()) return values.status();
    absl::StrAppend(&chunk_code, "          {\n", element, "            values.v[", e, "] = ", (*values)[output],
                    ";\n          }\n");
  }
  // A staged row of C holds whole chunks (StagesOutput: N is a multiple of
  // 8), and chunks past C's edge are clipped by the TMA store.
  return absl::StrCat("    if (Gemm::is_epilogue_warp()) {\n", "      static_assert(Gemm::Epilogue::kChunkElements == ",
                      kChunkElements, ", \"chunk size\");\n", "      const Gemm::Epilogue epilogue(shared);\n",
                      "      for (int t = Gemm::first_unit(); t < Gemm::kUnits; t += Gemm::unit_stride()) {\n",
                      "        const KilnTile tile = Gemm::tile_at(t);\n", "        epilogue.wait(t);\n",
                      "        epilogue.for_each_chunk(tile, [&](int row, int col, Gemm::Epilogue::Chunk& values) {\n",
                      "          if (row >= ", s.m, " || col >= ", s.n, ") return;\n",
                      FlatIndexIfUsed(flat_index, chunk_code), chunk_code, "        });\n", "        epilogue.store(&",
                      map, ", tile);\n", "      }\n", "      epilogue.finish();\n", "    }\n");
}

}  // namespace

absl::StatusOr<GeneratedKernel> EmitWgmmaMatmulKernel(const Graph& graph, const Kernel& kernel) {
  const MatmulSchedule& s = kernel.matmul();
  const MatmulConfig& c = s.config;
  // The persistent grid is small, but tile indices are 32-bit.
  if (absl::StatusOr<unsigned> tiles = LaunchGrid(kernel.name, s.tiles); !tiles.ok()) return tiles.status();
  const NodeId matmul = kernel.nodes.front();
  const DType dtype = graph.node(matmul).dtype;
  KernelSignature signature(graph, kernel);
  MatmulEpilogue epilogue(graph, kernel, signature);
  const KernelProduct p = ProductOf(s);
  const bool transposed_output = s.swap_operands;

  // Blocks side by side along N share A's tile; blocks stacked along M, B's.
  const std::string map_a =
      signature.AddTensorMap(p.a->node,
                             OperandMap(graph, *p.a, p.a_mn_major ? s.k : p.m, p.a_mn_major ? p.m : s.k,
                                        !p.a_mn_major, p.block_m, p.cluster_n),
                             false);
  const std::string map_b =
      signature.AddTensorMap(p.b->node,
                             OperandMap(graph, *p.b, p.b_mn_major ? s.k : p.n, p.b_mn_major ? p.n : s.k,
                                        !p.b_mn_major, p.block_n, p.cluster_m),
                             false);
  // The operands' pointers are needed only where the epilogue reads them too.
  for (const NodeId operand : {s.a.node, s.b.node}) {
    bool read_by_epilogue = false;
    for (NodeId n : kernel.nodes) {
      if (n == matmul) continue;
      for (NodeId q : graph.node(n).operands) read_by_epilogue |= q == operand;
    }
    if (!read_by_epilogue) signature.OmitPointer(operand);
  }
  // Outputs StagesOutput picks are staged and stored with TMA in boxes of
  // 128-byte rows, unless their consumer tile is narrower than one such row
  // (a bool output of 64 columns); the others go straight from the
  // accumulator registers.
  std::vector<std::pair<NodeId, std::string>> staged;
  std::vector<NodeId> direct;
  const int consumer_rows = c.pingpong ? p.block_m : p.block_m / 2;
  const int64_t consumer_columns = transposed_output ? consumer_rows : p.block_n;  // of C, per consumer
  for (NodeId output : kernel.outputs) {
    const DType out_dtype = graph.node(output).dtype;
    const int64_t size = DTypeSize(out_dtype);
    if (!StagesOutput(size, s.n) || (consumer_columns * size) % kSwizzleBytes != 0) {
      direct.push_back(output);
      continue;
    }
    TensorMapSpec spec;
    spec.dtype = out_dtype;
    spec.dims = {s.n, s.m, s.batch};
    spec.strides = {s.n * size, s.m * s.n * size};
    // A consumer stores the rows of the tile it owns; transposed, those rows
    // are C's columns, and its box spans all of the kernel tile's columns.
    spec.box = {static_cast<int>(kSwizzleBytes / size), transposed_output ? p.block_n : consumer_rows, 1};
    staged.push_back({output, signature.AddTensorMap(output, spec, true)});
    signature.OmitPointer(output);
  }

  const std::string mma = absl::StrCat(kernel.name, "_mma");
  const std::string batches = absl::StrCat(kernel.name, "_batches");
  const std::string instruction = s.operand_bytes == 4 ? WgmmaInstructionRegisterA(mma, p.block_n, dtype, false)
                                                       : WgmmaInstruction(mma, p.block_n, dtype);
  std::string body = absl::StrCat(instruction, epilogue.BatchPolicy(batches, transposed_output));
  // Split K: the units' partial products and the tiles' arrival counters,
  // module globals as for split reductions (axis_reduction_emitter.h).
  const std::string partials = absl::StrCat(kernel.name, "_partials");
  const std::string arrivals = absl::StrCat(kernel.name, "_arrivals");
  if (c.split_k > 1) {
    absl::StrAppend(&body, "__device__ float4 ", partials, "[", s.tiles * c.split_k * c.block_m * c.block_n / 4,
                    "];\n__device__ unsigned ", arrivals, "[", s.tiles * 2, "];\n");
  }
  const int cluster = c.ClusterBlocks();
  absl::StrAppend(&body, "extern \"C\" __global__ void __launch_bounds__(", s.threads, ", 1) ",
                  cluster > 1 ? absl::StrCat("__cluster_dims__(", cluster, ", 1, 1) ") : "", kernel.name, "(",
                  signature.ParameterList(), ") {\n", "  using Gemm = KilnSm90Gemm<", p.m, "LL, ", p.n, "LL, ", s.k,
                  "LL, ", s.batch, ", ", p.block_m, ", ", p.block_n, ", ", c.stages, ", ", Bool(p.a_mn_major), ", ",
                  Bool(p.b_mn_major), ", ", c.group_m, ", ", s.staging_element_bytes, ", ", Bool(c.pingpong), ", ",
                  Bool(c.epilogue_warps), ", ", c.split_k, ", ", p.cluster_m, ", ", p.cluster_n, ", ", s.operand_bytes, ", ", Bool(transposed_output), ", ",
                  mma, ", ", batches, ">;\n",
                  // The launch is sized from the schedule; the kernel must agree.
                  "  static_assert(Gemm::kThreads == ", s.threads, " && Gemm::kSharedBytes == ", s.shared_bytes,
                  ", \"launch shape\");\n", "  extern __shared__ unsigned char shared_bytes[];\n",
                  "  unsigned char* shared = Gemm::aligned(shared_bytes);\n",
                  "  const unsigned base = kiln_shared_address(shared);\n", "  Gemm::init(base);\n",
                  "  if (Gemm::is_producer()) {\n", "    Gemm::produce(base, &", map_a, ", &", map_b, ");\n");
  const std::string consumer_loop = absl::StrCat(
      "  } else {\n", "    Gemm::Consumer consumer(shared);\n",
      "    for (int t = Gemm::first_tile(consumer.wg); t < Gemm::kUnits; t = Gemm::next_tile(t)) {\n",
      "      const KilnTile tile = Gemm::tile_at(t);\n", "      consumer.mainloop(t);\n",
      c.split_k > 1
          ? absl::StrCat("      static_assert(sizeof(", partials, ") == Gemm::kPartialSlots * Gemm::kPartialVectors * ",
                         "128 * sizeof(float4) && sizeof(", arrivals,
                         ") == Gemm::kTiles * Gemm::kConsumers * sizeof(unsigned), \"partial slots and counters\");\n",
                         "      if (!consumer.sum_split(t, ", partials,
                         ", ", arrivals, ")) continue;\n")
          : "");

  // The flat output index of (row, col) of C, where the epilogue reads it:
  // every output has the matmul's shape.
  const std::string flat_index = absl::StrCat("        const long long i0 = (static_cast<long long>(tile.batch) * ",
                                              s.m, "LL + row) * ", s.n, "LL + col;\n");
  if (c.epilogue_warps) {
    // The schedule allows epilogue warps for one staged output alone (NoEpilogueWarps).
    if (staged.size() != 1 || !direct.empty()) {
      return absl::InternalError(absl::StrCat(kernel.name, ": epilogue warps need one staged output"));
    }
    absl::StatusOr<std::string> loop = EpilogueWarpsLoop(s, epilogue, staged[0].first, staged[0].second, flat_index);
    if (!loop.ok()) return loop.status();
    absl::StrAppend(&body, *loop, consumer_loop,
                    "      consumer.hand_over(t, tile, [&](int r, int c, float acc0, float acc1) {\n",
                    "        consumer.stage_pair<", StorageType(dtype), ">(r, c, ", StoreConversion(dtype, "acc0"),
                    ", ", StoreConversion(dtype, "acc1"), ");\n", "      });\n");
  } else {
    absl::StatusOr<std::string> code = ConsumerEpilogue(graph, s, epilogue, signature, staged, direct, flat_index);
    if (!code.ok()) return code.status();
    absl::StrAppend(&body, consumer_loop, *code);
  }
  absl::StrAppend(&body, "    }\n    consumer.finish();\n  }\n}\n");

  GeneratedKernel generated;
  signature.Fill(generated);
  generated.body = std::move(body);
  generated.launch.grid = static_cast<unsigned>(s.grid);
  generated.launch.block = static_cast<unsigned>(s.threads);
  generated.launch.shared_bytes = static_cast<unsigned>(s.shared_bytes);
  generated.launch.cluster = static_cast<unsigned>(cluster);
  return generated;
}

}  // namespace kiln
