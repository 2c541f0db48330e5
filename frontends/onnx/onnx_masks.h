// Constant masks that are comparisons of positions. Exporters fold a causal
// mask (tril(ones) sliced to the sequence) into a bool tensor; as a constant
// it is 1 MiB read for every score of every head. As row >= col of two iotas
// it costs nothing, and attention by fusion sees a causal chain whose key
// blocks right of the diagonal need no work at all.
//
//   std::optional<Value> m = CausalMaskAsIota(builder, tensor);  // bool [1,1,S,S], tril
//   // m: Ge(Iota(i32, [1,1,S,S], 2), Iota(i32, [1,1,S,S], 3))
#ifndef KILN_FRONTENDS_ONNX_ONNX_MASKS_H_
#define KILN_FRONTENDS_ONNX_ONNX_MASKS_H_

#include <optional>

#include "frontends/builder.h"
#include "graph/host_tensor.h"

namespace kiln {

// For a bool tensor of rank >= 2 whose every matrix over the last two dims
// holds exactly row >= col: that comparison, built from iotas. Otherwise
// nullopt (the tensor stays a constant).
std::optional<Value> CausalMaskAsIota(GraphBuilder& builder, const HostTensor& tensor);

}  // namespace kiln

#endif  // KILN_FRONTENDS_ONNX_ONNX_MASKS_H_
