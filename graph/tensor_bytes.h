// Host tensors to and from the bytes a GPU stores and the graph format keeps
// for tensor constants: little-endian f32 as float, f16/bf16 as their 16-bit
// patterns, i32 as int32, bool as one byte (0 or 1).
//
//   std::string bytes = EncodeTensor(x);                 // x.data.size() * DTypeSize(x.dtype) bytes
//   HostTensor back = DecodeTensor(bytes, x.dtype, x.shape);
#ifndef KILN_GRAPH_TENSOR_BYTES_H_
#define KILN_GRAPH_TENSOR_BYTES_H_

#include <string>

#include "absl/strings/string_view.h"
#include "graph/host_tensor.h"

namespace kiln {

std::string EncodeTensor(const HostTensor& tensor);
HostTensor DecodeTensor(absl::string_view bytes, DType dtype, const Dims& shape);

}  // namespace kiln

#endif  // KILN_GRAPH_TENSOR_BYTES_H_
