#include "fusion/plan_tolerance.h"

#include <algorithm>

#include "graph/reference.h"

namespace kiln {

double PlanCheckTolerance(const Graph& graph, const Plan& plan) {
  const bool tf32 = std::any_of(plan.kernels.begin(), plan.kernels.end(), [](const Kernel& kernel) {
    return kernel.kind == KernelKind::kMatmul && kernel.matmul().tier == MatmulTier::kWgmma &&
           kernel.matmul().operand_bytes == 4;
  });
  return tf32 ? std::max(kTf32Tolerance, CheckTolerance(graph)) : CheckTolerance(graph);
}

}  // namespace kiln
