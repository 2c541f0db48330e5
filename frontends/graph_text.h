// The text form of the graph format: one line per node, lists in brackets,
// readable and diffable.
//
//   format_version: 1
//   node { name: "x" op: "input" dtype: F32 shape: [16384, 16384] }
//   node { name: "t1" op: "mul" operand: ["x", "x"] }
//   output: "t1"
//
//   std::string text = GraphProtoToText(ToProto(graph));
//   absl::StatusOr<proto::GraphProto> p = ParseGraphProtoText(text);
//
// Any protobuf text format is accepted on input; GraphProtoToText writes this
// layout. A constant of a float dtype is written with the fewest digits that
// give back the same f32 value (0.044715, not 0.044714998453855515): the graph
// read back is the same, since constants are stored rounded to f32.
#ifndef KILN_FRONTENDS_GRAPH_TEXT_H_
#define KILN_FRONTENDS_GRAPH_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "frontends/graph.pb.h"

namespace kiln {

std::string GraphProtoToText(const proto::GraphProto& graph);

// Errors carry the position of the first problem:
//   line 3, column 21: Expected integer, got: abc
// A text with more than kMaxNodes top-level nodes is refused before parsing.
absl::StatusOr<proto::GraphProto> ParseGraphProtoText(absl::string_view text);

}  // namespace kiln

#endif  // KILN_FRONTENDS_GRAPH_TEXT_H_
