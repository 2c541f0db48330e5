#include "frontends/onnx/onnx_masks.h"

#include <cstdint>

namespace kiln {

std::optional<Value> CausalMaskAsIota(GraphBuilder& builder, const HostTensor& tensor) {
  const size_t rank = tensor.shape.size();
  if (tensor.dtype != DType::kBool || rank < 2) return std::nullopt;
  const int64_t rows = tensor.shape[rank - 2], cols = tensor.shape[rank - 1];
  if (rows * cols == 0) return std::nullopt;
  for (size_t i = 0; i < tensor.data.size(); ++i) {
    const int64_t row = static_cast<int64_t>(i) / cols % rows, col = static_cast<int64_t>(i) % cols;
    if ((tensor.data[i] != 0) != (row >= col)) return std::nullopt;
  }
  const int64_t last = static_cast<int64_t>(rank) - 1;
  return Ge(builder.Iota(DType::kI32, tensor.shape, last - 1), builder.Iota(DType::kI32, tensor.shape, last));
}

}  // namespace kiln
