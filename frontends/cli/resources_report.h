// `kiln plan --resources`: each kernel of a plan compiled with NVRTC for the
// target's architecture and read back from ptxas's report (registers, stack,
// spills, shared memory), with the blocks an SM then holds, what limits them,
// and the waves the grid takes. No GPU is needed.
//
// A cluster kernel gets a line with the clusters that fit at once at its
// blocks an SM, by the counts planning takes (DeviceLimits::ResidentClusters),
// and the waves its grid's clusters take.
//
// A kernel whose launch bound asks for several blocks an SM and keeps local
// memory (spills) there gets a row for each ask the runtime's launch-bound
// tuner would time (runtime/launch_bound_tuner.h): the planner's, then each
// smaller one down to the first that keeps none.
//
//   absl::StatusOr<std::vector<ResourceRow>> rows = PlanResources(graph, plan, limits);
//   std::cout << ResourcesTable(*rows, limits);
//   kernel              ask  threads  cluster  registers    stack    spill st/ld  ...  blocks/SM  limited by
//   f0_row_reduction      4      512        4         32     48 B      102/136 B  ...          4  threads, registers
//                         3                           40      8 B          4/4 B  ...          3  registers
#ifndef KILN_FRONTENDS_CLI_RESOURCES_REPORT_H_
#define KILN_FRONTENDS_CLI_RESOURCES_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/generated_kernel.h"
#include "fusion/device_limits.h"
#include "fusion/occupancy.h"
#include "fusion/plan.h"
#include "graph/graph.h"
#include "runtime/kernel_resources.h"

namespace kiln {

// One compiled variant of a plan's kernel.
struct ResourceRow {
  std::string kernel;
  int ask = 0;        // blocks an SM its launch bound asks for; 0: none
  bool tuned = false;  // a smaller ask than the planner's, which the runtime times
  LaunchShape launch;
  KernelResources resources;
  Occupancy occupancy;
  double waves = 0;  // grid / (blocks an SM x SMs)
  // A cluster kernel that can launch: the clusters that fit at once at its
  // blocks an SM by the counts planning takes (DeviceLimits::ResidentClusters),
  // and the waves the grid's clusters take (0 where none fits); 0 otherwise.
  int64_t resident_clusters = 0;
  int64_t cluster_waves = 0;
  // Rows split over clusters and looped over their parts: kiln run times
  // halved clusters where the rows need more than one wave
  // (runtime/row_cluster_tuner.h).
  bool cluster_size_tuned = false;
};

// `kernel` as generated (its planner's ask), compiled for limits.Arch().
// Errors name the kernel.
absl::StatusOr<ResourceRow> CompileResourceRow(const GeneratedKernel& kernel, const DeviceLimits& limits);

// Every kernel of `plan`, each followed by the smaller asks the tuner would
// time. Errors name the kernel that failed to generate or compile.
absl::StatusOr<std::vector<ResourceRow>> PlanResources(const Graph& graph, const Plan& plan,
                                                       const DeviceLimits& limits);

std::string ResourcesTable(const std::vector<ResourceRow>& rows, const DeviceLimits& limits);
// A JSON array, an object a row, for PlanJson's `extra` members.
std::string ResourcesJson(const std::vector<ResourceRow>& rows);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_RESOURCES_REPORT_H_
