#include "codegen/matmul_sm90_emitter.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "codegen/matmul_epilogue.h"
#include "codegen/wgmma_instruction.h"

namespace kiln {
namespace {

constexpr int kSwizzleBytes = 128;  // one row of a 128-byte-swizzled box
constexpr int kBoxSide = 64;        // 16-bit elements in that row

// The TMA view of one operand's memory. K-major operands (A as stored
// [M,K], B as [N,K]) are read a whole K slice at a time; MN-major ones in
// boxes of 64 columns (see kiln_sm90_gemm.cuh).
TensorMapSpec OperandMap(const Graph& graph, const MatmulOperand& operand, int64_t rows, int64_t cols,
                         bool k_major, int tile_rows) {
  const Node& node = graph.node(operand.node);
  const int64_t size = DTypeSize(node.dtype);
  TensorMapSpec spec;
  spec.dtype = node.dtype;
  spec.dims = {cols, rows, NumElements(operand.batch_dims)};
  spec.strides = {cols * size, rows * cols * size};
  spec.box = {kBoxSide, k_major ? tile_rows : kBoxSide, 1};
  return spec;
}

std::string Bool(bool b) { return b ? "true" : "false"; }

// The declaration of the pair's flat index, where the element code reads it.
std::string FlatIndexIfUsed(const std::string& declaration, const std::string& code) {
  return code.find("(i0 + ") == std::string::npos ? "" : declaration;
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

  // A: [M,K] row-major is K-major; stored transposed ([K,M]) it is M-major.
  // B: [K,N] row-major is N-major; stored transposed ([N,K]) it is K-major.
  const bool a_mn_major = s.a.transposed;
  const bool b_mn_major = !s.b.transposed;
  const std::string map_a = signature.AddTensorMap(
      s.a.node, OperandMap(graph, s.a, a_mn_major ? s.k : s.m, a_mn_major ? s.m : s.k, !a_mn_major, c.block_m),
      false);
  const std::string map_b = signature.AddTensorMap(
      s.b.node, OperandMap(graph, s.b, b_mn_major ? s.k : s.n, b_mn_major ? s.n : s.k, !b_mn_major, c.block_n),
      false);
  // The operands' pointers are needed only where the epilogue reads them too.
  for (const NodeId operand : {s.a.node, s.b.node}) {
    bool read_by_epilogue = false;
    for (NodeId n : kernel.nodes) {
      if (n == matmul) continue;
      for (NodeId p : graph.node(n).operands) read_by_epilogue |= p == operand;
    }
    if (!read_by_epilogue) signature.OmitPointer(operand);
  }
  // Outputs whose rows are a multiple of 16 bytes are staged and stored with
  // TMA; the others straight from the accumulator registers.
  std::vector<std::pair<NodeId, std::string>> staged;
  std::vector<NodeId> direct;
  for (NodeId output : kernel.outputs) {
    const DType out_dtype = graph.node(output).dtype;
    const int64_t size = DTypeSize(out_dtype);
    if ((s.n * size) % 16 != 0) {
      direct.push_back(output);
      continue;
    }
    TensorMapSpec spec;
    spec.dtype = out_dtype;
    spec.dims = {s.n, s.m, s.batch};
    spec.strides = {s.n * size, s.m * s.n * size};
    // A consumer stores the rows of the tile it owns.
    spec.box = {static_cast<int>(kSwizzleBytes / size), c.pingpong ? c.block_m : c.block_m / 2, 1};
    staged.push_back({output, signature.AddTensorMap(output, spec, true)});
    signature.OmitPointer(output);
  }

  const std::string mma = absl::StrCat(kernel.name, "_mma");
  const std::string batches = absl::StrCat(kernel.name, "_batches");
  std::string body = absl::StrCat(WgmmaInstruction(mma, c.block_n, dtype), epilogue.BatchPolicy(batches));
  absl::StrAppend(&body, "extern \"C\" __global__ void __launch_bounds__(", s.threads, ", 1) ", kernel.name, "(",
                  signature.ParameterList(), ") {\n", "  using Gemm = KilnSm90Gemm<", s.m, "LL, ", s.n, "LL, ", s.k,
                  "LL, ", s.batch, ", ", c.block_m, ", ", c.block_n, ", ", c.stages, ", ", Bool(a_mn_major), ", ",
                  Bool(b_mn_major), ", ", c.group_m, ", ", s.staging_element_bytes, ", ", Bool(c.pingpong), ", ", mma, ", ",
                  batches, ">;\n",
                  // The launch is sized from the schedule; the kernel must agree.
                  "  static_assert(Gemm::kThreads == ", s.threads, " && Gemm::kSharedBytes == ", s.shared_bytes,
                  ", \"launch shape\");\n", "  extern __shared__ unsigned char shared_bytes[];\n",
                  "  unsigned char* shared = Gemm::aligned(shared_bytes);\n",
                  "  const unsigned base = kiln_shared_address(shared);\n", "  Gemm::init(base);\n",
                  "  if (Gemm::is_producer()) {\n", "    Gemm::produce(base, &", map_a, ", &", map_b, ");\n",
                  "  } else {\n", "    Gemm::Consumer consumer(shared);\n",
                  "    for (int t = Gemm::first_tile(consumer.wg); t < Gemm::kTiles; t = Gemm::next_tile(t)) {\n",
                  "      const KilnTile tile = Gemm::tile_at(t);\n", "      consumer.mainloop(t);\n");

  // The flat output index of (row, col), once per pair: every output has the
  // matmul's shape.
  const std::string first = absl::StrCat("        const long long i0 = (static_cast<long long>(tile.batch) * ", s.m,
                                         "LL + row) * ", s.n, "LL + col;\n");
  auto at = [](int e) {
    return ElementCoordinates{.flat = absl::StrCat("(i0 + ", e, ")"), .batch = "tile.batch", .row = "row",
                              .col = absl::StrCat("(col + ", e, ")")};
  };
  for (const auto& [output, map] : staged) {
    const std::string type = StorageType(graph.node(output).dtype);
    std::string pair_code;
    std::string stored[2];
    for (int e = 0; e < 2; ++e) {
      std::string element;
      absl::StatusOr<StoredValues> values = epilogue.Emit({output}, absl::StrCat("acc", e), at(e), "          ", element);
      if (!values.ok()) return values.status();
      stored[e] = absl::StrCat("s", e);
      absl::StrAppend(&pair_code, "        ", type, " ", stored[e], ";\n        {\n", element, "          ",
                      stored[e], " = ", (*values)[output], ";\n        }\n");
    }
    absl::StrAppend(&body, "      consumer.staging_acquire();\n",
                    "      consumer.for_each_pair(tile, [&](int r, int c, int row, int col, float acc0, float acc1) {\n",
                    "        if (row >= ", s.m, " || col >= ", s.n, ") return;\n", FlatIndexIfUsed(first, pair_code),
                    pair_code,
                    "        consumer.stage_pair<", type, ">(r, c, s0, s1);\n", "      });\n",
                    "      consumer.store_staged<", type, ">(&", map, ", tile);\n");
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
      element_code[e] = absl::StrCat("        if (col + ", e, " < ", s.n, "LL) {\n", element, "        }\n");
    }
    absl::StrAppend(&body,
                    "      consumer.for_each_pair(tile, [&](int, int, int row, int col, float acc0, float acc1) {\n",
                    "        if (row >= ", s.m, ") return;\n",
                    FlatIndexIfUsed(first, absl::StrCat(element_code[0], element_code[1])), element_code[0],
                    element_code[1], "      });\n");
  }
  absl::StrAppend(&body, "    }\n    consumer.finish();\n  }\n}\n");

  GeneratedKernel generated;
  signature.Fill(generated);
  generated.body = std::move(body);
  generated.launch.grid = static_cast<unsigned>(s.grid);
  generated.launch.block = static_cast<unsigned>(s.threads);
  generated.launch.shared_bytes = static_cast<unsigned>(s.shared_bytes);
  return generated;
}

}  // namespace kiln
