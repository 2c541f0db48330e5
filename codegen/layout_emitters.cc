#include "codegen/layout_emitters.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_types.h"
#include "codegen/kernel_signature.h"
#include "codegen/launch_grid.h"
#include "graph/int_math.h"

namespace kiln {
namespace {

constexpr int kThreads = 256;

// Emits `offset += coordinate(index over dims) * stride` for each dim.
std::string OffsetTerms(const Dims& dims, const std::vector<int64_t>& strides, absl::string_view index) {
  std::string out;
  const std::vector<int64_t> own = RowMajorStrides(dims);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1 || strides[d] == 0) continue;
    absl::StrAppend(&out, " + ((", index, " / ", own[d], "LL) % ", dims[d], "LL) * ", strides[d], "LL");
  }
  return out.empty() ? " + 0LL" : out;
}

// The kernels loop over a grid stride, so one wave of blocks covers any size.
void FinishLaunch(GeneratedKernel& generated, int64_t outputs, const DeviceLimits& limits) {
  generated.launch.block = kThreads;
  const int64_t wave = int64_t{std::max(limits.sm_count, 1)} * (2048 / kThreads);
  generated.launch.grid = CappedGrid(std::min(CeilDiv(outputs, kThreads), wave));
}

// A thread per result element, reading the operand at base + the walk of
// `strides` (one per result dim) over the element's index.
GeneratedKernel EmitStridedCopy(const Graph& graph, const Kernel& kernel, int64_t base,
                                const std::vector<int64_t>& strides, const DeviceLimits& limits) {
  const Node& node = graph.node(kernel.nodes.front());
  const int64_t n = NumElements(node.shape);
  KernelSignature signature(graph, kernel);
  std::string body = absl::StrCat(
      "extern \"C\" __global__ void __launch_bounds__(", kThreads, ") ", kernel.name, "(",
      signature.ParameterList(), ") {\n",
      "  for (long long o = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; o < ", n,
      "LL; o += static_cast<long long>(gridDim.x) * blockDim.x) {\n",
      "    out0[o] = in0[", base, "LL", OffsetTerms(node.shape, strides, "o"), "];\n  }\n}\n");
  GeneratedKernel generated;
  signature.Fill(generated);
  generated.body = std::move(body);
  FinishLaunch(generated, n, limits);
  return generated;
}

}  // namespace

absl::StatusOr<GeneratedKernel> EmitSlice(const Graph& graph, const Kernel& kernel, const DeviceLimits& limits) {
  const Node& node = graph.node(kernel.nodes.front());
  const std::vector<int64_t> in_strides = RowMajorStrides(graph.node(node.operands[0]).shape);
  std::vector<int64_t> strides;
  int64_t base = 0;
  for (size_t d = 0; d < in_strides.size(); ++d) {
    strides.push_back(in_strides[d] * node.steps[d]);
    base += in_strides[d] * node.starts[d];
  }
  return EmitStridedCopy(graph, kernel, base, strides, limits);
}

}  // namespace kiln
