// The C++ builder API: graphs that read like the math.
//
//   GraphBuilder b;
//   Value x = b.Input("x", DType::kF32, {16384, 16384});
//   Value y = 0.5 * x * (1.0 + Tanh(0.79788456 * (x + 0.044715 * x * x * x)));
//   absl::StatusOr<Graph> graph = b.Build({y.Named("y")});
//
// Mistakes (a broadcast mismatch, a bad axis, a name clash) do not throw: the
// builder keeps the first error, later calls become no-ops, and Build returns
// that error, which names the node and the problem. Scalars combine with a
// Value as constants of the Value's dtype.
#ifndef KILN_FRONTENDS_BUILDER_H_
#define KILN_FRONTENDS_BUILDER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/host_tensor.h"

namespace kiln {

class GraphBuilder;

// A handle to one node under construction. Cheap to copy.
class Value {
 public:
  Value() = default;
  Value(GraphBuilder* builder, NodeId id) : builder_(builder), id_(id) {}

  GraphBuilder* builder() const { return builder_; }
  NodeId id() const { return id_; }
  bool valid() const { return builder_ != nullptr && id_ >= 0; }
  DType dtype() const;
  const Dims& shape() const;

  // Renames the node (default names are `<op>_<n>`); returns the same handle.
  Value Named(std::string name) const;

 private:
  GraphBuilder* builder_ = nullptr;
  NodeId id_ = -1;
};

class GraphBuilder {
 public:
  GraphBuilder() = default;
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;

  Value Input(std::string name, DType dtype, Dims shape);
  Value Constant(double value, DType dtype);
  // A tensor constant (a weight, a bias, a mask), stored once in the graph:
  // from host values, each rounded to `tensor.dtype`, or from the raw
  // little-endian bytes graph/tensor_bytes.h describes.
  Value Constant(const HostTensor& tensor);
  Value Constant(DType dtype, Dims shape, absl::string_view bytes);
  // Each element's index along `axis` of `shape`, as `dtype`: positions for
  // masks, e.g. a causal mask select(Ge(row, col), s, -inf) with
  // row = Iota(kI32, {S, S}, 0) and col = Iota(kI32, {S, S}, 1). Computed
  // where it is read; never stored.
  Value Iota(DType dtype, Dims shape, int64_t axis);

  // Adds a node of any op. `spec.name` may be empty for a generated name.
  // Operands from another builder, or after an earlier error, yield an
  // invalid Value and keep the first error.
  Value Add(NodeSpec spec, std::initializer_list<Value> operands);

  // The graph with `outputs` as its outputs, or the first error.
  absl::StatusOr<Graph> Build(const std::vector<Value>& outputs);

  const absl::Status& status() const { return status_; }
  const Graph& graph() const { return graph_; }
  void Rename(Value value, std::string name);

 private:
  std::string FreshName(absl::string_view stem);

  Graph graph_;
  absl::Status status_;
  int counter_ = 0;
};

// Elementwise math. Each takes and returns Values of the same builder.
Value Neg(Value x);
Value Abs(Value x);
Value Exp(Value x);
Value Log(Value x);
Value Tanh(Value x);
Value Erf(Value x);
Value Sqrt(Value x);
Value Rsqrt(Value x);
Value Sigmoid(Value x);
Value Relu(Value x);
Value Reciprocal(Value x);
Value Max(Value a, Value b);
Value Min(Value a, Value b);
Value Pow(Value a, Value b);
Value Eq(Value a, Value b);
Value Ne(Value a, Value b);
Value Lt(Value a, Value b);
Value Le(Value a, Value b);
Value Gt(Value a, Value b);
Value Ge(Value a, Value b);
Value Select(Value condition, Value on_true, Value on_false);
Value Cast(Value x, DType dtype);

Value operator+(Value a, Value b);
Value operator-(Value a, Value b);
Value operator*(Value a, Value b);
Value operator/(Value a, Value b);
Value operator-(Value x);
Value operator+(Value a, double b);
Value operator-(Value a, double b);
Value operator*(Value a, double b);
Value operator/(Value a, double b);
Value operator+(double a, Value b);
Value operator-(double a, Value b);
Value operator*(double a, Value b);
Value operator/(double a, Value b);

// Reductions; negative axes count from the end.
Value ReduceSum(Value x, std::vector<int64_t> axes, bool keepdims = false);
Value ReduceMax(Value x, std::vector<int64_t> axes, bool keepdims = false);
Value ReduceMin(Value x, std::vector<int64_t> axes, bool keepdims = false);
Value ReduceMean(Value x, std::vector<int64_t> axes, bool keepdims = false);

Value Matmul(Value a, Value b);
Value Reshape(Value x, Dims shape);
Value Transpose(Value x, std::vector<int64_t> perm);
// Result index i of dim d reads x at starts[d] + i * steps[d]; a step of 0
// repeats one index, which broadcasts a size-1 dim.
Value Slice(Value x, std::vector<int64_t> starts, std::vector<int64_t> steps, Dims shape);

}  // namespace kiln

#endif  // KILN_FRONTENDS_BUILDER_H_
