// The relative error (L2, against the reference interpreter) a plan's
// outputs may show: the graph's own dtypes' (CheckTolerance), or tf32's
// where a kernel of the plan reads f32 matmul operands as tf32.
//
//   double tolerance = PlanCheckTolerance(graph, exe->plan());   // 1e-5, or 5e-3 with tf32
#ifndef KILN_FUSION_PLAN_TOLERANCE_H_
#define KILN_FUSION_PLAN_TOLERANCE_H_

#include "fusion/plan.h"
#include "graph/graph.h"

namespace kiln {

// tf32 keeps 10 of f32's 23 mantissa bits: each operand is off by up to
// 2^-10 relative, and a product of long dot products by about 1e-3 in L2.
inline constexpr double kTf32Tolerance = 5e-3;

double PlanCheckTolerance(const Graph& graph, const Plan& plan);

}  // namespace kiln

#endif  // KILN_FUSION_PLAN_TOLERANCE_H_
