// What an ONNX op's expansion works with (internal to the importer): its
// inputs, either known at import time (OnnxTensor) or computed at run time (a
// kiln Value); its attributes, each of which must be read or the node is
// refused; and the builder its kiln nodes go into, named after the node.
//
//   absl::Status ImportRelu(OnnxContext& c) {
//     if (c.AllKnown()) return c.FoldElementwise(OpKind::kRelu);   // known at import
//     absl::StatusOr<Value> x = c.Runtime(0);
//     if (!x.ok()) return x.status();
//     return c.SetOutput(0, c.Emit({.op = OpKind::kRelu}, {*x}));  // named "<node>/relu"
//   }
#ifndef KILN_FRONTENDS_ONNX_ONNX_CONTEXT_H_
#define KILN_FRONTENDS_ONNX_ONNX_CONTEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "frontends/builder.h"
#include "frontends/onnx/onnx_tensor.h"
#include "onnx/onnx_pb.h"

namespace kiln {

// One ONNX value: known at import time, or a kiln node (then `value` is set
// and `known` empty). `type` is the ONNX element type either way.
// The most elements a value computed at import time may have: folding is for
// shapes, masks and small constants, not for making large tensors.
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 26;

struct OnnxValue {
  std::optional<OnnxTensor> known;
  Value value;
  int32_t type = onnx::TensorProto::FLOAT;
  Dims shape;
};

// The state of one import that the op expansions share: the builder, the
// names given so far, and kiln nodes made for known values.
class OnnxGraphState {
 public:
  GraphBuilder& builder() { return builder_; }
  // A valid, unused kiln node name derived from `base`.
  std::string UniqueName(absl::string_view base);
  // The kiln constant made for a known ONNX value, so that a weight used
  // twice is stored once.
  absl::flat_hash_map<std::string, Value>& constants() { return constants_; }

 private:
  GraphBuilder builder_;
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<std::string, Value> constants_;
};

class OnnxContext {
 public:
  OnnxContext(const onnx::NodeProto& node, int64_t opset, std::vector<const OnnxValue*> inputs,
              OnnxGraphState& state);

  const onnx::NodeProto& node() const { return node_; }
  int64_t opset() const { return opset_; }

  // Inputs; an empty name in the node means an omitted optional input.
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool has_input(int i) const { return i < num_inputs() && inputs_[i] != nullptr; }
  const OnnxValue& input(int i) const { return *inputs_[i]; }
  bool AllKnown() const;
  // Input i as a known tensor, or an error saying it must be one.
  absl::StatusOr<const OnnxTensor*> Known(int i, absl::string_view what) const;
  // Known input i as integers (axes, shapes, starts...).
  absl::StatusOr<std::vector<int64_t>> KnownInts(int i, absl::string_view what) const;
  // Input i as a kiln node; a known tensor becomes a tensor constant.
  absl::StatusOr<Value> Runtime(int i);
  // The same for an elementwise operand of a result of rank `result_rank`: a
  // known single element of no higher rank is a scalar immediate instead,
  // since broadcasting it gives the same result.
  absl::StatusOr<Value> Operand(int i, size_t result_rank);

  // Attributes. Each getter marks the attribute read; Finish refuses a node
  // with an attribute no getter read.
  bool HasAttribute(absl::string_view name) const;
  absl::StatusOr<int64_t> Int(absl::string_view name, int64_t default_value);
  absl::StatusOr<float> Float(absl::string_view name, float default_value);
  absl::StatusOr<std::vector<int64_t>> Ints(absl::string_view name);
  absl::StatusOr<std::vector<float>> Floats(absl::string_view name);
  absl::StatusOr<std::optional<OnnxTensor>> Tensor(absl::string_view name);
  // Reads an attribute kiln accepts only at one value (e.g. a training flag).
  absl::Status ExpectInt(absl::string_view name, int64_t only, absl::string_view why);

  // OK when a tensor of `shape` may be computed at import time.
  absl::Status CheckFoldable(const Dims& shape) const;

  // Errors naming the node, the op and the opset.
  absl::Status Unimplemented(absl::string_view problem) const;
  absl::Status Invalid(absl::string_view problem) const;
  // A kiln error met while expanding (from the builder), with the node's label.
  absl::Status Wrap(const absl::Status& status) const;

  // Builder for the expansion; nodes get names derived from this node's.
  GraphBuilder& builder() { return state_.builder(); }
  Value Emit(NodeSpec spec, std::initializer_list<Value> operands);
  Value Scalar(double value, DType dtype);
  // x broadcast (NumPy rules) to `shape`: a reshape adds leading 1s and a
  // slice with step 0 repeats the size-1 dims. Nothing when x has the shape.
  Value BroadcastTo(Value x, const Dims& shape);

  // Results.
  int num_outputs() const { return node_.output_size(); }
  bool wants_output(int i) const { return i < num_outputs() && !node_.output(i).empty(); }
  absl::Status SetOutput(int i, absl::StatusOr<Value> value);
  absl::Status SetKnown(int i, OnnxTensor tensor);
  std::vector<OnnxValue>& outputs() { return outputs_; }
  // Checks attributes and outputs once the expansion is done.
  absl::Status Finish();

  // Folds an elementwise op over known inputs (NumPy broadcasting), the
  // result typed `result_type` (-1: the type of input `type_from`).
  absl::Status FoldElementwise(OpKind op, int32_t result_type = -1, int type_from = 0);

 private:
  const onnx::AttributeProto* FindAttribute(absl::string_view name);
  std::string Label() const;

  const onnx::NodeProto& node_;
  const int64_t opset_;
  std::vector<const OnnxValue*> inputs_;
  OnnxGraphState& state_;
  std::vector<OnnxValue> outputs_;
  std::vector<bool> set_;
  absl::flat_hash_set<std::string> read_attributes_;
  std::string stem_;  // base of the names of this node's kiln nodes
};

}  // namespace kiln

#endif  // KILN_FRONTENDS_ONNX_ONNX_CONTEXT_H_
