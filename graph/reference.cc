#include "graph/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/check.h"
#include "graph/parallel_for.h"
#include "graph/tensor_bytes.h"

namespace kiln {
namespace {

// Below this many elements of work a loop runs on the calling thread.
constexpr int64_t kGrain = 1 << 14;

// Walks a row-major index over `dims`, starting at linear index `start`, and keeps
// the offset of each operand whose per-dim strides are given (stride 0 for a
// broadcast dim, a permuted stride for a transpose).
class OffsetWalker {
 public:
  OffsetWalker(const Dims& dims, std::vector<std::vector<int64_t>> strides, int64_t start)
      : dims_(dims),
        strides_(std::move(strides)),
        index_(dims.size(), 0),
        offsets_(strides_.size(), 0) {
    for (size_t d = dims_.size(); d-- > 0;) {
      index_[d] = start % dims_[d];
      start /= dims_[d];
      for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] += index_[d] * strides_[k][d];
    }
  }

  int64_t offset(size_t operand) const { return offsets_[operand]; }

  void Next() {
    for (size_t d = dims_.size(); d-- > 0;) {
      ++index_[d];
      for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] += strides_[k][d];
      if (index_[d] < dims_[d]) return;
      for (size_t k = 0; k < strides_.size(); ++k) offsets_[k] -= dims_[d] * strides_[k][d];
      index_[d] = 0;
    }
  }

 private:
  const Dims& dims_;
  std::vector<std::vector<int64_t>> strides_;
  std::vector<int64_t> index_;
  std::vector<int64_t> offsets_;
};

double MaxPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(a, b);
}

double MinPropagatingNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return std::min(a, b);
}

double UnroundedElementwise(OpKind op, absl::Span<const double> v) {
  switch (op) {
    case OpKind::kNeg: return -v[0];
    case OpKind::kAbs: return std::fabs(v[0]);
    case OpKind::kExp: return std::exp(v[0]);
    case OpKind::kLog: return std::log(v[0]);
    case OpKind::kTanh: return std::tanh(v[0]);
    case OpKind::kErf: return std::erf(v[0]);
    case OpKind::kSqrt: return std::sqrt(v[0]);
    case OpKind::kRsqrt: return 1.0 / std::sqrt(v[0]);
    case OpKind::kSigmoid: return 1.0 / (1.0 + std::exp(-v[0]));
    case OpKind::kRelu: return std::isnan(v[0]) ? v[0] : (v[0] > 0.0 ? v[0] : 0.0);
    case OpKind::kReciprocal: return 1.0 / v[0];
    case OpKind::kAdd: return v[0] + v[1];
    case OpKind::kSub: return v[0] - v[1];
    case OpKind::kMul: return v[0] * v[1];
    case OpKind::kDiv: return v[0] / v[1];
    case OpKind::kMax: return MaxPropagatingNaN(v[0], v[1]);
    case OpKind::kMin: return MinPropagatingNaN(v[0], v[1]);
    case OpKind::kPow: return std::pow(v[0], v[1]);
    case OpKind::kEq: return v[0] == v[1] ? 1.0 : 0.0;
    case OpKind::kNe: return v[0] != v[1] ? 1.0 : 0.0;
    case OpKind::kLt: return v[0] < v[1] ? 1.0 : 0.0;
    case OpKind::kLe: return v[0] <= v[1] ? 1.0 : 0.0;
    case OpKind::kGt: return v[0] > v[1] ? 1.0 : 0.0;
    case OpKind::kGe: return v[0] >= v[1] ? 1.0 : 0.0;
    case OpKind::kSelect: return v[0] != 0.0 ? v[1] : v[2];
    case OpKind::kCast: return v[0];  // the rounding to the target dtype is the cast
    default: break;
  }
  KILN_CHECK(false && "not an elementwise op");
  return 0.0;
}

bool IsRepresentable(double value, DType dtype) {
  if (std::isnan(value)) return IsFloat(dtype);
  return RoundToDType(value, dtype) == value;
}

absl::Status ValidateInput(const Node& node, const HostTensor& tensor) {
  if (tensor.dtype != node.dtype || tensor.shape != node.shape) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(node), ": expected ", DTypeName(node.dtype), DimsString(node.shape),
                     ", got ", DTypeName(tensor.dtype), DimsString(tensor.shape)));
  }
  const int64_t count = NumElements(node.shape);
  if (static_cast<int64_t>(tensor.data.size()) != count) {
    return absl::InvalidArgumentError(absl::StrCat(NodeLabel(node), ": tensor holds ",
                                                   tensor.data.size(), " values for ", count,
                                                   " elements"));
  }
  for (int64_t i = 0; i < count; ++i) {
    if (!IsRepresentable(tensor.data[i], node.dtype)) {
      return absl::InvalidArgumentError(absl::StrCat(NodeLabel(node), ": value ", tensor.data[i],
                                                     " at index ", i, " is not representable in ",
                                                     DTypeName(node.dtype)));
    }
  }
  return absl::OkStatus();
}

