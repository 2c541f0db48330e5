// Host tensors to and from the bytes a GPU stores: f32 as float, f16/bf16 as
// their 16-bit patterns, i32 as int32, bool as one byte.
//
//   std::string bytes = EncodeTensor(x);                 // x.data.size() * DTypeSize(x.dtype) bytes
//   HostTensor back = DecodeTensor(bytes, x.dtype, x.shape);
#ifndef KILN_RUNTIME_HOST_TRANSFER_H_
#define KILN_RUNTIME_HOST_TRANSFER_H_

#include <string>

#include "absl/strings/string_view.h"
#include "graph/host_tensor.h"

namespace kiln {

std::string EncodeTensor(const HostTensor& tensor);
HostTensor DecodeTensor(absl::string_view bytes, DType dtype, const Dims& shape);

}  // namespace kiln

#endif  // KILN_RUNTIME_HOST_TRANSFER_H_
