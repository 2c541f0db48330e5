#include "codegen/pointwise_emitter.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/element_program.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int kThreads = 256;
// Vectors in flight per thread and input. A row operand on rows of no
// multiple of the vector holds two aligned vectors per vector: at 4, a*b+c
// on 8191x8191 bf16 took 91 registers a thread, two blocks an SM, and ran
// in 80.2 us on an H200; at 2 (56 registers, four blocks) in 74.0 us.
constexpr int kUnroll = 4;
constexpr int kStraddlingRowsUnroll = 2;

}  // namespace

absl::StatusOr<GeneratedKernel> EmitPointwiseKernel(const Graph& graph, const Kernel& kernel,
                                                    const DeviceLimits&) {
  // The outputs have the iteration shape; a node before them may be of a
  // smaller shape that broadcasts (Group::broadcast_nodes).
  const Dims& shape = graph.node(kernel.outputs.front()).shape;
  const int64_t n = NumElements(shape);
  KernelSignature signature(graph, kernel);

  // Inputs of as many elements as the iteration shape stream as vectors:
  // each is read at the element's own flat index, since it differs from the
  // iteration shape in size-1 dims at most (a unit reduction's operand
  // [N,1] under its result [N], which no broadcast maps). The rest broadcast.
  std::vector<NodeId> streamed;
  auto is_streamed = [&](NodeId input) {
    return std::find(streamed.begin(), streamed.end(), input) != streamed.end();
  };
  int64_t narrowest = 4;
  for (NodeId input : kernel.inputs) {
    if (NumElements(graph.node(input).shape) == n) {
      streamed.push_back(input);
      narrowest = std::min(narrowest, DTypeSize(graph.node(input).dtype));
    }
  }
  for (NodeId output : kernel.outputs) narrowest = std::min(narrowest, DTypeSize(graph.node(output).dtype));
  const int vec = static_cast<int>(std::min<int64_t>(16 / narrowest, 8));
  // A broadcast input read at stride 1 along the last dim (a row [cols]
  // under [rows, cols]) gives a vector kV contiguous elements, one whose
  // last dim is broadcast (a column [rows, 1]) one element: loaded once per
  // vector with the streamed ones rather than once per element (16 scalar
  // loads a vector for a row and a column put 4-input bf16 pointwise at
  // 0.82 of copy). Where the last dim is no multiple of kV but at least kV
  // long, a vector spans at most two of its rows: a row's elements are the
  // aligned vectors covering them, and a vector within one row takes one
  // column element, the others two (each element's index took a 64-bit
  // modulo and a scalar load: 8191x8191 f16 ran at 0.67 of copy, 4096x4096
  // at 0.82; a select between a column's two elements at every element, and
  // a 64-bit division and remainder a vector, kept a*b+c on 8191x8191 f16
  // at 84.9 us on an H200, against 70.2 us without). Shorter rows stay
  // element by element.
  const int64_t cols = shape.empty() ? 1 : shape.back();
  const bool straddling = cols % vec != 0;
  const bool per_element = straddling && cols < vec;
  std::vector<NodeId> row_inputs, splat_inputs;
  for (NodeId input : kernel.inputs) {
    const Node& node = graph.node(input);
    if (is_streamed(input) || IsComputedSource(node) || shape.empty() || per_element) continue;
    const int64_t last_stride = BroadcastStrides(node.shape, shape).back();
    if (last_stride == 1) row_inputs.push_back(input);
    if (last_stride == 0) splat_inputs.push_back(input);
  }
  const bool finds_columns = !(row_inputs.empty() && splat_inputs.empty());
  const int unroll = straddling && !row_inputs.empty() ? kStraddlingRowsUnroll : kUnroll;
  // Each vector's column and row (the flat index over every dim but the
  // last) come from one division a thread, then a step per vector: a
  // division and a remainder per vector by the row length, 64-bit, were a
  // multiply-high sequence each. The types are 32-bit where the values fit.
  const int64_t step = int64_t{kThreads} * vec;
  const int64_t rows = shape.empty() ? 1 : n / cols;
  const char* col_type = cols + step <= std::numeric_limits<int32_t>::max() ? "int" : "long long";
  const char* row_type = rows + unroll * step <= std::numeric_limits<int32_t>::max() ? "int" : "long long";
  const std::string cols_literal = absl::StrCat(cols);
  // The first vector's flat index, 32-bit where a partial tile's vectors past
  // the end fit too: its division is the only one a thread makes.
  const char* first_type =
      n + unroll * step <= std::numeric_limits<int32_t>::max() ? "int" : "long long";
  // A broadcast operand's offset of the row `row` (an expression): its index
  // over every dim but the last, whose stride is 0 (a column) or 1 (a row).
  const Dims row_dims = shape.empty() ? Dims{} : Dims(shape.begin(), shape.end() - 1);
  auto RowPart = [&](const Node& node, absl::string_view row) {
    const Dims operand_rows = node.shape.empty() ? Dims{} : Dims(node.shape.begin(), node.shape.end() - 1);
    return BroadcastIndex(operand_rows, row_dims, row);
  };
  bool needs_rows = false;
  for (NodeId input : row_inputs) needs_rows |= RowPart(graph.node(input), "row[u]") != "0";
  for (NodeId input : splat_inputs) needs_rows |= RowPart(graph.node(input), "row[u]") != "0";
  // The offset in a row operand of the element at column col[u] + `shift`
  // of the row `row`.
  auto RowOffset = [&](const Node& node, absl::string_view row, absl::string_view shift) {
    const std::string part = RowPart(node, row);
    if (part == "0") return absl::StrCat("(col[u]", shift, ")");
    return absl::StrCat("(static_cast<long long>(", part, ") * ", cols_literal, " + col[u]", shift, ")");
  };
  auto Start = [&](const Node& node) { return RowOffset(node, "row[u]", ""); };
  // The offset such that adding j gives the element of column
  // col[u] + j - cols of the next row: where a vector reaches into it.
  auto NextRowStart = [&](const Node& node) {
    return RowOffset(node, "(row[u] + 1)", absl::StrCat(" - ", cols_literal));
  };
  // A vector of an operand of `dtype` as 32-bit words (kV elements are 4,
  // 8, 16 or 32 bytes).
  auto Words = [&](DType dtype) { return absl::StrCat("KilnVec<unsigned, ", vec * DTypeSize(dtype) / 4, ">"); };

  // Element code shared by the vector bodies and the scalar tail. A vector
  // body reads broadcasts as a whole vector (`whole`: within one row and
  // clear of the row operand's end) or element by element, where a column's
  // value changes at the row's end; the whole one has no per-element selects.
  enum class Mode { kScalar, kWholeVector, kSplitVector };
  auto element = [&](Mode mode, std::string& code, absl::string_view indent) -> absl::Status {
    absl::flat_hash_map<NodeId, std::string> known;
    for (NodeId input : streamed) {
      const std::string stored = mode != Mode::kScalar ? absl::StrCat("x_", signature.InputName(input), "[u].v[j]")
                                                       : absl::StrCat(signature.InputName(input), "[i]");
      known[input] = LoadConversion(graph.node(input).dtype, stored);
    }
    if (mode != Mode::kScalar) {
      for (NodeId input : row_inputs) {
        const std::string name = signature.InputName(input);
        const std::string stored =
            straddling ? absl::StrCat("r_", name, ".v[j]") : absl::StrCat("x_", name, "[u].v[j]");
        known[input] = LoadConversion(graph.node(input).dtype, stored);
      }
      for (NodeId input : splat_inputs) {
        const std::string name = signature.InputName(input);
        const std::string stored =
            mode == Mode::kSplitVector
                ? absl::StrCat("(col[u] + j < ", cols_literal, " ? s_", name, "[u] : s2_", name, ")")
                : absl::StrCat("s_", name, "[u]");
        known[input] = LoadConversion(graph.node(input).dtype, stored);
      }
    }
    ElementProgram program(graph, kernel.nodes, [&](NodeId operand, NodeId) {
      const Node& node = graph.node(operand);
      return OperandAt(node, signature.InputName(operand), BroadcastIndex(node.shape, shape, "i"));
    });
    if (absl::Status s = program.Emit(kernel.outputs, known, code, indent); !s.ok()) return s;
    for (NodeId output : kernel.outputs) {
      const std::string value = StoreConversion(graph.node(output).dtype, known[output]);
      if (mode != Mode::kScalar) {
        absl::StrAppend(&code, indent, "y_", signature.OutputName(output), ".v[j] = ", value, ";\n");
      } else {
        absl::StrAppend(&code, indent, signature.OutputName(output), "[i] = ", value, ";\n");
      }
    }
    return absl::OkStatus();
  };
  // The loop over a vector's elements.
  auto element_loop = [&](Mode mode, std::string& code, absl::string_view indent) -> absl::Status {
    absl::StrAppend(&code, "#pragma unroll\n", indent, "for (int j = 0; j < kV; ++j) {\n", indent,
                    "  const long long i = v * kV + j;\n", indent, "  (void)i;\n");
    if (absl::Status s = element(mode, code, absl::StrCat(indent, "  ")); !s.ok()) return s;
    absl::StrAppend(&code, indent, "}\n");
    return absl::OkStatus();
  };

  std::string body;
  absl::StrAppend(&body, "extern \"C\" __global__ void __launch_bounds__(", kThreads, ") ", kernel.name,
                  "(", signature.ParameterList(), ") {\n");
  absl::StrAppend(&body, "  constexpr long long kN = ", n, "LL;\n  constexpr int kV = ", vec,
                  ";\n  constexpr int kUnroll = ", unroll, ";\n",
                  "  constexpr long long kVectors = kN / kV;\n",
                  // Each block owns one contiguous tile of kUnroll * blockDim vectors,
                  // read by the warp in consecutive 16-byte pieces: the access
                  // pattern that reaches the copy rate on Hopper (a persistent
                  // grid-stride loop measured 8% slower on the H200).
                  // The block size is a constant (the launch's), so the
                  // kUnroll vectors of a stream are one address and
                  // immediate offsets, not kUnroll 64-bit addresses in
                  // registers (119 registers for 4-input bf16, 2 blocks an SM).
                  "  constexpr long long stride = ", kThreads, ";\n",
                  "  const long long first = static_cast<long long>(blockIdx.x) * stride * kUnroll + threadIdx.x;\n",
                  "  const long long v0 = first;\n");
  // One tile: every load, then every element and store. A whole tile (all
  // but the last block's) has no bounds checks: with them, the compiler
  // fused each vector's load and conversion under one branch, so a thread
  // waited for each vector before it issued the next one's loads.
  auto emit_tile = [&](bool whole, std::string& code) -> absl::Status {
    const std::string check = whole ? "" : "      if (v >= kVectors) continue;\n";
    for (NodeId input : streamed) {
      const std::string name = signature.InputName(input);
      const std::string type = StorageType(graph.node(input).dtype);
      absl::StrAppend(&code, "    KilnVec<", type, ", kV> x_", name, "[kUnroll];\n");
    }
    for (NodeId input : row_inputs) {
      const std::string name = signature.InputName(input);
      if (straddling) {
        absl::StrAppend(&code, "    ", Words(graph.node(input).dtype), " x_", name, "[kUnroll], h_", name,
                        "[kUnroll];\n");
      } else {
        absl::StrAppend(&code, "    KilnVec<", StorageType(graph.node(input).dtype), ", kV> x_", name, "[kUnroll];\n");
      }
    }
    for (NodeId input : splat_inputs) {
      absl::StrAppend(&code, "    ", StorageType(graph.node(input).dtype), " s_", signature.InputName(input),
                      "[kUnroll];\n");
    }
    if (finds_columns) {
      absl::StrAppend(&code, "    ", col_type, " col[kUnroll];\n");
      if (needs_rows) absl::StrAppend(&code, "    ", row_type, " row[kUnroll];\n");
      absl::StrAppend(&code, "    {\n      const ", first_type, " e = static_cast<", first_type, ">(v0 * kV), r = e / ",
                      cols_literal, ";\n",
                      "      col[0] = static_cast<", col_type, ">(e - r * ", cols_literal, ");\n");
      if (needs_rows) absl::StrAppend(&code, "      row[0] = static_cast<", row_type, ">(r);\n");
      absl::StrAppend(&code, "#pragma unroll\n      for (int u = 1; u < kUnroll; ++u) {\n",
                      "        col[u] = col[u - 1] + ", step % cols, ";\n");
      if (needs_rows && step / cols != 0) {
        absl::StrAppend(&code, "        row[u] = row[u - 1] + ", step / cols, ";\n");
      } else if (needs_rows) {
        absl::StrAppend(&code, "        row[u] = row[u - 1];\n");
      }
      absl::StrAppend(&code, "        if (col[u] >= ", cols_literal, ") {\n          col[u] -= ", cols_literal, ";\n",
                      needs_rows ? "          ++row[u];\n" : "", "        }\n      }\n    }\n");
    }
    // All loads first, so kUnroll vectors per input are in flight at once.
    absl::StrAppend(&code, "#pragma unroll\n    for (int u = 0; u < kUnroll; ++u) {\n",
                    "      const long long v = v0 + u * stride;\n", check);
    for (NodeId input : streamed) {
      const std::string name = signature.InputName(input);
      absl::StrAppend(&code, "        x_", name, "[u] = kiln_load_vec<", StorageType(graph.node(input).dtype),
                      ", kV>(", name, " + v * kV);\n");
    }
    for (NodeId input : row_inputs) {
      const Node& node = graph.node(input);
      const std::string name = signature.InputName(input);
      if (!straddling) {
        absl::StrAppend(&code, "        x_", name, "[u] = kiln_load_vec<", StorageType(node.dtype), ", kV>(", name,
                        " + ", Start(node), ");\n");
        continue;
      }
      // The two aligned vectors covering the kV elements from the vector's
      // first, as words, shifted where they are used. Only whole vectors of
      // the operand load here, predicated: as elements (or under a branch)
      // each was unpacked, and so waited for, before the next vector's loads
      // issued. The rest is read element by element where it is used.
      const std::string words = Words(node.dtype);
      const int64_t numel = NumElements(node.shape);
      absl::StrAppend(&code, "        {\n          const long long a = ", Start(node),
                      " & ~static_cast<long long>(kV - 1);\n          x_", name, "[u] = {};\n          h_", name,
                      "[u] = {};\n");
      absl::StrAppend(&code, "          if (a + kV <= ", numel, ") x_", name, "[u] = *reinterpret_cast<const ", words,
                      "*>(", name, " + a);\n");
      absl::StrAppend(&code, "          if (a + 2 * kV <= ", numel, ") h_", name, "[u] = *reinterpret_cast<const ",
                      words, "*>(", name, " + a + kV);\n        }\n");
    }
    for (NodeId input : splat_inputs) {
      const Node& node = graph.node(input);
      const std::string name = signature.InputName(input);
      absl::StrAppend(&code, "        s_", name, "[u] = ", name, "[", RowPart(node, "row[u]"), "];\n");
    }
    absl::StrAppend(&code, "    }\n#pragma unroll\n    for (int u = 0; u < kUnroll; ++u) {\n",
                    "      const long long v = v0 + u * stride;\n", check);
    for (NodeId output : kernel.outputs) {
      absl::StrAppend(&code, "      KilnVec<", StorageType(graph.node(output).dtype), ", kV> y_",
                      signature.OutputName(output), ";\n");
    }
    if (!straddling || !finds_columns) {
      if (absl::Status s = element_loop(Mode::kWholeVector, code, "      "); !s.ok()) return s;
    } else {
      // A vector within one row whose row operands' two aligned vectors both
      // loaded (all but about one in cols / kV) shifts those and reads each
      // column's one value; the others go element by element.
      std::string whole_test = absl::StrCat("col[u] + kV <= ", cols_literal);
      for (NodeId input : row_inputs) {
        const Node& node = graph.node(input);
        absl::StrAppend(&whole_test, " && (", Start(node), " & ~static_cast<long long>(kV - 1)) + 2 * kV <= ",
                        NumElements(node.shape));
      }
      absl::StrAppend(&code, "      if (", whole_test, ") {\n");
      for (NodeId input : row_inputs) {
        const Node& node = graph.node(input);
        const std::string name = signature.InputName(input);
        const std::string type = StorageType(node.dtype);
        const std::string vector = absl::StrCat("KilnVec<", type, ", kV>");
        absl::StrAppend(&code, "        const int m_", name, " = static_cast<int>(", Start(node), " & (kV - 1));\n");
        absl::StrAppend(&code, "        ", vector, " lo_", name, ", hi_", name, ";\n");
        absl::StrAppend(&code, "        memcpy(&lo_", name, ", &x_", name, "[u], sizeof(lo_", name, "));\n");
        absl::StrAppend(&code, "        memcpy(&hi_", name, ", &h_", name, "[u], sizeof(hi_", name, "));\n");
        absl::StrAppend(&code, "        const ", vector, " r_", name, " = m_", name, " == 0 ? lo_", name,
                        " : kiln_shift_dispatch<", type, ", kV, 1>(lo_", name, ", hi_", name, ", m_", name, ");\n");
      }
      if (absl::Status s = element_loop(Mode::kWholeVector, code, "        "); !s.ok()) return s;
      absl::StrAppend(&code, "      } else {\n");
      for (NodeId input : row_inputs) {
        const Node& node = graph.node(input);
        const std::string name = signature.InputName(input);
        absl::StrAppend(&code, "        KilnVec<", StorageType(node.dtype), ", kV> r_", name, ";\n#pragma unroll\n",
                        "        for (int j = 0; j < kV; ++j) r_", name, ".v[j] = ", name, "[(col[u] + j < ",
                        cols_literal, " ? ", Start(node), " : ", NextRowStart(node), ") + j];\n");
      }
      for (NodeId input : splat_inputs) {
        const Node& node = graph.node(input);
        const std::string name = signature.InputName(input);
        absl::StrAppend(&code, "        const ", StorageType(node.dtype), " s2_", name, " = col[u] + kV > ",
                        cols_literal, " ? ", name, "[", RowPart(node, "(row[u] + 1)"), "] : s_", name, "[u];\n");
      }
      if (absl::Status s = element_loop(Mode::kSplitVector, code, "        "); !s.ok()) return s;
      absl::StrAppend(&code, "      }\n");
    }
    for (NodeId output : kernel.outputs) {
      const std::string name = signature.OutputName(output);
      absl::StrAppend(&code, "      kiln_store_vec<", StorageType(graph.node(output).dtype), ", kV>(", name,
                      " + v * kV, y_", name, ");\n");
    }
    absl::StrAppend(&code, "    }\n");
    return absl::OkStatus();
  };
  absl::StrAppend(&body, "  if ((static_cast<long long>(blockIdx.x) + 1) * stride * kUnroll <= kVectors) {\n");
  if (absl::Status s = emit_tile(true, body); !s.ok()) return s;
  absl::StrAppend(&body, "  } else {\n");
  if (absl::Status s = emit_tile(false, body); !s.ok()) return s;
  absl::StrAppend(&body, "  }\n",
                  "  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n",
                  "  for (long long i = kVectors * kV + thread; i < kN; i += static_cast<long long>(gridDim.x) * blockDim.x) {\n");
  if (absl::Status s = element(Mode::kScalar, body, "    "); !s.ok()) return s;
  absl::StrAppend(&body, "  }\n}\n");

  GeneratedKernel generated;
  signature.Fill(generated);
  generated.body = std::move(body);
  const int64_t vectors = n / vec;
  const int64_t tile = int64_t{kThreads} * unroll;
  absl::StatusOr<unsigned> grid = LaunchGrid(kernel.name, std::max<int64_t>(CeilDiv(vectors, tile), 1));
  if (!grid.ok()) return grid.status();
  generated.launch.grid = *grid;
  generated.launch.block = kThreads;
  return generated;
}

}  // namespace kiln
