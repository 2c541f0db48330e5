// Graph files: the protobuf graph format (graph.proto) in binary or text form,
// read and written whole.
//
//   absl::StatusOr<Graph> g = LoadGraphFile("bench/graphs/row_sum_16384x16384_f32.textproto");
//   absl::Status s = SaveGraphFile(*g, "/tmp/row_sum.pb");
//
// The format follows the extension: .textproto, .pbtxt or .txtpb for text,
// .pb or .binpb for binary; LoadGraphFile also imports .onnx models
// (frontends/onnx/onnx_import.h). Loading errors start with the path:
//   graphs/bad.textproto: line 4, column 13: Expected integer, got: abc
//   graphs/bad.pb: node "t3" (mul): operand "q" is not defined
#ifndef KILN_FRONTENDS_GRAPH_FILE_H_
#define KILN_FRONTENDS_GRAPH_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"

namespace kiln {

// Larger files are refused before they are read.
inline constexpr int64_t kMaxGraphFileBytes = int64_t{256} << 20;

absl::StatusOr<Graph> ParseGraphBinary(absl::string_view bytes);
absl::StatusOr<Graph> ParseGraphText(absl::string_view text);

// Canonical forms: reading them back gives the same graph, and serializing
// that graph again gives the same bytes.
std::string SerializeGraphBinary(const Graph& graph);
std::string SerializeGraphText(const Graph& graph);

absl::StatusOr<Graph> LoadGraphFile(const std::string& path);

// Writes a temporary file beside `path` and renames it over `path`, so that a
// reader never sees a partial file and a failure leaves `path` untouched.
absl::Status SaveGraphFile(const Graph& graph, const std::string& path);

}  // namespace kiln

#endif  // KILN_FRONTENDS_GRAPH_FILE_H_
