// Transposes that a matmul reads as the layout of its operand rather than as
// a kernel of their own: wgmma and TMA read 16-bit operands in either major
// order (tf32 ones with one of the two K-major), so transpose(W) feeding a
// matmul costs no kernel and no bytes.
//
//   std::vector<bool> folded = FoldOperandTransposes(graph, limits, options);
//   folded[t]   // true: transpose t is a layout of its matmul operands
//
// A transpose folds when it swaps the last two dims and nothing else, is no
// graph output, and every user is a matmul that runs on the wgmma tier
// reading it in swapped layout; anything else keeps its transpose kernel.
#ifndef KILN_FUSION_OPERAND_LAYOUT_H_
#define KILN_FUSION_OPERAND_LAYOUT_H_

#include <vector>

#include "fusion/device_limits.h"
#include "fusion/plan_options.h"
#include "graph/graph.h"

namespace kiln {

std::vector<bool> FoldOperandTransposes(const Graph& graph, const DeviceLimits& limits, const PlanOptions& options);

// True for a transpose whose perm swaps the last two dims and keeps the rest.
bool SwapsLastTwoDims(const Node& node);

}  // namespace kiln

#endif  // KILN_FUSION_OPERAND_LAYOUT_H_
