// How the fusion planner sees each node.
//
//   ClassifyNode(graph, id)     -> OpClass::kRowReduction for sum(x, axis=1) of a [M,N] x,
//                                  OpClass::kElementwise for the same sum of a [M,1] x
//   RowGeometryOf(graph, id)    -> {full_shape [M,N], rows M, row_length N, row_shape [M,1]}
//   ViewRoot(graph, id)         -> the node whose memory a reshape (of a reshape ...) reads
#ifndef KILN_FUSION_OP_CLASS_H_
#define KILN_FUSION_OP_CLASS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "graph/graph.h"

namespace kiln {

enum class OpClass {
  kSource,        // input or constant: not computed by a kernel
  kView,          // reshape: reinterprets its operand's memory
  kElementwise,
  kRowReduction,  // reduces a trailing run of axes
  kReduction,     // reduces any other set of axes
  kMatmul,
  kTranspose,
  kSlice,         // a strided window copied out of its operand
};

OpClass ClassifyNode(const Graph& graph, NodeId id);

// A reduction whose reduced axes all have size 1 (mean(x, axis=1) of a
// [M,1] x). Each result element is the one operand element at the same
// row-major position, whatever the reduce op (a sum or mean of one value is
// that value), so the planner classifies it as elementwise: a kernel reads
// x once and writes the result once at the copy rate, where a row kernel of
// 1-element rows ran at half of it.
bool IsUnitReduction(const Graph& graph, NodeId id);

// Why `id`, a unit reduction, is planned as elementwise, for reports:
// "node "mu" (reduce_mean) reduces axes [1] of [4096,1], all of size 1: ...".
std::string UnitReductionReason(const Graph& graph, NodeId id);

// The tensor whose memory `id` reads: `id` itself unless it is a view, else
// the first non-view at the end of its chain of operands. Planning, traffic
// and the runtime's buffer binding all resolve views here.
NodeId ViewRoot(const Graph& graph, NodeId id);

// The rows of a reduction over trailing axes.
struct RowGeometry {
  Dims full_shape;       // the reduced operand's shape
  Dims row_shape;        // full_shape with the reduced axes set to 1
  Dims reduced_shape;    // full_shape without the reduced axes
  int64_t rows = 0;
  int64_t row_length = 0;
};

// Set for row reductions only.
std::optional<RowGeometry> RowGeometryOf(const Graph& graph, NodeId id);

}  // namespace kiln

#endif  // KILN_FUSION_OP_CLASS_H_
