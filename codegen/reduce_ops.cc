#include "codegen/reduce_ops.h"

#include "graph/check.h"

namespace kiln {

ReduceCode ReduceCodeOf(OpKind op) {
  switch (op) {
    case OpKind::kReduceSum: return {"KilnSum", false};
    case OpKind::kReduceMean: return {"KilnSum", true};
    case OpKind::kReduceMax: return {"KilnMax", false};
    case OpKind::kReduceMin: return {"KilnMin", false};
    default: break;
  }
  KILN_CHECK(false && "ReduceCodeOf takes reduce ops only");
  return {};
}

}  // namespace kiln
