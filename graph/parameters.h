// What a graph's tensor constants (its weights, biases and masks) add up to.
//
//   Parameters p = CountParameters(graph);
//   p.tensors    // tensor constants
//   p.elements   // their elements: the parameter count
//   p.bytes      // their stored bytes
#ifndef KILN_GRAPH_PARAMETERS_H_
#define KILN_GRAPH_PARAMETERS_H_

#include <cstdint>

#include "graph/graph.h"

namespace kiln {

struct Parameters {
  int64_t tensors = 0;
  int64_t elements = 0;
  int64_t bytes = 0;
};

Parameters CountParameters(const Graph& graph);

}  // namespace kiln

#endif  // KILN_GRAPH_PARAMETERS_H_
