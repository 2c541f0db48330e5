// kiln eval FILE [--seed=N] [--scale-down] [--inputs=NAME=FILE.npy,...]
// [--save-outputs=DIR]: runs a graph on the user's or random inputs through
// the CPU reference interpreter and summarizes each output.
//
//   $ kiln eval bench/graphs/row_sum_16384x16384_f32.textproto --scale-down
//   scaled down: every dim is now at most 256
//   input x: f32[256,256], random with seed 1
//   output y: f32[256]
//     min -5.91  max 6.42  mean 0.0533  l2 36.9
//     first values: 1.02 -0.417 ...
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/errors.h"
#include "frontends/cli/tensor_io_flags.h"
#include "frontends/graph_file.h"
#include "frontends/scale_down.h"
#include "graph/host_tensor.h"
#include "graph/reference.h"

namespace kiln {
namespace {

constexpr int64_t kScaleDownMaxDim = 256;
// Beyond this, the reference interpreter takes minutes on one tensor.
constexpr int64_t kMaxEvalElements = int64_t{1} << 26;
constexpr size_t kValuesShown = 8;

// A scaled-down graph is checked too: 256 per dim is still 2^64 elements at rank 8.
absl::Status CheckEvalSize(const Graph& graph, bool scaled_down) {
  for (const Node& node : graph.nodes()) {
    const int64_t elements = NumElements(node.shape);
    if (elements > kMaxEvalElements) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node), " holds ", elements, " elements", scaled_down ? " after scaling down" : "",
          ", more than the ", kMaxEvalElements, " the CPU reference evaluates quickly",
          scaled_down ? "" : "; rerun with --scale-down"));
    }
  }
  return absl::OkStatus();
}

void PrintSummary(const Node& node, const HostTensor& tensor) {
  absl::PrintF("output %s: %s%s\n", node.name, DTypeName(tensor.dtype), DimsString(tensor.shape));
  if (tensor.data.empty()) return;
  double low = tensor.data[0], high = tensor.data[0], sum = 0.0, squares = 0.0;
  for (double v : tensor.data) {
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
    squares += v * v;
  }
  absl::PrintF("  min %.6g  max %.6g  mean %.6g  l2 %.6g\n", low, high,
               sum / static_cast<double>(tensor.data.size()), std::sqrt(squares));
  const size_t shown = std::min(kValuesShown, tensor.data.size());
  absl::PrintF("  first values: %s\n",
               absl::StrJoin(tensor.data.begin(), tensor.data.begin() + shown, " ",
                             [](std::string* out, double v) { absl::StrAppendFormat(out, "%.6g", v); }));
}

}  // namespace

int RunEvalCommand(const CommandLine& line) {
  absl::StatusOr<Graph> graph = LoadGraphFile(line.args[0]);
  if (!graph.ok()) return ReportError(graph.status());
  const bool scale_down = line.flags.Switch(kScaleDown);
  if (scale_down) {
    graph = ScaleDownGraph(*graph, kScaleDownMaxDim);
    if (!graph.ok()) return ReportError(graph.status());
  }
  if (absl::Status s = CheckEvalSize(*graph, scale_down); !s.ok()) return ReportError(s);
  if (scale_down) absl::PrintF("scaled down: every dim is now at most %d\n", kScaleDownMaxDim);

  absl::StatusOr<GraphInputs> inputs = InputsFromFlags(line.flags, *graph);
  if (!inputs.ok()) return ReportError(inputs.status());
  for (size_t i = 0; i < inputs->tensors.size(); ++i) {
    const Node& node = graph->node(graph->inputs()[i]);
    absl::PrintF("input %s: %s%s, %s\n", node.name, DTypeName(node.dtype), DimsString(node.shape),
                 inputs->origins[i]);
  }
  absl::StatusOr<std::vector<HostTensor>> outputs = EvaluateReference(*graph, inputs->tensors);
  if (!outputs.ok()) return ReportError(outputs.status());
  for (size_t i = 0; i < outputs->size(); ++i) {
    PrintSummary(graph->node(graph->outputs()[i]), (*outputs)[i]);
  }
  absl::StatusOr<std::vector<std::string>> saved = SaveOutputsFromFlags(line.flags, *graph, *outputs);
  if (!saved.ok()) return ReportError(saved.status());
  for (const std::string& path : *saved) absl::PrintF("saved %s\n", path);
  return kExitOk;
}

}  // namespace kiln