HostTensor Elementwise(const Node& node, absl::Span<const HostTensor* const> operands) {
  HostTensor out{.dtype = node.dtype, .shape = node.shape};
  const int64_t count = NumElements(node.shape);
  out.data.resize(count);
  // An operand with as many elements as the result is laid out like it, and a
  // one-element operand is read at 0: those read at i * step without an index
  // walk. Only a true broadcast ([M,1] against [M,N]) needs the walk.
  const size_t arity = operands.size();
  std::vector<int64_t> steps;
  std::vector<std::vector<int64_t>> strides;
  bool direct = true;
  for (const HostTensor* operand : operands) {
    const int64_t n = NumElements(operand->shape);
    direct = direct && (n == count || n == 1);
    steps.push_back(n == count ? 1 : 0);
    strides.push_back(BroadcastStrides(operand->shape, node.shape));
  }
  ParallelFor(count, kGrain, [&](int64_t begin, int64_t end) {
    double values[3];
    const absl::Span<const double> span(values, arity);
    if (direct) {
      for (int64_t i = begin; i < end; ++i) {
        for (size_t k = 0; k < arity; ++k) values[k] = operands[k]->data[i * steps[k]];
        out.data[i] = ApplyElementwise(node, span);
      }
      return;
    }
    OffsetWalker walker(node.shape, strides, begin);
    for (int64_t i = begin; i < end; ++i, walker.Next()) {
      for (size_t k = 0; k < arity; ++k) values[k] = operands[k]->data[walker.offset(k)];
      out.data[i] = ApplyElementwise(node, span);
    }
  });
  return out;
}

// Each output element is reduced by one thread, over the reduced axes in
// row-major order, so the result does not depend on the thread count.
HostTensor Reduce(const Node& node, const HostTensor& in) {
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape);
  Dims kept_dims, reduced_dims;
  std::vector<int64_t> kept_strides, reduced_strides;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    const bool reduced =
        std::binary_search(node.axes.begin(), node.axes.end(), static_cast<int64_t>(d));
    (reduced ? reduced_dims : kept_dims).push_back(in.shape[d]);
    (reduced ? reduced_strides : kept_strides).push_back(in_strides[d]);
  }
  const int64_t reduced_count = NumElements(reduced_dims);
  HostTensor out{.dtype = node.dtype, .shape = node.shape};
  const int64_t count = NumElements(node.shape);
  out.data.resize(count);
  ParallelFor(count, std::max<int64_t>(1, kGrain / reduced_count), [&](int64_t begin, int64_t end) {
    OffsetWalker row(kept_dims, {kept_strides}, begin);
    for (int64_t o = begin; o < end; ++o, row.Next()) {
      OffsetWalker within(reduced_dims, {reduced_strides}, 0);
      double acc = node.op == OpKind::kReduceMax   ? -HUGE_VAL
                   : node.op == OpKind::kReduceMin ? HUGE_VAL
                                                   : 0.0;
      for (int64_t r = 0; r < reduced_count; ++r, within.Next()) {
        const double v = in.data[row.offset(0) + within.offset(0)];
        switch (node.op) {
          case OpKind::kReduceMax: acc = MaxPropagatingNaN(acc, v); break;
          case OpKind::kReduceMin: acc = MinPropagatingNaN(acc, v); break;
          default: acc += v; break;
        }
      }
      if (node.op == OpKind::kReduceMean) acc /= static_cast<double>(reduced_count);
      out.data[o] = RoundToDType(acc, node.dtype);
    }
  });
  return out;
}

// The element offset of each operand's matrix for every batch of the output:
// batch dims broadcast like NumPy's matmul.
std::vector<int64_t> BatchOffsets(const Dims& operand, const Dims& out) {
  const Dims out_batch(out.begin(), out.end() - 2);
  const Dims operand_batch(operand.begin(), operand.end() - 2);
  const int64_t matrix = operand[operand.size() - 2] * operand.back();
  std::vector<int64_t> strides = BroadcastStrides(operand_batch, out_batch);
  for (int64_t& s : strides) s *= matrix;
  std::vector<int64_t> offsets;
  OffsetWalker walker(out_batch, {strides}, 0);
  for (int64_t i = 0; i < NumElements(out_batch); ++i, walker.Next()) offsets.push_back(walker.offset(0));
  return offsets;
}

