// `kiln run --save-io DIR`: the run's inputs and outputs as raw little-endian
// tensors, named by role and position, with a manifest. bench/peers.py reads
// them to run every peer on exactly kiln's inputs and check it against
// kiln's outputs.
//
//   DIR/input0.bin ... DIR/output0.bin ...
//   DIR/io.json   {"tensors": [{"name": "x", "file": "input0.bin", "dtype": "f32", "shape": [4, 8], "role": "input"}, ...]}
#ifndef KILN_FRONTENDS_CLI_SAVE_IO_H_
#define KILN_FRONTENDS_CLI_SAVE_IO_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"

namespace kiln {

// `inputs` and `outputs` follow graph.inputs() and graph.outputs().
absl::Status SaveIo(const std::string& dir, const Graph& graph, const std::vector<HostTensor>& inputs,
                    const std::vector<HostTensor>& outputs);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_SAVE_IO_H_
