#include "codegen/matmul_emitter.h"

#include "absl/strings/str_cat.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "codegen/matmul_epilogue.h"
#include "codegen/matmul_sm90_emitter.h"

namespace kiln {
namespace {

// The main loop's type: its template arguments are the shapes and the schedule.
std::string MainloopType(const MatmulSchedule& s, DType dtype) {
  const MatmulConfig& c = s.config;
  if (s.tier == MatmulTier::kMmaSync) {
    return absl::StrCat("KilnMmaMainloop<", s.m, "LL, ", s.n, "LL, ", s.k, "LL, ", c.block_m, ", ", c.block_n, ", ",
                        c.block_k, ", ", s.warps_m, ", ", s.warps_n, ", ", c.stages, ", ",
                        dtype == DType::kBF16 ? "true" : "false", ", ", s.vector_copies ? "true" : "false", ">");
  }
  return absl::StrCat("KilnFfmaMainloop<", s.m, "LL, ", s.n, "LL, ", s.k, "LL, ",
                      s.vector_copies ? "true" : "false", ", ", c.block_m, ", ", c.block_k, ", ", c.stages, ">");
}

// Blocks an SM must hold at once, for __launch_bounds__. The 128-row FFMA
// tile has only 8 warps a block to hide the latency of its shared-memory
// reads, so two blocks share an SM (registers capped at 128, which its 64
// accumulators fit); with one, the schedulers idle half the cycles.
int MinBlocksPerSm(const MatmulSchedule& s) {
  return s.tier == MatmulTier::kFfma && s.config.block_m == 128 ? 2 : 1;
}

// Split K: the units' partial tiles and the tiles' arrival counters, module
// globals as for split reductions (axis_reduction_emitter.h).
std::string SplitGlobals(const Kernel& kernel) {
  const MatmulSchedule& s = kernel.matmul();
  const MatmulConfig& c = s.config;
  if (c.split_k == 1) return "";
  return absl::StrCat("__device__ float ", kernel.name, "_partials[", s.tiles * c.split_k * c.block_m * c.block_n,
                      "];\n__device__ unsigned ", kernel.name, "_arrivals[", s.tiles, "];\n");
}

// Split K: the last slice of a tile to arrive goes on with the tile's sum
// (KilnKSlice::sum) to the epilogue; the others return.
std::string SumSplit(const Kernel& kernel) {
  const MatmulSchedule& s = kernel.matmul();
  if (s.config.split_k == 1) return "";
  const std::string partials = absl::StrCat(kernel.name, "_partials");
  const std::string arrivals = absl::StrCat(kernel.name, "_arrivals");
  return absl::StrCat("  static_assert(sizeof(", partials,
                      ") == Slice::kUnits * Mainloop::kValues * Mainloop::kThreads * sizeof(float) && sizeof(",
                      arrivals, ") == ", s.tiles, " * sizeof(unsigned), \"partial slots and counters\");\n",
                      "  __shared__ int kiln_last;\n", "  if (!unit.sum(mainloop, ", partials, ", ", arrivals,
                      ", &kiln_last)) return;\n");
}

// One block per work unit on the mma.sync or FFMA main loop: a tile, or one
// K slice of a tile (MatmulConfig::split_k).
absl::StatusOr<GeneratedKernel> EmitTiledMatmulKernel(const Graph& graph, const Kernel& kernel) {
  const NodeId matmul = kernel.nodes.front();
  const Node& node = graph.node(matmul);
  const MatmulSchedule& s = kernel.matmul();
  if (s.a.transposed || s.b.transposed) {
    return absl::InternalError(absl::StrCat("kernel ", kernel.name, ": only the wgmma tier reads transposed operands"));
  }
  KernelSignature signature(graph, kernel);
  MatmulEpilogue epilogue(graph, kernel, signature);
  const std::string a = signature.InputName(s.a.node);
  const std::string b = signature.InputName(s.b.node);

  std::string element;
  absl::StatusOr<StoredValues> values = epilogue.Emit(
      kernel.outputs, "acc", {.flat = "i", .batch = "tile.batch", .row = "row", .col = "col"}, "    ", element);
  if (!values.ok()) return values.status();
  for (NodeId output : kernel.outputs) {
    absl::StrAppend(&element, "    ", signature.OutputName(output), "[i] = ", (*values)[output], ";\n");
  }

  const std::string batches = absl::StrCat(kernel.name, "_batches");
  std::string body = absl::StrCat(epilogue.BatchPolicy(batches), SplitGlobals(kernel));
  absl::StrAppend(&body, "extern \"C\" __global__ void __launch_bounds__(", s.threads, ", ", MinBlocksPerSm(s), ") ",
                  kernel.name, "(",
                  signature.ParameterList(), ") {\n", "  using Mainloop = ", MainloopType(s, node.dtype), ";\n",
                  "  using Slice = KilnKSlice<", s.tiles, ", Mainloop::kKTiles, ", s.config.split_k, ">;\n",
                  // The launch is sized from the schedule; the main loop must agree.
                  "  static_assert(Mainloop::kThreads == ", s.threads, " && Mainloop::kSharedBytes == ",
                  s.shared_bytes, " && Slice::kUnits == ", s.grid, ", \"launch shape\");\n",
                  "  extern __shared__ __align__(128) unsigned char shared[];\n", "  const Slice unit(blockIdx.x);\n",
                  "  const KilnTile tile = kiln_matmul_tile<", s.m, "LL, ", s.n, "LL, Mainloop::kBM, Mainloop::kBN, ",
                  s.config.group_m, ">(unit.tile);\n", "  Mainloop mainloop;\n", "  mainloop.run(", a, " + ",
                  batches, "::a(tile.batch) * ", s.m * s.k, "LL, ", b, " + ", batches, "::b(tile.batch) * ",
                  s.k * s.n, "LL, tile.row0, tile.col0, shared, unit.first_step(), unit.end_step());\n", SumSplit(kernel),
                  "  mainloop.for_each(tile.row0, tile.col0, [&](int row, int col, float acc) {\n",
                  "    const long long i = (static_cast<long long>(tile.batch) * ", s.m, "LL + row) * ", s.n,
                  "LL + col;\n", element, "  });\n}\n");

  absl::StatusOr<unsigned> grid = LaunchGrid(kernel.name, s.grid);
  if (!grid.ok()) return grid.status();
  GeneratedKernel generated;
  signature.Fill(generated);
  generated.body = std::move(body);
  generated.launch.grid = *grid;
  generated.launch.block = static_cast<unsigned>(s.threads);
  generated.launch.shared_bytes = static_cast<unsigned>(s.shared_bytes);
  return generated;
}

}  // namespace

absl::StatusOr<GeneratedKernel> EmitMatmulKernel(const Graph& graph, const Kernel& kernel, const DeviceLimits&) {
  if (graph.node(kernel.nodes.front()).op != OpKind::kMatmul) {
    return absl::InternalError(absl::StrCat("kernel ", kernel.name, " does not start with its matmul"));
  }
  if (kernel.matmul().tier == MatmulTier::kWgmma) return EmitWgmmaMatmulKernel(graph, kernel);
  return EmitTiledMatmulKernel(graph, kernel);
}

}  // namespace kiln