// [..., M, K] x [..., K, N] as one product per batch of the output. Each
// output is accumulated in double over k in increasing order. The loops are
// blocked so a block of B (kBlockK x kBlockN doubles, 1 MiB) stays in cache
// while a block of rows uses it: unblocked, every output row streams all of B
// from memory, and an 8192^3 product would take hours rather than seconds.
HostTensor Matmul(const Node& node, const HostTensor& a, const HostTensor& b) {
  constexpr int64_t kBlockRows = 64, kBlockK = 256, kBlockN = 512;
  const int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), n = b.shape.back();
  const std::vector<int64_t> a_offsets = BatchOffsets(a.shape, node.shape);
  const std::vector<int64_t> b_offsets = BatchOffsets(b.shape, node.shape);
  const int64_t batch = static_cast<int64_t>(a_offsets.size());
  HostTensor out{.dtype = node.dtype, .shape = node.shape};
  out.data.resize(batch * m * n);
  ParallelFor(batch * m, std::max<int64_t>(1, kGrain / (k * n)), [&](int64_t begin, int64_t end) {
    std::vector<double> acc;
    for (int64_t row0 = begin; row0 < end;) {
      // A block of rows of one product.
      const int64_t row_end = std::min({end, row0 + kBlockRows, (row0 / m + 1) * m});
      const int64_t rows = row_end - row0;
      const double* a_mat = &a.data[a_offsets[row0 / m]];
      const double* b_mat = &b.data[b_offsets[row0 / m]];
      acc.assign(rows * n, 0.0);
      for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
        const int64_t k_end = std::min(k, k0 + kBlockK);
        for (int64_t j0 = 0; j0 < n; j0 += kBlockN) {
          const int64_t j_end = std::min(n, j0 + kBlockN);
          for (int64_t i = 0; i < rows; ++i) {
            const double* a_row = a_mat + (row0 % m + i) * k;
            double* acc_row = &acc[i * n];
            for (int64_t kk = k0; kk < k_end; ++kk) {
              const double a_value = a_row[kk];
              const double* b_row = b_mat + kk * n;
              for (int64_t j = j0; j < j_end; ++j) acc_row[j] += a_value * b_row[j];
            }
          }
        }
      }
      for (int64_t i = 0; i < rows * n; ++i) out.data[row0 * n + i] = RoundToDType(acc[i], node.dtype);
      row0 = row_end;
    }
  });
  return out;
}

// Result element i reads `in` at base + the walk of `strides` over the result's index.
HostTensor StridedCopy(const Node& node, const HostTensor& in, int64_t base, std::vector<int64_t> strides) {
  HostTensor out{.dtype = node.dtype, .shape = node.shape};
  const int64_t count = NumElements(node.shape);
  out.data.resize(count);
  ParallelFor(count, kGrain, [&](int64_t begin, int64_t end) {
    OffsetWalker walker(node.shape, {strides}, begin);
    for (int64_t i = begin; i < end; ++i, walker.Next()) out.data[i] = in.data[base + walker.offset(0)];
  });
  return out;
}

HostTensor Iota(const Node& node) {
  const int64_t stride = RowMajorStrides(node.shape)[node.axes[0]];
  const int64_t dim = node.shape[node.axes[0]];
  HostTensor out{.dtype = node.dtype, .shape = node.shape};
  out.data.resize(NumElements(node.shape));
  for (size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = RoundToDType(static_cast<double>(static_cast<int64_t>(i) / stride % dim), node.dtype);
  }
  return out;
}

HostTensor Transpose(const Node& node, const HostTensor& in) {
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape);
  std::vector<int64_t> strides;
  for (int64_t p : node.perm) strides.push_back(in_strides[p]);
  return StridedCopy(node, in, 0, std::move(strides));
}

// Result index i of dim d reads operand index starts[d] + i * steps[d].
HostTensor Slice(const Node& node, const HostTensor& in) {
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape);
  std::vector<int64_t> strides;
  int64_t base = 0;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    strides.push_back(in_strides[d] * node.steps[d]);
    base += in_strides[d] * node.starts[d];
  }
  return StridedCopy(node, in, base, std::move(strides));
}

HostTensor Constant(const Node& node) {
  if (node.data != nullptr) return DecodeTensor(*node.data, node.dtype, node.shape);
  return {.dtype = node.dtype, .shape = {}, .data = {node.value}};
}

