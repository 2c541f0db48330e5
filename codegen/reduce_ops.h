// How generated code computes each reduce op: the combiner of the device
// library (KilnSum, KilnMax, KilnMin in device/kiln_device.cuh, each with
// identity() and combine()) and whether the result is then divided by the
// number of reduced elements. Every emitter that reduces reads this one table.
//
//   ReduceCodeOf(OpKind::kReduceMean)   -> {"KilnSum", /*divides_by_count=*/true}
#ifndef KILN_CODEGEN_REDUCE_OPS_H_
#define KILN_CODEGEN_REDUCE_OPS_H_

#include "absl/strings/string_view.h"
#include "graph/op.h"

namespace kiln {

struct ReduceCode {
  absl::string_view combiner;
  bool divides_by_count = false;
};

// For the four reduce ops (OpFamily::kReduce).
ReduceCode ReduceCodeOf(OpKind op);

}  // namespace kiln

#endif  // KILN_CODEGEN_REDUCE_OPS_H_
