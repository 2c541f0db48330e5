// Random graphs for the differential suites: small, odd-sized, valid graphs
// of every kernel kind and every dtype, which kiln must run exactly as the
// reference interpreter evaluates them (within CheckTolerance).
//
//   std::mt19937_64 rng(kDifferentialSeed);
//   for (int i = 0; i < kDifferentialGraphs; ++i) {
//     const RandomCase c = RandomDifferentialGraph(rng, i);  // c.family, c.graph
//   }
//
// Families are dealt by index, so any 20 consecutive graphs hold all four in
// fixed proportions. Half-precision chains stay short: the reference rounds
// every node to 16 bits while fused kernels keep f32 in registers, and the
// difference grows with depth. Nothing divides by a sum or subtracts a mean
// from its own data, where a relative error would measure cancellation.
#ifndef KILN_TESTS_RANDOM_GRAPHS_H_
#define KILN_TESTS_RANDOM_GRAPHS_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "frontends/builder.h"

namespace kiln {

// The GPU suite's graphs; the CPU suite plans and emits the same ones.
inline constexpr uint64_t kDifferentialSeed = 20261201;
inline constexpr int kDifferentialGraphs = 1000;

enum class GraphFamily { kPointwise, kMatmul, kInteger, kLayout };

inline const char* FamilyName(GraphFamily family) {
  switch (family) {
    case GraphFamily::kPointwise: return "pointwise+rows";
    case GraphFamily::kMatmul: return "matmul+epilogue";
    case GraphFamily::kInteger: return "i32+bool";
    case GraphFamily::kLayout: return "layout+reductions";
  }
  return "?";
}

namespace random_graphs_internal {

template <typename T>
T Pick(std::mt19937_64& rng, const std::vector<T>& values) {
  return values[rng() % values.size()];
}

inline DType FloatDType(std::mt19937_64& rng) {
  const DType dtypes[] = {DType::kF32, DType::kF16, DType::kBF16};
  return dtypes[rng() % 3];
}

// The outputs without repeats (a value listed twice is refused).
inline Graph BuildUnique(GraphBuilder& b, const std::vector<Value>& outputs) {
  std::vector<Value> unique;
  for (const Value& v : outputs) {
    if (std::none_of(unique.begin(), unique.end(), [&](const Value& u) { return u.id() == v.id(); })) {
      unique.push_back(v);
    }
  }
  return *b.Build(unique);
}

}  // namespace random_graphs_internal

// Pointwise chains with broadcasts and row reductions (max, min, sum, mean)
// feeding their rows back: every row strategy, from one-element rows to
// 40000-element ones.
inline Graph RandomPointwiseGraph(std::mt19937_64& rng) {
  using random_graphs_internal::Pick;
  const DType dtype = random_graphs_internal::FloatDType(rng);
  const int64_t rows = 1 + static_cast<int64_t>(rng() % 300);
  const int64_t cols = 1 + static_cast<int64_t>(rng() % (rng() % 4 == 0 ? 40000 : 3000));
  GraphBuilder b;
  std::vector<Value> full = {b.Input("x", dtype, {rows, cols})};
  if (rng() % 2) full.push_back(b.Input("z", dtype, {rows, cols}));
  Value col_bias = b.Input("bias", dtype, {cols});
  Value row_scale = b.Input("scale", dtype, {rows, 1});
  std::vector<Value> row_values;
  std::vector<Value> outputs;
  const int steps = 2 + static_cast<int>(rng() % (dtype == DType::kF32 ? 8 : 3));
  for (int step = 0; step < steps; ++step) {
    Value a = Pick(rng, full);
    Value next;
    switch (rng() % 9) {
      case 0: next = Tanh(a); break;
      case 1: next = Sigmoid(a) * Pick(rng, full); break;
      case 2: next = a + col_bias; break;
      case 3: next = a * row_scale; break;
      case 4: next = Max(a, Pick(rng, full)) - Relu(a); break;
      case 5: next = Exp(Tanh(a)) + Abs(a); break;
      case 6: {
        Value r = rng() % 2 ? ReduceMax(a, {1}, true) : ReduceMin(a, {1}, true);
        row_values.push_back(r);
        next = a - r;
        break;
      }
      case 7: {
        Value s = rng() % 2 ? ReduceSum(Tanh(a), {1}, true) : ReduceMean(Sigmoid(a), {1}, true);
        row_values.push_back(s);
        next = a * Sigmoid(s);
        break;
      }
      default: next = Sqrt(Abs(a) + 0.25) + Neg(a) * 0.5; break;
    }
    full.push_back(next);
    if (rng() % 4 == 0) outputs.push_back(next);
  }
  outputs.push_back(full.back());
  if (!row_values.empty() && rng() % 2) outputs.push_back(row_values.back());
  return random_graphs_internal::BuildUnique(b, outputs);
}

// Matmuls with random epilogues: every size from 1, aligned and not, batched
// or not, all three float dtypes, with bool masks and i32 operands cast in.
inline Graph RandomMatmulGraph(std::mt19937_64& rng) {
  const DType dtype = random_graphs_internal::FloatDType(rng);
  auto dim = [&] { return static_cast<int64_t>(rng() % 2 ? 8 * (1 + rng() % 40) : 1 + rng() % 300); };
  const int64_t m = dim(), n = dim(), k = dim();
  const bool batched = rng() % 4 == 0;
  auto shape = [&](int64_t rows, int64_t cols) { return batched ? Dims{3, rows, cols} : Dims{rows, cols}; };
  GraphBuilder b;
  Value a = b.Input("a", dtype, shape(m, k));
  Value w = b.Input("w", dtype, shape(k, n));
  Value product = Matmul(a, w);
  std::vector<Value> outputs;
  switch (rng() % 6) {
    case 0: outputs = {product}; break;
    case 1: outputs = {Relu(product)}; break;
    case 2: outputs = {Sigmoid(product + b.Input("bias", dtype, {n})) * 2.0}; break;
    case 3: outputs = {product, Tanh(product) * b.Input("gate", dtype, shape(m, n))}; break;
    case 4: outputs = {Select(b.Input("mask", DType::kBool, {n}), product, Neg(product))}; break;
    default: outputs = {product + Cast(b.Input("offset", DType::kI32, {m, 1}), dtype)}; break;
  }
  return *b.Build(outputs);
}

// i32 and bool arithmetic: saturating products and sums, comparisons,
// selects and casts, broadcast rows and columns; also cast to f32 and reduced
// over rows, so integers reach the row kernels as prologues.
inline Graph RandomIntegerGraph(std::mt19937_64& rng) {
  using random_graphs_internal::Pick;
  const int64_t rows = 1 + static_cast<int64_t>(rng() % 200);
  const int64_t cols = 1 + static_cast<int64_t>(rng() % (rng() % 4 == 0 ? 9000 : 700));
  GraphBuilder b;
  std::vector<Value> ints = {b.Input("n", DType::kI32, {rows, cols})};
  Value col = b.Input("k", DType::kI32, {cols});
  Value row = b.Input("r", DType::kI32, {rows, 1});
  std::vector<Value> bools = {b.Input("p", DType::kBool, {rows, 1})};
  const int steps = 2 + static_cast<int>(rng() % 7);
  for (int step = 0; step < steps; ++step) {
    Value a = Pick(rng, ints);
    switch (rng() % 8) {
      case 0: ints.push_back(a + col); break;
      case 1: ints.push_back(a * Pick(rng, ints) * row); break;  // saturates at the i32 limits
      case 2: ints.push_back(Neg(a) - col * 1000); break;
      case 3: ints.push_back(rng() % 2 ? Max(Abs(a), col) : Min(a, row)); break;
      case 4: ints.push_back(Relu(a) * 3); break;
      case 5: bools.push_back(rng() % 2 ? Lt(a, col) : Eq(a, Pick(rng, ints))); break;
      case 6: ints.push_back(Select(Pick(rng, bools), a, Pick(rng, ints))); break;
      default: bools.push_back(Ne(Pick(rng, bools), Cast(a, DType::kBool))); break;
    }
  }
  std::vector<Value> outputs = {ints.back()};
  if (bools.size() > 1) outputs.push_back(bools.back());
  if (rng() % 2) {
    Value as_float = Cast(ints.back(), DType::kF32);
    outputs.push_back(rng() % 2 ? ReduceMax(as_float, {1}) : ReduceSum(Cast(bools.back(), DType::kF32), {1}));
  }
  return random_graphs_internal::BuildUnique(b, outputs);
}

// Transposes of rank 2 to 4 under random permutations, reductions over
// random sets of axes (trailing ones become row kernels, others strided
// kernels), and reshapes read as views.
inline Graph RandomLayoutGraph(std::mt19937_64& rng) {
  const bool integer = rng() % 5 == 0;
  const DType dtype = integer ? DType::kI32 : random_graphs_internal::FloatDType(rng);
  const int rank = 2 + static_cast<int>(rng() % 3);
  Dims shape;
  for (int d = 0; d < rank; ++d) shape.push_back(1 + static_cast<int64_t>(rng() % (rank == 2 ? 300 : 24)));
  GraphBuilder b;
  Value x = b.Input("x", dtype, shape);
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  Value t = Transpose(integer ? x * 7 : Tanh(x), perm);
  std::vector<Value> outputs = {integer ? Neg(t) : Exp(t) * 0.5};
  int64_t elements = 1;
  for (int64_t d : shape) elements *= d;
  Value flat = Reshape(x, {elements});
  outputs.push_back(integer ? Abs(flat) : Sqrt(Abs(flat)));
  if (!integer) {
    std::vector<int64_t> axes;
    for (int d = 0; d < rank; ++d) {
      if (rng() % 2) axes.push_back(d);
    }
    if (axes.empty()) axes.push_back(static_cast<int64_t>(rng() % rank));
    const bool keepdims = rng() % 2;
    Value source = rng() % 2 ? x : t;
    switch (rng() % 4) {
      case 0: outputs.push_back(ReduceSum(source, axes, keepdims)); break;
      case 1: outputs.push_back(ReduceMax(source, axes, keepdims)); break;
      case 2: outputs.push_back(ReduceMin(source, axes, keepdims)); break;
      default: outputs.push_back(ReduceMean(Abs(source), axes, keepdims)); break;
    }
  }
  return random_graphs_internal::BuildUnique(b, outputs);
}

struct RandomCase {
  GraphFamily family;
  Graph graph;
};

// Graph `index` of a suite: 35% pointwise+rows, 20% matmul, 20% integer, 25% layout.
inline RandomCase RandomDifferentialGraph(std::mt19937_64& rng, int index) {
  const int slot = index % 20;
  if (slot < 7) return {GraphFamily::kPointwise, RandomPointwiseGraph(rng)};
  if (slot < 11) return {GraphFamily::kMatmul, RandomMatmulGraph(rng)};
  if (slot < 15) return {GraphFamily::kInteger, RandomIntegerGraph(rng)};
  return {GraphFamily::kLayout, RandomLayoutGraph(rng)};
}

}  // namespace kiln

#endif  // KILN_TESTS_RANDOM_GRAPHS_H_
