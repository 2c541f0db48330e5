// What `kiln sweep` found at each size, as plain data, and its renderings:
// the table, JSON and an SVG plot. Kept apart from planning and the GPU, so
// that every rendering is tested without one.
//
//   sweep of x axis 1 in softmax (fused plan) for H200 (the default): 3 sizes
//           size  kernels          HBM bytes     bound us  notes
//           1024        1          2,097,152        0.497
//       f0_row_reduction: persistent (warp per row), 256 threads, cluster 1
//           2048        1          4,194,304        0.994  plan changes
//       f0_row_reduction: persistent (block per row), 128 threads, cluster 1
//           4096        1          8,388,608        1.988  plan changes
//       f0_row_reduction: persistent (block per row), 256 threads, cluster 1
//   plan changes: 2
//
// A kernel's lines follow its step when the plan is new there: the first
// step, and every step whose kernels, strategies, threads or clusters differ
// from the step before. With --resources they add the kernel's registers,
// spills, blocks an SM and waves, and also follow each step where the blocks
// an SM change or a spill starts or stops ("occupancy changes"):
//       f0_row_reduction: split (cluster per row, persistent) x4, 512 threads, cluster 4; 32 registers,
//         spills 102 B, 4 blocks an SM (threads, registers), 10.11 waves
#ifndef KILN_FRONTENDS_CLI_SWEEP_REPORT_H_
#define KILN_FRONTENDS_CLI_SWEEP_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

// A measured time further than this over the roofline bound is marked.
inline constexpr double kOverBoundFactor = 1.1;

// With --resources: what ptxas gave a kernel and the occupancy that allows
// (frontends/cli/resources_report.h), at the planner's launch-bound ask.
struct SweepResources {
  int registers = 0;
  int64_t spill_bytes = 0;  // a thread's stores to local memory
  int blocks_per_sm = 0;
  std::string limited_by;   // "threads, registers"
  double waves = 0;
};

struct SweepKernel {
  std::string name;
  std::string kind;
  std::string strategy;  // Kernel::Strategy()
  int64_t grid = 0;
  int threads = 0;       // per block
  int cluster = 1;       // blocks per cluster
  std::optional<SweepResources> resources;
};

struct SweepStep {
  int64_t size = 0;
  std::vector<SweepKernel> kernels;
  int64_t bytes = 0;         // HBM bytes, read plus written, of the whole plan
  double roofline_us = 0;    // PlanRoofline
  bool plan_changes = false; // set by MarkPlanChanges
  // Set by MarkPlanChanges where the plan stays but a kernel's blocks an SM
  // change, or it starts or stops spilling.
  bool occupancy_changes = false;
  std::optional<double> measured_us;
  bool OverBound() const { return measured_us.has_value() && *measured_us > kOverBoundFactor * roofline_us; }
};

struct Sweep {
  std::string graph;  // the file name without its extension
  std::string input;
  int axis = 0;
  bool fused = true;
  std::string target;  // the GPU planned (and run) on
  bool ran = false;    // measured_us is set on every step
  bool resources = false;  // every kernel's resources are set
  std::vector<SweepStep> steps;
};

// Whether a step's plan differs from the one before: kernel count, or any
// kernel's strategy, threads or cluster (its grid follows the size and is no
// change of plan); and where it does not, whether its occupancy does. The
// first step is no change.
void MarkPlanChanges(std::vector<SweepStep>& steps);

std::string SweepTable(const Sweep& sweep);
std::string SweepJson(const Sweep& sweep);
// A self-contained SVG document: the bound (and measured) us against the
// size, both on log scales, a dashed line where the plan changes.
std::string SweepSvg(const Sweep& sweep);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_SWEEP_REPORT_H_
