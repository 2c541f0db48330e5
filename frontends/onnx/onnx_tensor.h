// ONNX tensors as the importer holds them: a value known at import time
// (an initializer, a Constant, a folded shape computation), element type and
// shape as ONNX gives them, every element as a double.
//
//   absl::StatusOr<OnnxTensor> w = DecodeOnnxTensor(initializer);   // raw_data, *_data fields
//   w->type == onnx::TensorProto::FLOAT; w->shape; w->data[i]
//   absl::StatusOr<DType> t = KilnDTypeOf(onnx::TensorProto::BFLOAT16);   // DType::kBF16
#ifndef KILN_FRONTENDS_ONNX_ONNX_TENSOR_H_
#define KILN_FRONTENDS_ONNX_ONNX_TENSOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/shape.h"
#include "onnx/onnx_pb.h"

namespace kiln {

struct OnnxTensor {
  int32_t type = onnx::TensorProto::FLOAT;  // onnx::TensorProto::DataType
  Dims shape;
  std::vector<double> data;
};

// "FLOAT", "INT64", ...
std::string OnnxTypeName(int32_t type);

// The kiln dtype that holds an ONNX element type: FLOAT, FLOAT16, BFLOAT16,
// BOOL, and INT32 or INT64 as i32 (kiln's integer type).
absl::StatusOr<DType> KilnDTypeOf(int32_t type);

// The tensor's elements from raw_data or the typed fields; external data must
// already be in raw_data (LoadOnnxModel puts it there). int64 values beyond
// 2^53 (PyTorch writes INT64_MAX for "to the end") are clamped to +-2^53.
absl::StatusOr<OnnxTensor> DecodeOnnxTensor(const onnx::TensorProto& tensor);

// The value rounded to `type` as an ONNX Cast would store it.
double RoundToOnnxType(double value, int32_t type);

}  // namespace kiln

#endif  // KILN_FRONTENDS_ONNX_ONNX_TENSOR_H_
