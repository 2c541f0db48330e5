// kiln workload NAME DTYPE DIMS [--out=FILE]: writes one of the seed
// workloads of frontends/workloads.h as a graph file (the bundled graphs in
// bench/graphs/ come from it), or as text on stdout without --out.
//
//   $ kiln workload softmax_naive f32 4096x16384 --out softmax_naive_4096x16384_f32.textproto
//   $ kiln workload matmul_relu bf16 8192x8192x8192 --out mm.pb    # MxNxK
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/cli/commands.h"
#include "frontends/cli/errors.h"
#include "frontends/graph_file.h"
#include "frontends/workloads.h"

namespace kiln {
namespace {

// "16384x16384" -> {16384, 16384}.
absl::StatusOr<Dims> ParseDims(absl::string_view text) {
  Dims dims;
  for (absl::string_view piece : absl::StrSplit(text, 'x')) {
    int64_t dim = 0;
    if (!absl::SimpleAtoi(piece, &dim)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dims \"", absl::CEscape(text), "\" are not integers joined by x (e.g. 16384x16384)"));
    }
    dims.push_back(dim);
  }
  return dims;
}

}  // namespace

int RunWorkloadCommand(const CommandLine& line) {
  const std::vector<std::string>& args = line.args;
  absl::StatusOr<DType> dtype = ParseDType(args[1]);
  if (!dtype.ok()) return ReportError(dtype.status());
  absl::StatusOr<Dims> dims = ParseDims(args[2]);
  if (!dims.ok()) return ReportError(dims.status());
  absl::StatusOr<Graph> graph = BuildWorkload(args[0], *dtype, *dims);
  if (!graph.ok()) return ReportError(graph.status());

  const std::string out = line.flags.Text(kOut);
  if (out.empty()) {
    absl::PrintF("%s", SerializeGraphText(*graph));
    return kExitOk;
  }
  if (absl::Status s = SaveGraphFile(*graph, out); !s.ok()) return ReportError(s);
  absl::PrintF("wrote %s: %d nodes\n", out, graph->size());
  return kExitOk;
}

}  // namespace kiln
