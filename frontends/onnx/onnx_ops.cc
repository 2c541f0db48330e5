#include "frontends/onnx/onnx_ops.h"

#include <utility>

namespace kiln {
namespace {

constexpr std::pair<absl::string_view, OnnxOpImporter> kOps[] = {
    {"Abs", ImportUnary},
    {"Add", ImportBinary},
    {"Cast", ImportCast},
    {"Clip", ImportClip},
    {"Concat", ImportConcat},
    {"Constant", ImportConstant},
    {"ConstantOfShape", ImportConstantOfShape},
    {"Div", ImportBinary},
    {"Dropout", ImportIdentity},
    {"Equal", ImportCompare},
    {"Erf", ImportUnary},
    {"Exp", ImportUnary},
    {"Expand", ImportExpand},
    {"Flatten", ImportReshape},
    {"Gather", ImportGather},
    {"Gemm", ImportGemm},
    {"Greater", ImportCompare},
    {"GreaterOrEqual", ImportCompare},
    {"Identity", ImportIdentity},
    {"LayerNormalization", ImportLayerNormalization},
    {"Less", ImportCompare},
    {"LessOrEqual", ImportCompare},
    {"Log", ImportUnary},
    {"LogSoftmax", ImportSoftmax},
    {"MatMul", ImportMatMul},
    {"Max", ImportBinary},
    {"Min", ImportBinary},
    {"Mul", ImportBinary},
    {"Neg", ImportUnary},
    {"Not", ImportNot},
    {"Pow", ImportBinary},
    {"Range", ImportRange},
    {"Reciprocal", ImportUnary},
    {"ReduceMax", ImportReduce},
    {"ReduceMean", ImportReduce},
    {"ReduceMin", ImportReduce},
    {"ReduceSum", ImportReduce},
    {"Relu", ImportUnary},
    {"Reshape", ImportReshape},
    {"Shape", ImportShape},
    {"Sigmoid", ImportUnary},
    {"Slice", ImportSlice},
    {"Softmax", ImportSoftmax},
    {"Split", ImportSplit},
    {"Sqrt", ImportUnary},
    {"Squeeze", ImportReshape},
    {"Sub", ImportBinary},
    {"Tanh", ImportUnary},
    {"Transpose", ImportTranspose},
    {"Trilu", ImportTrilu},
    {"Unsqueeze", ImportReshape},
    {"Where", ImportWhere},
};

}  // namespace

const OnnxOpImporter* FindOnnxOp(absl::string_view op_type) {
  for (const auto& [name, importer] : kOps) {
    if (name == op_type) return &importer;
  }
  return nullptr;
}

}  // namespace kiln
