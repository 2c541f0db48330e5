// Checks a whole graph: acyclic (operands precede their users), names valid and
// unique, every node's dtype and shape equal to what inference gives, and at
// least one output.
//
//   absl::Status s = VerifyGraph(graph);   // OK, or the first problem found
#ifndef KILN_GRAPH_VERIFIER_H_
#define KILN_GRAPH_VERIFIER_H_

#include "absl/status/status.h"
#include "graph/graph.h"

namespace kiln {

absl::Status VerifyGraph(const Graph& graph);

}  // namespace kiln

#endif  // KILN_GRAPH_VERIFIER_H_