// The values of the graph's nodes during one evaluation. Inputs are read in
// place from the caller's tensors; every other value is owned and released
// after its last use unless it is an output.
class Evaluation {
 public:
  explicit Evaluation(const Graph& graph)
      : graph_(graph), values_(graph.size()), owned_(graph.size()) {
    for (const std::vector<NodeId>& users : graph.Users()) {
      remaining_uses_.push_back(static_cast<int64_t>(users.size()));
    }
    is_output_.assign(graph.size(), false);
    for (NodeId id : graph.outputs()) is_output_[id] = true;
  }

  absl::StatusOr<std::vector<HostTensor>> Run(absl::Span<const HostTensor> inputs);

 private:
  absl::Status BindInputs(absl::Span<const HostTensor> inputs);
  HostTensor Compute(NodeId id);
  void Release(NodeId id);

  const Graph& graph_;
  std::vector<const HostTensor*> values_;
  std::vector<HostTensor> owned_;
  std::vector<int64_t> remaining_uses_;
  std::vector<bool> is_output_;
};

absl::Status Evaluation::BindInputs(absl::Span<const HostTensor> inputs) {
  const std::vector<NodeId> input_ids = graph_.inputs();
  if (inputs.size() != input_ids.size()) {
    std::vector<std::string> names;
    for (NodeId id : input_ids) names.push_back(absl::StrCat("\"", graph_.node(id).name, "\""));
    return absl::InvalidArgumentError(absl::StrCat("the graph takes ", input_ids.size(),
                                                   " input tensors (", absl::StrJoin(names, ", "),
                                                   "), got ", inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = ValidateInput(graph_.node(input_ids[i]), inputs[i]); !s.ok()) return s;
    values_[input_ids[i]] = &inputs[i];
  }
  return absl::OkStatus();
}

HostTensor Evaluation::Compute(NodeId id) {
  const Node& node = graph_.node(id);
  std::vector<const HostTensor*> operands;
  for (NodeId operand : node.operands) operands.push_back(values_[operand]);
  switch (OpFamilyOf(node.op)) {
    case OpFamily::kConstant: return Constant(node);
    case OpFamily::kReduce: return Reduce(node, *operands[0]);
    case OpFamily::kMatmul: return Matmul(node, *operands[0], *operands[1]);
    case OpFamily::kTranspose: return Transpose(node, *operands[0]);
    case OpFamily::kSlice: return Slice(node, *operands[0]);
    case OpFamily::kIota: return Iota(node);
    case OpFamily::kReshape: {
      // The same row-major data under a new shape; the buffer moves instead of
      // being copied when this reshape is the operand's last owned use.
      const NodeId source = node.operands[0];
      HostTensor out{.dtype = node.dtype, .shape = node.shape};
      if (remaining_uses_[source] == 1 && !is_output_[source] &&
          values_[source] == &owned_[source]) {
        out.data = std::move(owned_[source].data);
      } else {
        out.data = operands[0]->data;
      }
      return out;
    }
    default: return Elementwise(node, operands);
  }
}

void Evaluation::Release(NodeId id) {
  if (--remaining_uses_[id] > 0 || is_output_[id] || values_[id] != &owned_[id]) return;
  owned_[id] = HostTensor();
  values_[id] = nullptr;
}

absl::StatusOr<std::vector<HostTensor>> Evaluation::Run(absl::Span<const HostTensor> inputs) {
  if (absl::Status s = BindInputs(inputs); !s.ok()) return s;
  for (NodeId id = 0; id < graph_.size(); ++id) {
    if (graph_.node(id).op == OpKind::kInput) continue;
    owned_[id] = Compute(id);
    values_[id] = &owned_[id];
    for (NodeId operand : graph_.node(id).operands) Release(operand);
    if (remaining_uses_[id] == 0 && !is_output_[id]) owned_[id] = HostTensor();
  }
  // Outputs are distinct nodes, so each owned one can be moved out; inputs are copied.
  std::vector<HostTensor> outputs;
  for (NodeId id : graph_.outputs()) {
    outputs.push_back(values_[id] == &owned_[id] ? std::move(owned_[id]) : *values_[id]);
  }
  return outputs;
}

}  // namespace

absl::StatusOr<std::vector<HostTensor>> EvaluateReference(const Graph& graph,
                                                          absl::Span<const HostTensor> inputs) {
  return Evaluation(graph).Run(inputs);
}

double ApplyElementwise(const Node& node, absl::Span<const double> operands) {
  KILN_CHECK(IsElementwise(node.op) && static_cast<int>(operands.size()) == OpArity(node.op));
  return RoundToDType(UnroundedElementwise(node.op, operands), node.dtype);
}

double CheckTolerance(const Graph& graph) {
  for (const Node& node : graph.nodes()) {
    if (node.dtype == DType::kF16 || node.dtype == DType::kBF16) return 1e-2;
  }
  return 1e-5;
}

}  // namespace kiln
