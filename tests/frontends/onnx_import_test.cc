// The ONNX importer on models built here: how ops expand, what is folded at
// import, and the exact refusal for everything kiln cannot express (the
// oracle comparisons are in onnx_models_test.cc).
#include "frontends/onnx/onnx_import.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/onnx/onnx_model.h"
#include "gmock/gmock.h"
#include "graph/reference.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;

// A model with one float input "x" of `shape` and the nodes added by the test.
class OnnxImportTest : public testing::Test {
 protected:
  void SetUp() override {
    model_.set_ir_version(8);
    Opset(17);
    Input("x", onnx::TensorProto::FLOAT, {2, 3});
  }

  void Opset(int64_t version) {
    model_.clear_opset_import();
    onnx::OperatorSetIdProto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(version);
  }
  void Input(const std::string& name, int32_t type, const std::vector<int64_t>& shape) {
    onnx::ValueInfoProto* input = graph()->add_input();
    input->set_name(name);
    onnx::TypeProto::Tensor* t = input->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  onnx::NodeProto* Node(const std::string& op, std::vector<std::string> inputs, std::string output) {
    onnx::NodeProto* node = graph()->add_node();
    node->set_name(output);
    node->set_op_type(op);
    for (const std::string& in : inputs) node->add_input(in);
    node->add_output(output);
    return node;
  }
  void Initializer(const std::string& name, std::vector<int64_t> values) {
    onnx::TensorProto* t = graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  void Output(const std::string& name) { graph()->add_output()->set_name(name); }
  onnx::GraphProto* graph() { return model_.mutable_graph(); }
  absl::Status Error() { return ImportOnnxModel(model_).status(); }

  onnx::ModelProto model_;
};

TEST_F(OnnxImportTest, ShapeSubgraphsFoldAndLeaveNoNodes) {
  Node("Shape", {"x"}, "s");
  Initializer("minus_one", {-1});
  Node("Concat", {"minus_one"}, "target")->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  Node("Reshape", {"x", "target"}, "y");
  Output("y");
  absl::StatusOr<Graph> g = ImportOnnxModel(model_);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->size(), 2);  // the input and one reshape
  EXPECT_EQ(g->node(1).op, OpKind::kReshape);
  EXPECT_EQ(g->node(1).name, "y");
  EXPECT_THAT(g->node(1).shape, ElementsAre(6));
}

TEST_F(OnnxImportTest, LayerNormalizationExpandsIntoItsParts) {
  Opset(17);
  graph()->clear_input();
  Input("x", onnx::TensorProto::FLOAT, {2, 3});
  Input("scale", onnx::TensorProto::FLOAT, {3});
  Node("LayerNormalization", {"x", "scale"}, "y");
  Output("y");
  absl::StatusOr<Graph> g = ImportOnnxModel(model_);
  ASSERT_TRUE(g.ok()) << g.status();
  std::vector<std::string> ops;
  for (const kiln::Node& n : g->nodes()) ops.push_back(std::string(OpName(n.op)));
  EXPECT_THAT(ops, ElementsAre("input", "input", "reduce_mean", "sub", "mul", "reduce_mean", "constant", "add",
                               "rsqrt", "mul", "mul"));
}

TEST_F(OnnxImportTest, UnsupportedThingsAreRefusedByName) {
  auto expect = [&](absl::string_view message) {
    const absl::Status s = Error();
    EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
    EXPECT_EQ(s.message(), message);
  };
  Node("Conv", {"x", "x"}, "c");
  Output("c");
  expect("ONNX node \"c\" (Conv, opset 17): kiln does not import this op");

  graph()->clear_node();
  onnx::AttributeProto* a = Node("Softmax", {"x"}, "s")->add_attribute();
  a->set_name("temperature");
  a->set_type(onnx::AttributeProto::FLOAT);
  expect("ONNX node \"s\" (Softmax, opset 17): attribute 'temperature' is not supported");

  graph()->clear_node();
  Node("Concat", {"x", "x"}, "s");
  expect("ONNX node \"s\" (Concat, opset 17): concatenating tensors computed at run time is not supported");

  graph()->clear_node();
  Node("Relu", {"x"}, "s")->set_domain("com.microsoft");
  expect("ONNX node \"s\" (Relu, domain \"com.microsoft\"): ops outside the default domain are not supported");

  graph()->clear_node();
  Node("Reshape", {"x", "x"}, "s");
  expect("ONNX node \"s\" (Reshape, opset 17): shape (input 1) must be known when the model is imported");

  graph()->clear_node();
  Node("Relu", {"x"}, "s");
  Opset(12);
  expect("the model uses opset 12 of the default ONNX domain; kiln imports opsets 13 to 18");
  Opset(17);

  graph()->clear_input();
  Input("x", onnx::TensorProto::FLOAT, {2, 3});
  graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("batch");
  expect("graph input \"x\" has a dim \"batch\"; kiln compiles static shapes, so export the model with fixed sizes");
  graph()->clear_input();
  Input("x", onnx::TensorProto::INT64, {2});
  expect("graph input \"x\" is INT64; kiln's integers are i32, so give it as INT32");
  graph()->clear_input();
  Input("x", onnx::TensorProto::DOUBLE, {2});
  expect("graph input \"x\": element type DOUBLE is not supported");
}

TEST_F(OnnxImportTest, BadModelsAreInvalid) {
  Node("Relu", {"nothing"}, "s");
  Output("s");
  EXPECT_EQ(Error().message(), "ONNX node \"s\" (Relu, opset 17): input \"nothing\" is not defined before it");
  graph()->clear_node();
  Node("Relu", {"x"}, "s");
  graph()->clear_output();
  Output("t");
  EXPECT_EQ(Error().message(), "graph output \"t\" is not computed");
  EXPECT_EQ(ParseOnnxModel("\x08\x96", ".").status().message(), "not a valid ONNX model (malformed or truncated protobuf)");
}

// Found by fuzz/onnx_importer_fuzzer: the product of a target shape's known
// entries overflowed int64 before the -1 entry was inferred.
TEST_F(OnnxImportTest, ReshapeTargetsPastTheElementLimitAreRefused) {
  Initializer("target", {int64_t{1} << 53, 1093027228933, -1});
  Node("Reshape", {"x", "target"}, "y");
  Output("y");
  EXPECT_EQ(Error().message(),
            "ONNX node \"y\" (Reshape, opset 17): shape [9007199254740992,1093027228933,-1] has more than 2^48 "
            "elements");
}

TEST_F(OnnxImportTest, HostileModelsGetAnErrorNotACrash) {
  Initializer("a", {1, 5});
  Initializer("b", {4, 2});
  Initializer("huge", {1 << 20, 1 << 20});
  Node("Max", {"a", "b", "a"}, "m");  // known and variadic: folded left to right
  Node("Reshape", {"x", "m"}, "y");  // [2,3] -> [4,5]: not the same count
  Output("y");
  EXPECT_EQ(Error().message(), "ONNX node \"y\" (Reshape, opset 17): cannot reshape [2,3] to [4,5]");

  graph()->clear_node();
  Node("Unsqueeze", {"x", "a"}, "y");
  graph()->mutable_initializer(0)->set_int64_data(1, 1);  // axes [1, 1]
  EXPECT_EQ(Error().message(), "ONNX node \"y\" (Unsqueeze, opset 17): axis 1 is listed twice");

  graph()->clear_node();
  Node("ConstantOfShape", {"huge"}, "y");
  EXPECT_EQ(Error().message(),
            "ONNX node \"y\" (ConstantOfShape, opset 17): computing [1048576,1048576] at import time exceeds the "
            "limit of 67108864 elements");

  graph()->clear_node();
  Node("Relu", {"x"}, "y");
  onnx::TensorProto* lie = graph()->add_initializer();
  lie->set_name("lie");
  lie->set_data_type(onnx::TensorProto::FLOAT);
  lie->add_dims(int64_t{1} << 40);
  lie->set_raw_data("abcd");
  EXPECT_EQ(Error().message(), "tensor \"lie\": FLOAT shape [1099511627776] needs 1099511627776 elements; it holds 1");

  // Found by fuzz/onnx_importer_fuzzer: a float tensor holding NaN as a
  // Reshape target was converted to int64 (undefined behaviour).
  graph()->clear_node();
  graph()->mutable_initializer()->RemoveLast();  // the lie
  onnx::TensorProto* nan_target = graph()->add_initializer();
  nan_target->set_name("nan_target");
  nan_target->set_data_type(onnx::TensorProto::FLOAT);
  nan_target->add_dims(2);
  nan_target->add_float_data(std::nanf(""));
  nan_target->add_float_data(3);
  Node("Reshape", {"x", "nan_target"}, "y");
  EXPECT_EQ(Error().message(),
            "ONNX node \"y\" (Reshape, opset 17): shape (input 1) holds nan, which is not a 64-bit integer");
  nan_target->set_float_data(0, 2.5f);
  EXPECT_EQ(Error().message(),
            "ONNX node \"y\" (Reshape, opset 17): shape (input 1) holds 2.5, which is not a 64-bit integer");
  graph()->clear_node();
  Node("Gather", {"x", "nan_target"}, "y");
  EXPECT_EQ(Error().message(),
            "ONNX node \"y\" (Gather, opset 17): indices (input 1) holds 2.5, which is not a 64-bit integer");
  graph()->clear_node();
  nan_target->clear_dims();
  nan_target->clear_float_data();
  nan_target->add_float_data(std::nanf(""));  // a scalar NaN
  Node("Range", {"nan_target", "nan_target", "nan_target"}, "y");
  EXPECT_EQ(Error().message(),
            "ONNX node \"y\" (Range, opset 17): start, limit and delta must give a finite count");
}

TEST_F(OnnxImportTest, ExternalDataMustStayInTheModelsFolder) {
  const fs::path dir = fs::path(testing::TempDir()) / absl::StrCat("kiln_onnx_external_", getpid());
  fs::create_directories(dir);
  onnx::TensorProto* w = graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* location = w->add_external_data();
  location->set_key("location");
  Node("Add", {"x", "w"}, "y");
  Output("y");
  auto load = [&](const std::string& where) {
    location->set_value(where);
    const std::string path = (dir / "m.onnx").string();
    std::ofstream(path, std::ios::binary) << model_.SerializeAsString();
    return ImportOnnxFile(path);
  };
  EXPECT_EQ(load("../secret").status().message(),
            (dir / "m.onnx").string() + ": tensor \"w\": external data location \"../secret\" must name a file inside the model's folder");
  EXPECT_EQ(load("/etc/passwd").status().message(),
            (dir / "m.onnx").string() + ": tensor \"w\": external data location \"/etc/passwd\" must name a file inside the model's folder");
  std::ofstream(dir / "w.bin", std::ios::binary) << std::string(8, '\0');
  EXPECT_EQ(load("w.bin").status().message(),
            (dir / "m.onnx").string() + ": tensor \"w\": FLOAT shape [3] needs 3 elements; it holds 2");
  onnx::StringStringEntryProto* offset = w->add_external_data();
  offset->set_key("offset");
  offset->set_value("4");
  EXPECT_EQ(load("w.bin").status().message(),
            (dir / "m.onnx").string() + ": tensor \"w\": FLOAT shape [3] needs 3 elements; it holds 1");
  offset->set_value("9");
  EXPECT_EQ(load("w.bin").status().message(),
            (dir / "m.onnx").string() + ": tensor \"w\": external data: " + (dir / "w.bin").string() +
                " has 8 bytes; the tensor needs bytes 9 to 8");
  offset->set_value("0");
  std::ofstream(dir / "w.bin", std::ios::binary) << std::string(12, '\0');
  absl::StatusOr<Graph> g = load("w.bin");
  ASSERT_TRUE(g.ok()) << g.status();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
