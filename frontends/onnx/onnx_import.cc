#include "frontends/onnx/onnx_import.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "frontends/onnx/onnx_context.h"
#include "frontends/onnx/onnx_model.h"
#include "frontends/onnx/onnx_ops.h"

namespace kiln {
namespace {

std::string Quoted(absl::string_view name) { return absl::StrCat("\"", absl::CEscape(name), "\""); }

class Importer {
 public:
  explicit Importer(int64_t opset) : opset_(opset) {}
  absl::StatusOr<Graph> Run(const onnx::GraphProto& graph);

 private:
  absl::Status AddInitializers(const onnx::GraphProto& graph);
  absl::Status AddInputs(const onnx::GraphProto& graph);
  absl::Status AddNode(const onnx::NodeProto& node);
  absl::StatusOr<std::vector<Value>> Outputs(const onnx::GraphProto& graph);

  const int64_t opset_;
  OnnxGraphState state_;
  absl::flat_hash_map<std::string, OnnxValue> values_;
};

absl::Status Importer::AddInitializers(const onnx::GraphProto& graph) {
  for (const onnx::TensorProto& tensor : graph.initializer()) {
    absl::StatusOr<OnnxTensor> t = DecodeOnnxTensor(tensor);
    if (!t.ok()) return t.status();
    OnnxValue v{.type = t->type, .shape = t->shape};
    v.known = *std::move(t);
    values_[tensor.name()] = std::move(v);
  }
  return absl::OkStatus();
}

absl::Status Importer::AddInputs(const onnx::GraphProto& graph) {
  for (const onnx::ValueInfoProto& input : graph.input()) {
    // Older exporters list initializers among the inputs too.
    if (values_.contains(input.name())) continue;
    const std::string label = absl::StrCat("graph input ", Quoted(input.name()));
    if (!input.type().has_tensor_type()) return absl::UnimplementedError(absl::StrCat(label, " is not a tensor"));
    const onnx::TypeProto::Tensor& type = input.type().tensor_type();
    if (type.elem_type() == onnx::TensorProto::INT64) {
      return absl::UnimplementedError(
          absl::StrCat(label, " is INT64; kiln's integers are i32, so give it as INT32"));
    }
    absl::StatusOr<DType> dtype = KilnDTypeOf(type.elem_type());
    if (!dtype.ok()) return absl::UnimplementedError(absl::StrCat(label, ": ", dtype.status().message()));
    Dims shape;
    for (const onnx::TensorShapeProto::Dimension& dim : type.shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() <= 0) {
        return absl::UnimplementedError(absl::StrCat(
            label, " has a dim ", dim.has_dim_param() ? Quoted(dim.dim_param()) : "without a size",
            "; kiln compiles static shapes, so export the model with fixed sizes"));
      }
      shape.push_back(dim.dim_value());
    }
    Value x = state_.builder().Input(state_.UniqueName(input.name()), *dtype, shape);
    if (!state_.builder().status().ok()) return state_.builder().status();
    values_[input.name()] = {.value = x, .type = type.elem_type(), .shape = shape};
  }
  return absl::OkStatus();
}

absl::Status Importer::AddNode(const onnx::NodeProto& node) {
  const std::string label = absl::StrCat("ONNX node ", Quoted(node.name()), " (", absl::CEscape(node.op_type()));
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    return absl::UnimplementedError(
        absl::StrCat(label, ", domain ", Quoted(node.domain()), "): ops outside the default domain are not supported"));
  }
  const OnnxOpImporter* importer = FindOnnxOp(node.op_type());
  if (importer == nullptr) {
    return absl::UnimplementedError(absl::StrCat(label, ", opset ", opset_, "): kiln does not import this op"));
  }
  std::vector<const OnnxValue*> inputs;
  for (const std::string& name : node.input()) {
    if (name.empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    auto it = values_.find(name);
    if (it == values_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ", opset ", opset_, "): input ", Quoted(name), " is not defined before it"));
    }
    inputs.push_back(&it->second);
  }
  OnnxContext context(node, opset_, std::move(inputs), state_);
  const int first_new_node = state_.builder().graph().size();
  if (context.num_inputs() == 0 && node.op_type() != "Constant") return context.Invalid("has no inputs");
  if (absl::Status s = (*importer)(context); !s.ok()) return s;
  if (absl::Status s = context.Finish(); !s.ok()) return s;
  // The kiln node holding each output made here takes the output's name.
  absl::flat_hash_set<NodeId> renamed;
  for (int i = 0; i < context.num_outputs(); ++i) {
    if (!context.wants_output(i)) continue;
    OnnxValue& v = context.outputs()[i];
    if (!v.known.has_value() && v.value.id() >= first_new_node && renamed.insert(v.value.id()).second) {
      state_.builder().Rename(v.value, state_.UniqueName(node.output(i)));
      if (!state_.builder().status().ok()) return context.Wrap(state_.builder().status());
    }
    values_[node.output(i)] = std::move(v);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Value>> Importer::Outputs(const onnx::GraphProto& graph) {
  std::vector<Value> outputs;
  absl::flat_hash_set<NodeId> used;
  for (const onnx::ValueInfoProto& output : graph.output()) {
    auto it = values_.find(output.name());
    if (it == values_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("graph output ", Quoted(output.name()), " is not computed"));
    }
    const OnnxValue& v = it->second;
    Value value = v.value;
    if (v.known.has_value()) {
      absl::StatusOr<DType> dtype = KilnDTypeOf(v.type);
      if (!dtype.ok()) return absl::UnimplementedError(absl::StrCat("graph output ", Quoted(output.name()), ": ", dtype.status().message()));
      value = state_.builder().Constant(HostTensor{.dtype = *dtype, .shape = v.shape, .data = v.known->data});
      value = value.Named(state_.UniqueName(output.name()));
    } else if (used.contains(value.id()) || state_.builder().graph().FindNode(output.name()).value_or(-1) != value.id()) {
      // An output whose value has another name (an input or a value passed
      // through Identity, or a second output of one value) is a view of it
      // under the output's name.
      value = state_.builder().Add({.name = state_.UniqueName(output.name()), .op = OpKind::kReshape, .shape = v.shape},
                                   {value});
    }
    if (!state_.builder().status().ok()) return state_.builder().status();
    used.insert(value.id());
    outputs.push_back(value);
  }
  if (outputs.empty()) return absl::InvalidArgumentError("the ONNX graph has no outputs");
  return outputs;
}

absl::StatusOr<Graph> Importer::Run(const onnx::GraphProto& graph) {
  if (absl::Status s = AddInitializers(graph); !s.ok()) return s;
  if (absl::Status s = AddInputs(graph); !s.ok()) return s;
  for (const onnx::NodeProto& node : graph.node()) {
    if (absl::Status s = AddNode(node); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<Value>> outputs = Outputs(graph);
  if (!outputs.ok()) return outputs.status();
  return state_.builder().Build(*outputs);
}

}  // namespace

absl::StatusOr<Graph> ImportOnnxModel(const onnx::ModelProto& model) {
  absl::StatusOr<int64_t> opset = DefaultOpset(model);
  if (!opset.ok()) return opset.status();
  return Importer(*opset).Run(model.graph());
}

absl::StatusOr<Graph> ImportOnnxFile(const std::string& path) {
  absl::StatusOr<onnx::ModelProto> model = LoadOnnxModel(path);
  if (!model.ok()) return model.status();
  absl::StatusOr<Graph> graph = ImportOnnxModel(*model);
  if (!graph.ok()) return absl::Status(graph.status().code(), absl::StrCat(path, ": ", graph.status().message()));
  return graph;
}

}  // namespace kiln
