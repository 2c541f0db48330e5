#include "frontends/graph_text.h"

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "graph/graph.h"

namespace kiln {
namespace {

namespace pbio = google::protobuf::io;

// The graph format nests two levels; anything deeper is not a kiln graph.
constexpr int kTextRecursionLimit = 4;

std::string Quoted(absl::string_view text) { return absl::StrCat("\"", absl::CEscape(text), "\""); }

// Shortest text that reads back as the same value: as an f32 when the value is
// one and the node's dtype is a float, otherwise as a double.
std::string FormatValue(double value, proto::DType dtype) {
  char buffer[64];
  const bool float_dtype = dtype == proto::F32 || dtype == proto::F16 || dtype == proto::BF16;
  const float as_float = static_cast<float>(value);
  std::to_chars_result result =
      float_dtype && (static_cast<double>(as_float) == value || std::isnan(value))
          ? std::to_chars(buffer, buffer + sizeof(buffer), as_float)
          : std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

template <typename Repeated>
void AppendList(std::string& out, absl::string_view field, const Repeated& values) {
  if (values.empty()) return;
  absl::StrAppend(&out, " ", field, ": [", absl::StrJoin(values, ", "), "]");
}

void AppendNode(std::string& out, const proto::NodeProto& node) {
  out += "node {";
  if (!node.name().empty()) absl::StrAppend(&out, " name: ", Quoted(node.name()));
  if (!node.op().empty()) absl::StrAppend(&out, " op: ", Quoted(node.op()));
  if (!node.operand().empty()) {
    std::vector<std::string> quoted;
    for (const std::string& operand : node.operand()) quoted.push_back(Quoted(operand));
    AppendList(out, "operand", quoted);
  }
  if (node.dtype() != proto::DTYPE_UNSPECIFIED) {
    absl::StrAppend(&out, " dtype: ", proto::DType_IsValid(node.dtype())
                                          ? proto::DType_Name(node.dtype())
                                          : absl::StrCat(static_cast<int>(node.dtype())));
  }
  AppendList(out, "shape", node.shape());
  if (node.value() != 0.0 || std::signbit(node.value())) {
    absl::StrAppend(&out, " value: ", FormatValue(node.value(), node.dtype()));
  }
  AppendList(out, "axes", node.axes());
  if (node.keepdims()) out += " keepdims: true";
  AppendList(out, "perm", node.perm());
  if (!node.data().empty()) absl::StrAppend(&out, " data: ", Quoted(node.data()));
  AppendList(out, "starts", node.starts());
  AppendList(out, "steps", node.steps());
  out += " }\n";
}

// Keeps the first error, with a 1-based position.
class FirstErrorCollector : public pbio::ErrorCollector {
 public:
  void AddError(int line, pbio::ColumnNumber column, const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat("line ", line + 1, ", column ", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

class IgnoreErrors : public pbio::ErrorCollector {
 public:
  void AddError(int, pbio::ColumnNumber, const std::string&) override {}
};

// Whether the text holds more than kMaxNodes top-level `node` fields, found by
// tokenizing only: parsing them first could take many gigabytes. Syntax
// errors are left for the parser to report.
bool HasTooManyNodes(absl::string_view text) {
  pbio::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  IgnoreErrors ignore;
  pbio::Tokenizer tokenizer(&input, &ignore);
  tokenizer.set_comment_style(pbio::Tokenizer::SH_COMMENT_STYLE);
  int depth = 0;
  int64_t nodes = 0;
  while (tokenizer.Next()) {
    const pbio::Tokenizer::Token& token = tokenizer.current();
    if (token.type == pbio::Tokenizer::TYPE_SYMBOL) {
      if (token.text == "{" || token.text == "<") ++depth;
      if (token.text == "}" || token.text == ">") --depth;
    } else if (depth == 0 && token.type == pbio::Tokenizer::TYPE_IDENTIFIER && token.text == "node") {
      if (++nodes > kMaxNodes) return true;
    }
  }
  return false;
}

}  // namespace

std::string GraphProtoToText(const proto::GraphProto& graph) {
  std::string out = absl::StrCat("format_version: ", graph.format_version(), "\n");
  for (const proto::NodeProto& node : graph.node()) AppendNode(out, node);
  for (const std::string& output : graph.output()) absl::StrAppend(&out, "output: ", Quoted(output), "\n");
  return out;
}

absl::StatusOr<proto::GraphProto> ParseGraphProtoText(absl::string_view text) {
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError(absl::StrCat("graph text of ", text.size(), " bytes is too large"));
  }
  if (HasTooManyNodes(text)) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph has more than the limit of ", kMaxNodes, " nodes"));
  }
  pbio::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.SetRecursionLimit(kTextRecursionLimit);
  proto::GraphProto graph;
  if (!parser.Parse(&input, &graph)) {
    return absl::InvalidArgumentError(
        errors.error().empty() ? std::string("graph text does not parse") : errors.error());
  }
  return graph;
}

}  // namespace kiln
