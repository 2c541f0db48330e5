// libFuzzer target: ONNX model bytes through the importer, then the same
// pipeline as a kiln graph file (plan_and_emit.h). The importer refuses what
// kiln cannot express with InvalidArgument or Unimplemented; external data is
// looked up in a folder that does not exist, so it is NotFound, and no file
// outside the corpus is ever read.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontends/onnx/onnx_import.h"
#include "frontends/onnx/onnx_model.h"
#include "fuzz/plan_and_emit.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<onnx::ModelProto> model = kiln::ParseOnnxModel(bytes, "/nonexistent/kiln-fuzz");
  absl::StatusOr<kiln::Graph> graph = model.ok() ? kiln::ImportOnnxModel(*model) : model.status();
  if (!graph.ok()) {
    const absl::StatusCode code = graph.status().code();
    FUZZ_EXPECT(code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kUnimplemented ||
                    code == absl::StatusCode::kNotFound,
                "the importer refuses with InvalidArgument, Unimplemented or NotFound");
    return 0;
  }
  FuzzPlanAndEmit(*graph);
  return 0;
}
