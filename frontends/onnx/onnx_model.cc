#include "frontends/onnx/onnx_model.h"

#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/logging.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadRange(const fs::path& path, int64_t offset, int64_t length) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path.string()));
  in.seekg(0, std::ios::end);
  const int64_t size = static_cast<int64_t>(in.tellg());
  if (length < 0) length = size - offset;
  if (offset < 0 || offset > size || length < 0 || offset + length > size) {
    return absl::InvalidArgumentError(absl::StrCat(path.string(), " has ", size, " bytes; the tensor needs bytes ",
                                                   offset, " to ", offset + length));
  }
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path.string()));
  return bytes;
}

absl::Status LoadExternalData(onnx::TensorProto& tensor, const fs::path& directory) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto& entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if ((entry.key() == "offset" && !absl::SimpleAtoi(entry.value(), &offset)) ||
               (entry.key() == "length" && !absl::SimpleAtoi(entry.value(), &length))) {
      return absl::InvalidArgumentError(absl::StrCat("tensor \"", tensor.name(), "\": external data ", entry.key(),
                                                     " \"", absl::CEscape(entry.value()), "\" is not a number"));
    }
  }
  const fs::path relative = fs::path(location).lexically_normal();
  if (location.empty() || relative.is_absolute() || relative.begin() == relative.end() || *relative.begin() == "..") {
    return absl::InvalidArgumentError(absl::StrCat("tensor \"", tensor.name(), "\": external data location \"",
                                                   absl::CEscape(location),
                                                   "\" must name a file inside the model's folder"));
  }
  absl::StatusOr<std::string> bytes = ReadRange(directory / relative, offset, length);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat("tensor \"", tensor.name(), "\": external data: ", bytes.status().message()));
  }
  tensor.set_raw_data(*std::move(bytes));
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
  return absl::OkStatus();
}

absl::Status LoadGraphExternalData(onnx::GraphProto& graph, const fs::path& directory) {
  for (onnx::TensorProto& tensor : *graph.mutable_initializer()) {
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
      if (absl::Status s = LoadExternalData(tensor, directory); !s.ok()) return s;
    }
  }
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_t() && attribute.t().data_location() == onnx::TensorProto::EXTERNAL) {
        if (absl::Status s = LoadExternalData(*attribute.mutable_t(), directory); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<onnx::ModelProto> ParseOnnxModel(const std::string& bytes, const std::string& directory) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(absl::StrCat("an ONNX file of ", bytes.size(),
                                                   " bytes exceeds protobuf's 2 GiB; store the weights as external data"));
  }
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetTotalBytesLimit(INT_MAX);
  onnx::ModelProto model;
  google::protobuf::LogSilencer silence_protobuf_log;
  if (!model.ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError("not a valid ONNX model (malformed or truncated protobuf)");
  }
  if (!model.has_graph()) return absl::InvalidArgumentError("the ONNX model has no graph");
  if (absl::Status s = LoadGraphExternalData(*model.mutable_graph(), directory); !s.ok()) return s;
  return model;
}

absl::StatusOr<onnx::ModelProto> LoadOnnxModel(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream contents;
  contents << in.rdbuf();
  absl::StatusOr<onnx::ModelProto> model =
      ParseOnnxModel(contents.str(), fs::path(path).parent_path().string());
  if (!model.ok()) return absl::Status(model.status().code(), absl::StrCat(path, ": ", model.status().message()));
  return model;
}

absl::StatusOr<int64_t> DefaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (!opset.domain().empty() && opset.domain() != "ai.onnx") continue;
    if (opset.version() < kMinOnnxOpset || opset.version() > kMaxOnnxOpset) {
      return absl::UnimplementedError(absl::StrCat("the model uses opset ", opset.version(),
                                                   " of the default ONNX domain; kiln imports opsets ",
                                                   kMinOnnxOpset, " to ", kMaxOnnxOpset));
    }
    return opset.version();
  }
  return absl::InvalidArgumentError("the model imports no opset of the default ONNX domain");
}

}  // namespace kiln
