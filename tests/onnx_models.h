// The ONNX test models that tests/onnx/make_models.py writes with their
// onnxruntime (CPU) results, shared by the CPU tests (the reference
// interpreter) and the GPU tests (compiled plans).
//
//   OnnxCase c = LoadOnnxCase("gpt2_block_opset17");
//   c.graph; c.inputs (graph.inputs() order); c.expected (graph.outputs() order)
#ifndef KILN_TESTS_ONNX_MODELS_H_
#define KILN_TESTS_ONNX_MODELS_H_

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/npy.h"
#include "frontends/onnx/onnx_import.h"
#include "graph/graph.h"
#include "gtest/gtest.h"

namespace kiln {

inline std::string OnnxModelDir() {
  const char* source = std::getenv("KILN_SOURCE_DIR");
  return (std::filesystem::path(source == nullptr ? "." : source) / "tests" / "onnx" / "models").string();
}

struct OnnxCase {
  Graph graph;
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> expected;
};

// Fails the test (and returns an empty case) when the model does not import
// or its files do not match its inputs and outputs.
inline OnnxCase LoadOnnxCase(const std::string& model) {
  const std::string dir = OnnxModelDir();
  OnnxCase c;
  absl::StatusOr<Graph> graph = ImportOnnxFile(absl::StrCat(dir, "/", model, ".onnx"));
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return c;
  c.graph = *std::move(graph);
  auto load = [&](const Node& node, const std::string& kind, HostTensor& out) {
    const std::string path = absl::StrCat(dir, "/", model, "/", kind, "/", node.name, ".npy");
    absl::StatusOr<NpyArray> array = ReadNpyFile(path);
    ASSERT_TRUE(array.ok()) << array.status();
    absl::StatusOr<HostTensor> tensor = NpyToInput(*array, node, path);
    ASSERT_TRUE(tensor.ok()) << tensor.status();
    out = *std::move(tensor);
  };
  c.inputs.resize(c.graph.inputs().size());
  c.expected.resize(c.graph.outputs().size());
  for (size_t i = 0; i < c.inputs.size(); ++i) load(c.graph.node(c.graph.inputs()[i]), "inputs", c.inputs[i]);
  for (size_t j = 0; j < c.expected.size(); ++j) load(c.graph.node(c.graph.outputs()[j]), "outputs", c.expected[j]);
  return c;
}

}  // namespace kiln

#endif  // KILN_TESTS_ONNX_MODELS_H_
