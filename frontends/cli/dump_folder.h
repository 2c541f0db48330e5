// A dump folder (`--dump DIR` or KILN_DUMP_DIR on plan, emit and run), the
// way XLA's --xla_dump_to and TORCH_COMPILE_DEBUG leave everything a
// compilation decided where a user can read it:
//
//   DIR/graph.textproto                the graph, as loaded
//   DIR/plan.txt                       the plan table: target, both plans, totals
//   DIR/plan.json                      the same as JSON, with the explanation and
//                                      the bytes on every edge between kernels
//   DIR/plan.dot, DIR/plan.svg         the drawing, bytes on the edges between
//                                      kernels (the SVG needs Graphviz's dot)
//   DIR/explain.txt                    why each strategy and each fusion boundary
//   DIR/kernels/<kernel>.cu            each kernel's CUDA source after its launch
//                                      configuration and parameters; with
//   DIR/kernels/kiln_device_library.cuh   which each includes, `nvcc -c` compiles any
//   DIR/run.txt, run.json, trace.json  `kiln run`: its report and a Chrome trace
//   DIR/measure.txt, measure.json      `kiln run --measure`: measured against modelled bytes
//
// Every file is written atomically. Writing a dump never changes what the
// command prints on stdout.
//
//   absl::StatusOr<DumpFolder> dump = DumpPlan(dir, planned, planned.fused, limits);
//   absl::Status s = dump->Write("run.json", RunJson(result));
#ifndef KILN_FRONTENDS_CLI_DUMP_FOLDER_H_
#define KILN_FRONTENDS_CLI_DUMP_FOLDER_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "frontends/cli/planned_graph.h"

namespace kiln {

class DumpFolder {
 public:
  // Creates `dir` (and its parents) when missing.
  static absl::StatusOr<DumpFolder> Create(std::string dir);

  // `name` is relative to the folder ("kernels/f0_pointwise.cu"); errors name the file.
  absl::Status Write(absl::string_view name, absl::string_view contents) const;
  std::string PathOf(absl::string_view name) const;
  const std::string& dir() const { return dir_; }

 private:
  explicit DumpFolder(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

// Creates `dir` and writes the graph, both plans, the drawing, the
// explanation, and the kernels of `kernels_plan` (planned.fused or
// planned.unfused) generated for `limits`. The SVG is left out, saying so on
// stderr, when Graphviz's dot is not installed. Code generation errors name
// the graph file.
absl::StatusOr<DumpFolder> DumpPlan(const std::string& dir, const PlannedGraph& planned, const Plan& kernels_plan,
                                    const DeviceLimits& limits);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_DUMP_FOLDER_H_
