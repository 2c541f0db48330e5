// What code generation produces for one kernel of a plan: CUDA source whose
// only identifiers are generated ones, the parameters it takes, and how to
// launch it.
//
//   absl::StatusOr<GeneratedKernel> k = GenerateKernel(graph, plan.kernels[0], limits);
//   k->name          // "f0_pointwise", the extern "C" symbol
//   k->Source()      // device library + kernel, ready for NVRTC
//   k->params        // node ids: k->num_inputs inputs, then outputs
#ifndef KILN_CODEGEN_GENERATED_KERNEL_H_
#define KILN_CODEGEN_GENERATED_KERNEL_H_

#include <string>
#include <vector>

#include "graph/graph.h"

namespace kiln {

struct LaunchShape {
  unsigned grid = 1;
  unsigned block = 1;
  unsigned cluster = 1;  // blocks per thread-block cluster (declared in the source)
  unsigned shared_bytes = 0;
};

struct GeneratedKernel {
  std::string name;
  std::string body;  // the kernel alone, without the device library
  LaunchShape launch;
  std::vector<NodeId> params;  // pointer parameters, in order
  int num_inputs = 0;          // params[0, num_inputs) are read, the rest written

  // A complete translation unit: the device library followed by the body.
  std::string Source() const;
};

}  // namespace kiln

#endif  // KILN_CODEGEN_GENERATED_KERNEL_H_
