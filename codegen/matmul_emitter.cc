#include "codegen/matmul_emitter.h"

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/element_program.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_signature.h"

namespace kiln {
namespace {

// The main loop's type: its template arguments are the shapes and the schedule.
std::string MainloopType(const MatmulSchedule& s, DType dtype) {
  if (s.tensor_cores) {
    return absl::StrCat("KilnMmaMainloop<", s.m, "LL, ", s.n, "LL, ", s.k, "LL, ", s.block_m, ", ", s.block_n,
                        ", ", s.block_k, ", ", s.warps_m, ", ", s.warps_n, ", ", s.stages, ", ",
                        dtype == DType::kBF16 ? "true" : "false", ", ", s.vector_copies ? "true" : "false", ">");
  }
  return absl::StrCat("KilnFfmaMainloop<", s.m, "LL, ", s.n, "LL, ", s.k, "LL, ",
                      s.vector_copies ? "true" : "false", ">");
}

// The matmul's own value as the reference defines it: rounded to its dtype.
std::string RoundedAccumulator(DType dtype) {
  switch (dtype) {
    case DType::kBF16: return "kiln_round_bf16(acc)";
    case DType::kF16: return "kiln_round_f16(acc)";
    default: return "acc";
  }
}

}  // namespace

absl::StatusOr<GeneratedKernel> EmitMatmulKernel(const Graph& graph, const Kernel& kernel, const DeviceLimits&) {
  const NodeId matmul = kernel.nodes.front();
  const Node& node = graph.node(matmul);
  if (node.op != OpKind::kMatmul) {
    return absl::InternalError(absl::StrCat("kernel ", kernel.name, " does not start with its matmul"));
  }
  const MatmulSchedule& s = kernel.matmul;
  KernelSignature signature(graph, kernel);
  const std::string a = signature.InputName(node.operands[0]);
  const std::string b = signature.InputName(node.operands[1]);
  const Dims& shape = node.shape;

  std::string epilogue;
  absl::flat_hash_map<NodeId, std::string> known = {{matmul, RoundedAccumulator(node.dtype)}};
  ElementProgram program(graph, kernel.nodes, [&](NodeId operand, NodeId) {
    const Node& input = graph.node(operand);
    return LoadConversion(input.dtype, absl::StrCat(signature.InputName(operand), "[",
                                                    BroadcastIndex(input.shape, shape, "i"), "]"));
  });
  if (absl::Status st = program.Emit(kernel.outputs, known, epilogue, "    "); !st.ok()) return st;
  for (NodeId output : kernel.outputs) {
    absl::StrAppend(&epilogue, "    ", signature.OutputName(output), "[i] = ",
                    StoreConversion(graph.node(output).dtype, known[output]), ";\n");
  }

  std::string body;
  absl::StrAppend(&body, "extern \"C\" __global__ void __launch_bounds__(", s.threads, ", 1) ", kernel.name, "(",
                  signature.ParameterList(), ") {\n",
                  "  using Mainloop = ", MainloopType(s, node.dtype), ";\n",
                  // The launch is sized from the schedule; the main loop must agree.
                  "  static_assert(Mainloop::kThreads == ", s.threads, " && Mainloop::kSharedBytes == ",
                  s.shared_bytes, ", \"launch shape\");\n",
                  "  extern __shared__ __align__(128) unsigned char shared[];\n",
                  "  const KilnTile tile = kiln_matmul_tile<", s.m, "LL, ", s.n, "LL, Mainloop::kBM, Mainloop::kBN, ",
                  s.group_m, ">(blockIdx.x);\n",
                  "  Mainloop mainloop;\n",
                  "  mainloop.run(", a, " + tile.batch * ", s.m * s.k, "LL, ", b, " + tile.batch * ", s.k * s.n,
                  "LL, tile.row0, tile.col0, shared);\n",
                  "  mainloop.for_each(tile.row0, tile.col0, [&](int row, int col, float acc) {\n",
                  "    const long long i = (static_cast<long long>(tile.batch) * ", s.m, "LL + row) * ", s.n,
                  "LL + col;\n", epilogue, "  });\n}\n");

  GeneratedKernel generated;
  signature.Fill(generated);
  generated.body = std::move(body);
  generated.launch.grid = static_cast<unsigned>(s.tiles);
  generated.launch.block = static_cast<unsigned>(s.threads);
  generated.launch.shared_bytes = static_cast<unsigned>(s.shared_bytes);
  return generated;
}

}  // namespace kiln
