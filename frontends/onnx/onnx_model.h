// Reading an .onnx file: the ModelProto, with every tensor stored as
// external data read into its raw_data, and the opset of the default domain.
//
//   absl::StatusOr<onnx::ModelProto> model = LoadOnnxModel("gpt2_block.onnx");
//   absl::StatusOr<int64_t> opset = DefaultOpset(*model);   // 13 ... 18
//
// External data files are named relative to the model's folder; a location
// that is absolute or climbs out of that folder is refused.
#ifndef KILN_FRONTENDS_ONNX_ONNX_MODEL_H_
#define KILN_FRONTENDS_ONNX_ONNX_MODEL_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace kiln {

// The opsets of the default ONNX domain kiln imports.
inline constexpr int64_t kMinOnnxOpset = 13;
inline constexpr int64_t kMaxOnnxOpset = 18;

absl::StatusOr<onnx::ModelProto> LoadOnnxModel(const std::string& path);

// Errors start with nothing: the caller adds the path.
absl::StatusOr<onnx::ModelProto> ParseOnnxModel(const std::string& bytes, const std::string& directory);

absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model);

}  // namespace kiln

#endif  // KILN_FRONTENDS_ONNX_ONNX_MODEL_H_
