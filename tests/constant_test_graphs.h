// Graphs with tensor constants and slices, shared by the planner tests (exact
// traffic), the code generation tests (NVRTC compiles them) and the GPU tests
// (they run against the reference).
//
//   Graph g = DenseLayerWithWeights(DType::kBF16, 64, 96, 32);
#ifndef KILN_TESTS_CONSTANT_TEST_GRAPHS_H_
#define KILN_TESTS_CONSTANT_TEST_GRAPHS_H_

#include <cstdint>

#include "frontends/builder.h"

namespace kiln {

// y = select(mask, relu(x·w + bias), 0) with w [k,n], bias [n] and a bool
// mask [m,n] all constants: a matmul kernel reading x and three constants.
inline Graph DenseLayerWithWeights(DType dtype, int64_t m, int64_t n, int64_t k) {
  GraphBuilder b;
  Value x = b.Input("x", dtype, {m, k});
  Value w = b.Constant(RandomTensor(dtype, {k, n}, 11)).Named("w");
  Value bias = b.Constant(RandomTensor(dtype, {n}, 12)).Named("bias");
  Value mask = b.Constant(RandomTensor(DType::kBool, {m, n}, 13)).Named("mask");
  Value y = Select(mask, Relu(Matmul(x, w) + bias), b.Constant(0.0, dtype).Named("zero")).Named("y");
  return *b.Build({y});
}

// Constants read through reshapes: a scalar reshaped to [1,1] and a tensor
// constant [6] reshaped to [2,3], both added to x [2,3]. Neither reshape is a
// kernel, so the kernel reads both constants from memory.
inline Graph ReshapedConstants() {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {2, 3});
  Value one = Reshape(b.Constant(1.5, DType::kF32), {1, 1}).Named("one");
  Value row = Reshape(b.Constant(RandomTensor(DType::kF32, {6}, 21)), {2, 3}).Named("row");
  return *b.Build({(x + one + row).Named("y")});
}

// Outputs that no kernel computes: a tensor constant, a scalar constant and a
// reshape of the tensor constant. The plan has no kernels; Run copies them.
inline Graph ConstantOutputs() {
  GraphBuilder b;
  Value w = b.Constant(RandomTensor(DType::kF32, {4, 5}, 31)).Named("w");
  Value s = b.Constant(-2.25, DType::kF32).Named("s");
  return *b.Build({w, s, Reshape(w, {20}).Named("flat")});
}

// qkv [rows, 3*d] split into q, k, v along the last dim (slices with step 1),
// every other row of q (step 2), and a [1,d] bias broadcast to [rows,d] by a
// step of 0; each slice is a kernel of its own.
inline Graph SplitAndBroadcast(DType dtype, int64_t rows, int64_t d) {
  GraphBuilder b;
  Value qkv = b.Input("qkv", dtype, {rows, 3 * d});
  Value bias = b.Input("bias", dtype, {1, d});
  Value q = Slice(qkv, {0, 0}, {1, 1}, {rows, d}).Named("q");
  Value k = Slice(qkv, {0, d}, {1, 1}, {rows, d}).Named("k");
  Value v = Slice(qkv, {0, 2 * d}, {1, 1}, {rows, d}).Named("v");
  Value even = Slice(q, {0, 0}, {2, 1}, {(rows + 1) / 2, d}).Named("even");
  Value wide = Slice(bias, {0, 0}, {0, 1}, {rows, d}).Named("wide");
  return *b.Build({(q * k + v).Named("y"), even, (wide + v).Named("z")});
}

}  // namespace kiln

#endif  // KILN_TESTS_CONSTANT_TEST_GRAPHS_H_
