// kiln convert IN OUT: reads a model (an ONNX file or a kiln graph file) and
// writes it in kiln's graph format, text or binary by OUT's extension.
//
//   $ kiln convert tests/onnx/models/mlp.onnx mlp.textproto
//   tests/onnx/models/mlp.onnx -> mlp.textproto: 17 nodes, 1 inputs, 1 outputs, 4,240 parameters
#include <string>

#include "absl/strings/str_format.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/errors.h"
#include "frontends/graph_file.h"
#include "fusion/plan_report.h"
#include "graph/parameters.h"

namespace kiln {

int RunConvertCommand(const CommandLine& line) {
  const std::string& model = line.args[0];
  const std::string& out = line.args[1];
  absl::StatusOr<Graph> graph = LoadGraphFile(model);
  if (!graph.ok()) return ReportError(graph.status());
  if (absl::Status s = SaveGraphFile(*graph, out); !s.ok()) return ReportError(s);
  const Parameters parameters = CountParameters(*graph);
  absl::PrintF("%s -> %s: %d nodes, %d inputs, %d outputs, %s parameters\n", model, out, graph->size(),
               graph->inputs().size(), graph->outputs().size(), GroupedNumber(parameters.elements));
  return kExitOk;
}

}  // namespace kiln
