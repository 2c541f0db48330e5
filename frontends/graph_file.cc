#include "frontends/graph_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "frontends/graph_proto.h"
#include "frontends/graph_text.h"
#include "frontends/onnx/onnx_import.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/unknown_field_set.h"
#include "google/protobuf/wire_format_lite.h"
#include "graph/atomic_file.h"
#include "graph/verifier.h"

namespace kiln {
namespace {

using google::protobuf::internal::WireFormatLite;

// The graph format nests two levels; deeper nesting (unknown groups) is junk.
constexpr int kBinaryRecursionLimit = 4;

enum class FileFormat { kText, kBinary, kOnnx };

absl::StatusOr<FileFormat> FormatOf(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".textproto" || extension == ".pbtxt" || extension == ".txtpb") {
    return FileFormat::kText;
  }
  if (extension == ".pb" || extension == ".binpb") return FileFormat::kBinary;
  if (extension == ".onnx") return FileFormat::kOnnx;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown graph file extension \"", absl::CEscape(extension),
      "\" (use .textproto, .pbtxt or .txtpb for text, .pb or .binpb for binary, .onnx for an ONNX model)"));
}

absl::Status WithPath(absl::string_view path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

absl::Status TooLarge(uint64_t bytes) {
  return absl::InvalidArgumentError(absl::StrCat("graph file of ", bytes, " bytes exceeds the limit of ",
                                                 kMaxGraphFileBytes, " bytes"));
}

// Counts the top-level `node` fields (up to kMaxNodes + 1) by skipping over
// them, so that a file claiming millions of nodes is refused before any of
// them is built. Malformed bytes end the count; the parser reports them.
int64_t CountBinaryNodes(absl::string_view bytes) {
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kBinaryRecursionLimit);
  int64_t nodes = 0;
  while (const uint32_t tag = input.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == proto::GraphProto::kNodeFieldNumber &&
        ++nodes > kMaxNodes) {
      break;
    }
    if (!WireFormatLite::SkipField(&input, tag)) break;
  }
  return nodes;
}

// Protobuf keeps fields it does not know instead of failing; a kiln graph
// holds none, and silently dropping one could change what the file means.
absl::Status RefuseUnknownFields(const proto::GraphProto& graph) {
  auto first_unknown = [](const google::protobuf::Message& message) -> int {
    const google::protobuf::UnknownFieldSet& unknown = message.GetReflection()->GetUnknownFields(message);
    return unknown.empty() ? 0 : unknown.field(0).number();
  };
  if (const int field = first_unknown(graph); field != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the graph holds field number ", field, ", which the kiln graph format does not have"));
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    if (const int field = first_unknown(graph.node(i)); field != 0) {
      // The name is not validated yet: escaped and cut short.
      const std::string& name = graph.node(i).name();
      return absl::InvalidArgumentError(absl::StrCat("node ", i, " (\"", absl::CEscape(name.substr(0, 64)),
                                                     name.size() > 64 ? "...\"" : "\"", ") holds field number ",
                                                     field, ", which the kiln graph format does not have"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<proto::GraphProto> ParseProtoBinary(absl::string_view bytes) {
  if (bytes.size() > static_cast<uint64_t>(kMaxGraphFileBytes)) return TooLarge(bytes.size());
  if (CountBinaryNodes(bytes) > kMaxNodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("graph has more than the limit of ", kMaxNodes, " nodes"));
  }
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kBinaryRecursionLimit);
  proto::GraphProto graph;
  // protobuf logs invalid UTF-8 in names to stderr; the returned Status
  // already says the bytes are bad.
  google::protobuf::LogSilencer silence_protobuf_log;
  if (!graph.ParseFromCodedStream(&input) || !input.ConsumedEntireMessage()) {
    return absl::InvalidArgumentError(
        "the bytes are not a valid kiln graph (malformed or truncated binary protobuf)");
  }
  if (absl::Status s = RefuseUnknownFields(graph); !s.ok()) return s;
  return graph;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open");
  struct stat info;
  absl::Status status;
  std::string contents;
  if (fstat(fd, &info) != 0) {
    status = absl::ErrnoToStatus(errno, "cannot stat");
  } else if (!S_ISREG(info.st_mode)) {
    status = absl::InvalidArgumentError("not a regular file");
  } else if (info.st_size > kMaxGraphFileBytes) {
    status = TooLarge(info.st_size);
  } else {
    contents.resize(info.st_size);
    size_t done = 0;
    while (done < contents.size()) {
      const ssize_t n = read(fd, contents.data() + done, contents.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = absl::ErrnoToStatus(errno, "cannot read");
        break;
      }
      if (n == 0) break;  // the file shrank while we read it
      done += n;
    }
    contents.resize(done);
  }
  close(fd);
  if (!status.ok()) return status;
  return contents;
}

}  // namespace

absl::StatusOr<Graph> ParseGraphBinary(absl::string_view bytes) {
  absl::StatusOr<proto::GraphProto> graph_proto = ParseProtoBinary(bytes);
  if (!graph_proto.ok()) return graph_proto.status();
  return FromProto(*graph_proto);
}

absl::StatusOr<Graph> ParseGraphText(absl::string_view text) {
  if (text.size() > static_cast<uint64_t>(kMaxGraphFileBytes)) return TooLarge(text.size());
  absl::StatusOr<proto::GraphProto> graph_proto = ParseGraphProtoText(text);
  if (!graph_proto.ok()) return graph_proto.status();
  return FromProto(*graph_proto);
}

std::string SerializeGraphBinary(const Graph& graph) { return ToProto(graph).SerializeAsString(); }

std::string SerializeGraphText(const Graph& graph) { return GraphProtoToText(ToProto(graph)); }

absl::StatusOr<Graph> LoadGraphFile(const std::string& path) {
  absl::StatusOr<FileFormat> format = FormatOf(path);
  if (!format.ok()) return WithPath(path, format.status());
  if (*format == FileFormat::kOnnx) return ImportOnnxFile(path);
  absl::StatusOr<std::string> contents = ReadWholeFile(path);
  if (!contents.ok()) return WithPath(path, contents.status());
  absl::StatusOr<Graph> graph =
      *format == FileFormat::kText ? ParseGraphText(*contents) : ParseGraphBinary(*contents);
  if (!graph.ok()) return WithPath(path, graph.status());
  return graph;
}

absl::Status SaveGraphFile(const Graph& graph, const std::string& path) {
  absl::StatusOr<FileFormat> format = FormatOf(path);
  if (!format.ok()) return WithPath(path, format.status());
  if (*format == FileFormat::kOnnx) {
    return WithPath(path, absl::InvalidArgumentError(
                              "kiln writes its own graph format (.textproto or .pb), not ONNX"));
  }
  if (absl::Status s = VerifyGraph(graph); !s.ok()) return WithPath(path, s);
  const std::string bytes =
      *format == FileFormat::kText ? SerializeGraphText(graph) : SerializeGraphBinary(graph);
  if (absl::Status s = WriteFileAtomically(path, bytes); !s.ok()) return WithPath(path, s);
  return absl::OkStatus();
}

}  // namespace kiln
