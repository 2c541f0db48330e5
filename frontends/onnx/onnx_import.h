// ONNX models (opsets 13 to 18) into kiln graphs. Each ONNX op expands into
// kiln IR ops (LayerNormalization into its means, differences and rsqrt;
// Gemm into transposes, a matmul and a scaled bias), computations on values
// known at import time (shape subgraphs) are folded, and initializers become
// tensor constants.
//
//   absl::StatusOr<Graph> g = ImportOnnxFile("gpt2_block.onnx");
//
// Anything kiln cannot express, an op, an attribute or a dtype, is refused
// whole, never imported in part:
//   ONNX node "/attn/Concat" (Concat, opset 17): concatenating tensors computed at run time is not supported
#ifndef KILN_FRONTENDS_ONNX_ONNX_IMPORT_H_
#define KILN_FRONTENDS_ONNX_ONNX_IMPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "onnx/onnx_pb.h"

namespace kiln {

absl::StatusOr<Graph> ImportOnnxModel(const onnx::ModelProto& model);

// Errors start with the path.
absl::StatusOr<Graph> ImportOnnxFile(const std::string& path);

}  // namespace kiln

#endif  // KILN_FRONTENDS_ONNX_ONNX_IMPORT_H_
