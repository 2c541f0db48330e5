// Pointwise graphs shared by the code generation tests (which compile them)
// and the GPU tests (which run them against the reference).
//
//   Graph g = BroadcastsOverThreeDims(DType::kBF16, {4, 24, 64});
#ifndef KILN_TESTS_POINTWISE_TEST_GRAPHS_H_
#define KILN_TESTS_POINTWISE_TEST_GRAPHS_H_

#include "frontends/builder.h"

namespace kiln {

// y = x * plane + row + column + scalar for x of three `dims`: a plane
// broadcast over the batches, a row and a column per batch, and one element.
inline Graph BroadcastsOverThreeDims(DType dtype, const Dims& dims) {
  GraphBuilder g;
  Value x = g.Input("x", dtype, dims);
  Value plane = g.Input("plane", dtype, {dims[1], dims[2]});
  Value row = g.Input("row", dtype, {dims[0], 1, dims[2]});
  Value column = g.Input("column", dtype, {dims[0], dims[1], 1});
  Value scalar = g.Input("scalar", dtype, {1});
  return *g.Build({(x * plane + row + column + scalar).Named("y")});
}

}  // namespace kiln

#endif  // KILN_TESTS_POINTWISE_TEST_GRAPHS_H_
