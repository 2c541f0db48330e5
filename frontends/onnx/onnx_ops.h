// The ONNX ops kiln imports, each with the function that expands it (internal
// to the importer). The functions live in files by family:
// onnx_elementwise_ops.cc, onnx_linear_ops.cc, onnx_normalization_ops.cc and
// onnx_layout_ops.cc.
//
//   const OnnxOpImporter* importer = FindOnnxOp("Gemm");
//   absl::Status s = importer ? (*importer)(context) : ...;
#ifndef KILN_FRONTENDS_ONNX_ONNX_OPS_H_
#define KILN_FRONTENDS_ONNX_ONNX_OPS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "frontends/onnx/onnx_context.h"

namespace kiln {

using OnnxOpImporter = absl::Status (*)(OnnxContext& context);

// Null for an op kiln does not import.
const OnnxOpImporter* FindOnnxOp(absl::string_view op_type);

// Elementwise.
absl::Status ImportUnary(OnnxContext& c);      // Sqrt Reciprocal Exp Log Tanh Erf Sigmoid Relu Neg Abs
absl::Status ImportBinary(OnnxContext& c);     // Add Sub Mul Div Pow, Max Min (any count)
absl::Status ImportCompare(OnnxContext& c);    // Equal Less Greater LessOrEqual GreaterOrEqual
absl::Status ImportNot(OnnxContext& c);
absl::Status ImportWhere(OnnxContext& c);
absl::Status ImportCast(OnnxContext& c);
absl::Status ImportClip(OnnxContext& c);
// Linear algebra.
absl::Status ImportMatMul(OnnxContext& c);
absl::Status ImportGemm(OnnxContext& c);
// Normalizations and reductions.
absl::Status ImportSoftmax(OnnxContext& c);    // Softmax and LogSoftmax
absl::Status ImportLayerNormalization(OnnxContext& c);
absl::Status ImportReduce(OnnxContext& c);     // ReduceSum ReduceMean ReduceMax ReduceMin
// Layout, shapes and constants.
absl::Status ImportIdentity(OnnxContext& c);   // Identity and Dropout
absl::Status ImportConstant(OnnxContext& c);
absl::Status ImportConstantOfShape(OnnxContext& c);
absl::Status ImportShape(OnnxContext& c);
absl::Status ImportReshape(OnnxContext& c);    // Reshape Flatten Squeeze Unsqueeze
absl::Status ImportTranspose(OnnxContext& c);
absl::Status ImportExpand(OnnxContext& c);
absl::Status ImportSlice(OnnxContext& c);
absl::Status ImportSplit(OnnxContext& c);
absl::Status ImportConcat(OnnxContext& c);
absl::Status ImportGather(OnnxContext& c);
absl::Status ImportRange(OnnxContext& c);
absl::Status ImportTrilu(OnnxContext& c);

}  // namespace kiln

#endif  // KILN_FRONTENDS_ONNX_ONNX_OPS_H_
