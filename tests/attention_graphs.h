// Attention chains as a user writes them, shared by the attention GPU suite
// and the random differential suite (tests/random_graphs.h).
//
//   AttentionCase c{.dtype = DType::kBF16, .batch = {2, 4}, .sq = 512, .skv = 512, .d = 128, .causal = true};
//   Graph g = AttentionGraph(c, c.dtype);          // the chain in its own dtype
//   Graph ref = AttentionGraph(c, DType::kF32);    // same inputs, fp32 intermediates
//
// The fused kernel keeps S in fp32 and rounds P once, while the reference
// interpreter rounds every node of a 16-bit chain, so 16-bit chains are
// compared with the fp32-intermediate chain on the same inputs.
#ifndef KILN_TESTS_ATTENTION_GRAPHS_H_
#define KILN_TESTS_ATTENTION_GRAPHS_H_

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/builder.h"

namespace kiln {

struct AttentionCase {
  DType dtype = DType::kBF16;
  Dims batch;  // one or two leading dims
  int64_t sq = 0, skv = 0, d = 0;
  bool causal = false, bias = false;
  std::string Name() const {
    return absl::StrCat(DTypeName(dtype), DimsString(batch), " sq=", sq, " skv=", skv, " d=", d,
                        causal ? " causal" : "", bias ? " bias" : "");
  }
};

inline Dims BatchedShape(Dims batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// The chain as a user writes it; `compute` is the dtype the chain runs in
// (the case's own, or f32 for the reference with fp32 intermediates).
inline Graph AttentionGraph(const AttentionCase& c, DType compute) {
  GraphBuilder b;
  const size_t rank = c.batch.size() + 2;
  auto in = [&](const char* name, Dims shape) {
    Value v = b.Input(name, c.dtype, std::move(shape));
    return compute == c.dtype ? v : Cast(v, compute);
  };
  Value q = in("q", BatchedShape(c.batch, c.sq, c.d));
  Value k = in("k", BatchedShape(c.batch, c.skv, c.d));
  Value v = in("v", BatchedShape(c.batch, c.skv, c.d));
  std::vector<int64_t> perm;
  for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(i));
  std::swap(perm[rank - 1], perm[rank - 2]);
  Value s = Matmul(q, Transpose(k, perm)) * (1.0 / std::sqrt(static_cast<double>(c.d)));
  if (c.bias) s = s + in("bias", {c.sq, c.skv});
  if (c.causal) {
    Value visible = Ge(b.Iota(DType::kI32, {c.sq, c.skv}, 0), b.Iota(DType::kI32, {c.sq, c.skv}, 1));
    s = Select(visible, s, b.Constant(-INFINITY, compute));
  }
  Value e = Exp(s - ReduceMax(s, {static_cast<int64_t>(rank) - 1}, true));
  Value o = Matmul(e / ReduceSum(e, {static_cast<int64_t>(rank) - 1}, true), v);
  return *b.Build({compute == c.dtype ? o : Cast(o, c.dtype)});
}

}  // namespace kiln

#endif  // KILN_TESTS_ATTENTION_GRAPHS_H_
