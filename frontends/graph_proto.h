// Conversion between the IR and the protobuf graph format (graph.proto).
//
//   proto::GraphProto p = ToProto(graph);         // canonical: topological order,
//                                                 // only the fields each op uses
//   absl::StatusOr<Graph> g = FromProto(p);       // any node order; validated
//
// FromProto(ToProto(g)) reproduces every node field and the outputs of g, and
// ToProto(FromProto(p)) == p for a canonical p. FromProto rejects bad input
// with an InvalidArgument error that names the node and the problem:
//   node "t3" (mul): operand "q" is not defined
//   cycle through nodes "a" -> "b" -> "a"
#ifndef KILN_FRONTENDS_GRAPH_PROTO_H_
#define KILN_FRONTENDS_GRAPH_PROTO_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "frontends/graph.pb.h"
#include "graph/graph.h"

namespace kiln {

// The newest format_version this kiln reads. It writes the oldest version
// that holds the graph: 2 when it has tensor constants or slices, else 1.
inline constexpr uint32_t kGraphFormatVersion = 2;

proto::GraphProto ToProto(const Graph& graph);
absl::StatusOr<Graph> FromProto(const proto::GraphProto& graph_proto);

}  // namespace kiln

#endif  // KILN_FRONTENDS_GRAPH_PROTO_H_
