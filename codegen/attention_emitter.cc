#include "codegen/attention_emitter.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cuda_types.h"
#include "codegen/element_program.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "codegen/matmul_epilogue.h"
#include "codegen/wgmma_instruction.h"

namespace kiln {
namespace {

// A 3-D TMA view, innermost first, of a [batch..., rows, cols] tensor.
TensorMapSpec Map(DType dtype, int64_t rows, int64_t cols, int64_t batch, int box_cols, int box_rows) {
  const int64_t size = DTypeSize(dtype);
  return {.dtype = dtype, .dims = {cols, rows, batch}, .strides = {cols * size, rows * cols * size},
          .box = {box_cols, box_rows, 1}};
}

std::string Bool(bool b) { return b ? "true" : "false"; }

}  // namespace

absl::StatusOr<GeneratedKernel> EmitAttentionKernel(const Graph& graph, const Kernel& kernel) {
  const AttentionSchedule& a = kernel.attention();
  const DType dtype = graph.node(a.q.node).dtype;
  KernelSignature signature(graph, kernel);
  const bool k_mn_major = !a.k.transposed;  // a stored Kᵀ [.., D, Skv] has the keys contiguous
  const std::string map_q =
      signature.AddTensorMap(a.q.node, Map(dtype, a.sq, a.d, a.batch, 64, a.block_q), false);
  const std::string map_k = signature.AddTensorMap(
      a.k.node, k_mn_major ? Map(dtype, a.d, a.skv, a.batch, 64, 64) : Map(dtype, a.skv, a.d, a.batch, 64, a.block_kv),
      false);
  const std::string map_v =
      signature.AddTensorMap(a.v.node, Map(dtype, a.skv, a.dv, a.batch, 64, a.block_kv), false);
  for (const NodeId operand : {a.q.node, a.k.node, a.v.node}) {
    bool read_by_program = false;
    for (NodeId n : a.score_program) {
      for (NodeId p : graph.node(n).operands) read_by_program |= p == operand;
    }
    if (!read_by_program) signature.OmitPointer(operand);
  }

  // The logits function: the score program on one fp32 score at (batch,
  // row, col), reading masks and biases by their coordinates. S itself stays
  // fp32 (the reference rounds it to its dtype; the kernel need not).
  const Dims& scores = graph.node(a.scores).shape;
  std::vector<std::string> members, pointers;
  for (NodeId input : kernel.inputs) {
    const std::string name = signature.InputName(input);
    if (input == a.q.node || input == a.k.node || input == a.v.node) continue;
    members.push_back(absl::StrCat("  const ", StorageType(graph.node(input).dtype), "* __restrict__ ", name, ";\n"));
    pointers.push_back(name);
  }
  const ElementCoordinates at{.flat = "", .batch = "batch", .row = "row", .col = "col"};
  ElementProgram program(graph, kernel.nodes, [&](NodeId operand, NodeId) {
    const Node& node = graph.node(operand);
    return OperandAtCoordinates(node, signature.InputName(operand), scores, a.sq, at);
  });
  absl::flat_hash_map<NodeId, std::string> known = {{a.scores, "acc"}};
  std::string logits_code;
  if (absl::Status s = program.Emit({a.logits}, known, logits_code, "    "); !s.ok()) return s;

  const std::string mma_s = absl::StrCat(kernel.name, "_mma_s");
  const std::string mma_o = absl::StrCat(kernel.name, "_mma_o");
  const std::string logits = absl::StrCat(kernel.name, "_logits");
  std::string body = absl::StrCat(WgmmaInstruction(mma_s, a.block_kv, dtype),
                                  WgmmaInstructionRegisterA(mma_o, static_cast<int>(a.dv), dtype, /*trans_b=*/true));
  absl::StrAppend(&body, "struct ", logits, " {\n", absl::StrJoin(members, ""),
                  "  __device__ __forceinline__ float operator()(float acc, int batch, int row, int col) const {\n",
                  logits_code, "    return ", known[a.logits], ";\n  }\n};\n");
  absl::StrAppend(&body, "extern \"C\" __global__ void __launch_bounds__(", a.threads, ", 1) ", kernel.name, "(",
                  signature.ParameterList(), ") {\n", "  using Attention = KilnSm90Attention<", a.batch, ", ", a.sq,
                  "LL, ", a.skv, "LL, ", a.d, ", ", a.dv, ", ", Bool(k_mn_major), ", ", Bool(a.causal), ", ",
                  a.stages, ", ", Bool(dtype == DType::kBF16), ", ", mma_s, ", ", mma_o, ", ", logits, ">;\n",
                  // The launch is sized from the schedule; the kernel must agree.
                  "  static_assert(Attention::kThreads == ", a.threads, " && Attention::kSharedBytes == ",
                  a.shared_bytes, ", \"launch shape\");\n", "  extern __shared__ unsigned char shared_bytes[];\n",
                  "  unsigned char* shared = Attention::aligned(shared_bytes);\n",
                  "  const unsigned base = kiln_shared_address(shared);\n", "  Attention::init(base);\n",
                  "  if (Attention::is_producer()) {\n", "    Attention::produce(base, &", map_q, ", &", map_k, ", &",
                  map_v, ");\n", "  } else {\n", "    Attention::Consumer consumer(shared);\n",
                  "    consumer.run(", logits, "{", absl::StrJoin(pointers, ", "), "});\n",
                  "    consumer.for_each_output([&](int batch, int row, int col, float v0, float v1) {\n",
                  "      const long long i = (static_cast<long long>(batch) * ", a.sq, "LL + row) * ", a.dv,
                  "LL + col;\n", "      *reinterpret_cast<unsigned*>(", signature.OutputName(a.output),
                  " + i) = consumer.pack(v0, v1);\n", "    });\n  }\n}\n");

  absl::StatusOr<unsigned> grid = LaunchGrid(kernel.name, a.grid);
  if (!grid.ok()) return grid.status();
  GeneratedKernel generated;
  signature.Fill(generated);
  generated.body = std::move(body);
  generated.launch.grid = *grid;
  generated.launch.block = static_cast<unsigned>(a.threads);
  generated.launch.shared_bytes = static_cast<unsigned>(a.shared_bytes);
  return generated;
}

}  // namespace kiln
