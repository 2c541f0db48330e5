// Which values need only a 16-bit float's precision: those that reach the
// graph's outputs only through f16 or bf16 values. A 16-bit float keeps 8 to
// 11 significant bits, so such a value may be computed with the hardware's
// approximate exp and tanh (relative error near 2^-21 and 2^-11) without
// changing what the outputs keep.
#ifndef KILN_GRAPH_PRECISION_H_
#define KILN_GRAPH_PRECISION_H_

#include <vector>

#include "graph/graph.h"

namespace kiln {

// For each node: it is an f16 or bf16 value, or an f32 value that is not a
// graph output and every user of which is such a node. Booleans, integers
// and comparisons need their operands exact, so a value they use is not.
std::vector<bool> SixteenBitBound(const Graph& graph);

}  // namespace kiln

#endif  // KILN_GRAPH_PRECISION_H_
