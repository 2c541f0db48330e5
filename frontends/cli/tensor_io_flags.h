// The user's own tensors in and out of `kiln run` and `kiln eval`:
//   --inputs name=path.npy,...   inputs read from NumPy files; the others are
//                                seeded random (--seed N, input i uses N + i)
//   --save-outputs DIR           every output written as DIR/<name>.npy
//
//   absl::StatusOr<GraphInputs> in = InputsFromFlags(line.flags, graph);
//   in->tensors                  // in graph.inputs() order
//   in->origins[i]               // "from x.npy" or "random with seed 1"
//   absl::StatusOr<std::vector<std::string>> saved = SaveOutputsFromFlags(line.flags, graph, outputs);
#ifndef KILN_FRONTENDS_CLI_TENSOR_IO_FLAGS_H_
#define KILN_FRONTENDS_CLI_TENSOR_IO_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontends/cli/flags.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"

namespace kiln {

struct GraphInputs {
  std::vector<HostTensor> tensors;
  std::vector<std::string> origins;
};

// Reads kInputs and kSeed, which the command must declare.
absl::StatusOr<GraphInputs> InputsFromFlags(const FlagValues& flags, const Graph& graph);

// The paths written, in graph.outputs() order; none when --save-outputs is
// unset. File names come from the output names with every character other
// than letters, digits, '_', '-' and '.' replaced by '_' (a later output whose
// name maps to a taken file gets its position appended), so nothing is written
// outside DIR.
absl::StatusOr<std::vector<std::string>> SaveOutputsFromFlags(const FlagValues& flags, const Graph& graph,
                                                              const std::vector<HostTensor>& outputs);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_TENSOR_IO_FLAGS_H_
