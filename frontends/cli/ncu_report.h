// Measured DRAM traffic against the traffic model: the parts of `kiln run
// --measure` that need no GPU. Nsight Compute's CSV is parsed into launches,
// each plan kernel is joined to its launches by name (kiln gives a kernel
// the same name in the plan and in the CUDA source), and measured bytes are
// compared with the model's.
//
//   std::vector<NcuLaunch> launches = ParseNcuCsv(csv_text);
//   MeasureResult result{.graph = "softmax", .kernels = CompareTraffic(plan, launches)};
//   std::cout << MeasureTable(result);
//
// ncu flushes the caches before each profiled launch, so reads come from DRAM.
// Writes can under-count: up to an L2's worth of dirty lines (60 MB on an
// H200) may still sit in L2 when a kernel ends.
#ifndef KILN_FRONTENDS_CLI_NCU_REPORT_H_
#define KILN_FRONTENDS_CLI_NCU_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

// The metrics kiln asks ncu for, in this order.
inline constexpr absl::string_view kNcuReadMetric = "dram__bytes_read.sum";
inline constexpr absl::string_view kNcuWriteMetric = "dram__bytes_write.sum";
// A kernel whose measured read + write bytes differ from the model's by more
// than this fraction is flagged.
inline constexpr double kTrafficTolerance = 0.10;

struct NcuLaunch {
  int id = 0;
  std::string kernel;  // "f0_pointwise", without ncu's parameter list
  std::optional<double> read_bytes;
  std::optional<double> write_bytes;
};

// Launches in an ncu CSV, in launch order. Reads both layouts ncu prints: the
// raw page (one row per launch, a column per metric, a units row under the
// header) and the details page (a row per launch and metric). Lines before
// the header (==PROF== messages) are skipped; no header gives no launches.
std::vector<NcuLaunch> ParseNcuCsv(absl::string_view text);

struct MeasuredKernel {
  std::string kernel;
  std::string kind;
  std::string strategy;
  int64_t model_read = 0;
  int64_t model_write = 0;
  std::optional<double> measured_read;
  std::optional<double> measured_write;
  int launches = 0;
  std::optional<double> deviation;  // (measured - model) / model, read + write
  bool flagged = false;
  std::string note;
};

// Each kernel of `plan`, measured on its last profiled launch (kiln run's
// timed one; the first is its check run).
std::vector<MeasuredKernel> CompareTraffic(const Plan& plan, const std::vector<NcuLaunch>& launches);

struct MeasureResult {
  std::string graph;
  bool fused = true;
  std::string target;   // what the model planned for
  std::string command;  // the ncu command line, for the record
  std::vector<MeasuredKernel> kernels;
};

std::string MeasureTable(const MeasureResult& result);
std::string MeasureJson(const MeasureResult& result);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_NCU_REPORT_H_
