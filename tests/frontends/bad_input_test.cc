// Malformed and hostile graph files: each gets a clear InvalidArgument error
// naming the node and the problem, never a crash or a hang.
#include <cstdint>
#include <random>
#include <string>

#include "frontends/graph_file.h"
#include "frontends/graph_proto.h"
#include "frontends/workloads.h"
#include "google/protobuf/arena.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

std::string Error(const absl::StatusOr<Graph>& graph) {
  if (graph.ok()) return "(no error)";
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument) << graph.status();
  return std::string(graph.status().message());
}

// A version-1 text file holding `nodes` with output `output`.
std::string TextGraph(const std::string& nodes, const std::string& output = "y") {
  return "format_version: 1\n" + nodes + "\noutput: \"" + output + "\"\n";
}

constexpr char kNotAGraph[] =
    "the bytes are not a valid kiln graph (malformed or truncated binary protobuf)";

TEST(BadInputTest, EveryTruncationOfABinaryGraphFails) {
  absl::StatusOr<Graph> gelu = BuildWorkload("gelu_naive", DType::kF32, {64, 64});
  ASSERT_TRUE(gelu.ok()) << gelu.status();
  const std::string bytes = SerializeGraphBinary(*gelu);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    absl::StatusOr<Graph> graph = ParseGraphBinary(absl::string_view(bytes).substr(0, cut));
    ASSERT_FALSE(graph.ok()) << "cut at " << cut;
    EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument) << graph.status();
  }
  EXPECT_EQ(Error(ParseGraphBinary("")), "graph has no format_version; this kiln reads version 2");
  // Inside the output's name, then inside the last node.
  EXPECT_EQ(Error(ParseGraphBinary(absl::string_view(bytes).substr(0, bytes.size() - 1))), kNotAGraph);
  EXPECT_EQ(Error(ParseGraphBinary(absl::string_view(bytes).substr(0, bytes.size() - 5))), kNotAGraph);
  // Right before the output: every node is intact, but nothing is an output.
  EXPECT_EQ(Error(ParseGraphBinary(absl::string_view(bytes).substr(0, bytes.size() - 3))),
            "graph has no outputs");
}

TEST(BadInputTest, RandomBytesNeverParse) {
  std::mt19937_64 random(20261129);
  for (int trial = 0; trial < 5000; ++trial) {
    std::string bytes(random() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    absl::StatusOr<Graph> graph = ParseGraphBinary(bytes);
    ASSERT_FALSE(graph.ok()) << "trial " << trial;
    ASSERT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument) << graph.status();
  }
}

TEST(BadInputTest, RandomlyMutatedFilesFailCleanlyOrStayValid) {
  absl::StatusOr<Graph> softmax = BuildWorkload("softmax_naive", DType::kF32, {8, 16});
  ASSERT_TRUE(softmax.ok()) << softmax.status();
  const std::string bytes = SerializeGraphBinary(*softmax);
  const std::string text = SerializeGraphText(*softmax);
  std::mt19937_64 random(7);
  int failures = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string mutated_bytes = bytes;
    std::string mutated_text = text;
    for (int i = 0; i < 3; ++i) {
      mutated_bytes[random() % mutated_bytes.size()] = static_cast<char>(random());
      mutated_text[random() % mutated_text.size()] = static_cast<char>(random());
    }
    for (const absl::StatusOr<Graph>& graph :
         {ParseGraphBinary(mutated_bytes), ParseGraphText(mutated_text)}) {
      if (graph.ok()) continue;
      ++failures;
      ASSERT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument) << graph.status();
      ASSERT_FALSE(graph.status().message().empty());
    }
  }
  EXPECT_GT(failures, 3000);
}

TEST(BadInputTest, DeeplyNestedBytesAreRefused) {
  EXPECT_EQ(Error(ParseGraphBinary(std::string(100000, '\x0b'))), kNotAGraph);  // start-group tags
  std::string nested;
  for (int i = 0; i < 10000; ++i) nested += "\x12\x80\x01";  // node { node { ...
  EXPECT_EQ(Error(ParseGraphBinary(nested)), kNotAGraph);
}

// Protobuf would keep unknown fields and let the parse succeed; a binary
// file is refused for them just as a text file is (TextSyntaxErrors...).
TEST(BadInputTest, UnknownFieldsInBinaryAreRefused) {
  absl::StatusOr<Graph> graph = BuildWorkload("row_sum", DType::kF32, {4, 8});
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::string bytes = SerializeGraphBinary(*graph);
  // Field 17, varint 1, at the top level.
  EXPECT_EQ(Error(ParseGraphBinary(bytes + "\x88\x01\x01")),
            "the graph holds field number 17, which the kiln graph format does not have");
  // Field 40, length-delimited "ab", inside the first node.
  proto::GraphProto with_node_field;
  ASSERT_TRUE(with_node_field.ParseFromString(bytes));
  with_node_field.mutable_node(0)->GetReflection()->MutableUnknownFields(with_node_field.mutable_node(0))
      ->AddLengthDelimited(40, "ab");
  EXPECT_EQ(Error(ParseGraphBinary(with_node_field.SerializeAsString())),
            "node 0 (\"x\") holds field number 40, which the kiln graph format does not have");
  // A group (wire type 3) of an unknown number, after a node.
  EXPECT_EQ(Error(ParseGraphBinary(bytes + "\xa3\x06\xa4\x06")),
            "the graph holds field number 100, which the kiln graph format does not have");
}

TEST(BadInputTest, TextSyntaxErrorsGiveLineAndColumn) {
  EXPECT_EQ(Error(ParseGraphText("format_version: 1\nnode { name: \"x\" op: \"input\" shape: [4, abc] }\n")),
            "line 2, column 41: Expected integer, got: abc");
  EXPECT_EQ(Error(ParseGraphText("format_version: 1\n\n  node { nmae: \"x\" }\n")),
            "line 3, column 14: Message type \"kiln.proto.NodeProto\" has no field named \"nmae\".");
  EXPECT_EQ(Error(ParseGraphText("format_version: 1\nnode { name: \"x\" dtype: F64 }\n")),
            "line 2, column 29: Unknown enumeration value of \"F64\" for field \"dtype\".");
  EXPECT_EQ(Error(ParseGraphText("format_version: 1\nnode { name: \"x\"\n")),
            "line 3, column 1: Expected identifier, got: ");
}

TEST(BadInputTest, UnknownOp) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "x" op: "input" dtype: F32 shape: [4] }
              node { name: "y" op: "gelu" operand: "x" }
            )pb"))),
            "node \"y\": unknown op \"gelu\"");
}

TEST(BadInputTest, DanglingOperand) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "x" op: "input" dtype: F32 shape: [4] }
              node { name: "t3" op: "mul" operand: ["x", "q"] }
              node { name: "y" op: "neg" operand: "t3" }
            )pb"))),
            "node \"t3\" (mul): operand \"q\" is not defined");
}

TEST(BadInputTest, Cycles) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "x" op: "input" dtype: F32 shape: [4] }
              node { name: "b" op: "add" operand: ["x", "a"] }
              node { name: "a" op: "neg" operand: "b" }
              node { name: "y" op: "exp" operand: "a" }
            )pb"))),
            "cycle through nodes \"b\" -> \"a\" -> \"b\"");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "y" op: "exp" operand: "y" })pb"))),
            "cycle through nodes \"y\" -> \"y\"");
  // A long cycle is named by its first and last few nodes.
  std::string nodes;
  for (int i = 0; i < 20; ++i) {
    nodes += absl::StrCat("node { name: \"n", i, "\" op: \"neg\" operand: \"n", (i + 1) % 20, "\" }\n");
  }
  EXPECT_EQ(Error(ParseGraphText(TextGraph(nodes, "n0"))),
            "cycle through nodes \"n0\" -> \"n19\" -> \"n18\" -> \"n17\" -> \"n16\" -> \"n15\" -> "
            "\"n14\" -> \"n13\" -> ... -> \"n0\" (20 nodes)");
}

TEST(BadInputTest, DuplicateNames) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "x" op: "input" dtype: F32 shape: [4] }
              node { name: "x" op: "neg" operand: "x" }
              node { name: "y" op: "neg" operand: "x" }
            )pb"))),
            "node \"x\" (neg): name is already used by another node");
}

TEST(BadInputTest, BadDims) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "y" op: "input" dtype: F32 shape: [-1, 4] })pb"))),
            "node \"y\" (input): shape [-1,4] has a negative dim");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "y" op: "input" dtype: F32 shape: [4, 0] })pb"))),
            "node \"y\" (input): shape [4,0] has a zero dim at axis 1; empty tensors are not supported");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(
                R"pb(node { name: "y" op: "input" dtype: F32 shape: [4294967296, 4294967296] })pb"))),
            "node \"y\" (input): shape [4294967296,4294967296] has more than 2^48 elements");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(
                R"pb(node { name: "y" op: "input" dtype: F32 shape: [9223372036854775807, 2] })pb"))),
            "node \"y\" (input): shape [9223372036854775807,2] has more than 2^48 elements");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(
                R"pb(node { name: "y" op: "input" dtype: F32 shape: [1, 1, 1, 1, 1, 1, 1, 1, 1] })pb"))),
            "node \"y\" (input): rank 9 exceeds the maximum rank 8");
}

// Inferred shapes are checked like input shapes: these reproducers once
// passed `check` and overflowed int64 during planning.
TEST(BadInputTest, InferredShapesPastTheElementLimit) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "a" op: "input" dtype: F32 shape: [4294967296, 1] }
              node { name: "b" op: "input" dtype: F32 shape: [1, 4294967296] }
              node { name: "y" op: "add" operand: ["a", "b"] }
            )pb"))),
            "node \"y\" (add): shape [4294967296,4294967296] has more than 2^48 elements");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "a" op: "input" dtype: BF16 shape: [1099511627776, 1] }
              node { name: "b" op: "input" dtype: BF16 shape: [1, 1099511627776] }
              node { name: "y" op: "matmul" operand: ["a", "b"] }
            )pb"))),
            "node \"y\" (matmul): shape [1099511627776,1099511627776] has more than 2^48 elements");
}

TEST(BadInputTest, BroadcastMismatch) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "x" op: "input" dtype: F32 shape: [16384, 16384] }
              node { name: "b" op: "input" dtype: F32 shape: [3] }
              node { name: "y" op: "add" operand: ["x", "b"] }
            )pb"))),
            "node \"y\" (add): shapes [16384,16384] and [3] cannot broadcast");
}

TEST(BadInputTest, MatmulInnerDimensionMismatch) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "a" op: "input" dtype: BF16 shape: [4, 5] }
              node { name: "b" op: "input" dtype: BF16 shape: [6, 7] }
              node { name: "y" op: "matmul" operand: ["a", "b"] }
            )pb"))),
            "node \"y\" (matmul): inner dims differ: [4,5] x [6,7]");
}

TEST(BadInputTest, ReductionAxisOutOfRange) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "x" op: "input" dtype: F32 shape: [4, 4] }
              node { name: "y" op: "reduce_sum" operand: "x" axes: 2 }
            )pb"))),
            "node \"y\" (reduce_sum): axis 2 is out of range for rank 2 operand [4,4]");
}

TEST(BadInputTest, WrongOperandCount) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(
              node { name: "x" op: "input" dtype: F32 shape: [4] }
              node { name: "y" op: "exp" operand: ["x", "x"] }
            )pb"))),
            "node \"y\" (exp): takes 1 operand, got 2");
}

TEST(BadInputTest, Outputs) {
  const std::string x = R"pb(node { name: "x" op: "input" dtype: F32 shape: [4] })pb";
  EXPECT_EQ(Error(ParseGraphText("format_version: 1\n" + x)), "graph has no outputs");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(x, "z"))), "output \"z\" names no node");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(x, "x") + "output: \"x\"\n")),
            "node \"x\" (input) is listed as an output twice");
}

TEST(BadInputTest, FormatVersions) {
  EXPECT_EQ(Error(ParseGraphText("format_version: 3\n")),
            "graph has format_version 3, newer than the version 2 this kiln reads; upgrade kiln");
  EXPECT_EQ(Error(ParseGraphText(R"pb(node { name: "x" op: "input" dtype: F32 } output: "x")pb")),
            "graph has no format_version; this kiln reads version 2");
  // Version 1 predates tensor constants and slices.
  EXPECT_EQ(Error(ParseGraphText(
                R"pb(format_version: 1 node { name: "c" op: "constant" dtype: I32 shape: 1 data: "\001\000\000\000" } output: "c")pb")),
            "node \"c\" (constant): tensor constants need format_version 2; the file says 1");
  EXPECT_EQ(Error(ParseGraphText(R"pb(format_version: 1
                                      node { name: "x" op: "input" dtype: F32 shape: 4 }
                                      node { name: "y" op: "slice" operand: "x" shape: 2 starts: 0 steps: 2 }
                                      output: "y")pb")),
            "node \"y\" (slice): slices need format_version 2; the file says 1");
  EXPECT_TRUE(ParseGraphText(R"pb(format_version: 2
                                  node { name: "x" op: "input" dtype: F32 shape: 4 }
                                  node { name: "y" op: "slice" operand: "x" shape: 2 starts: 0 steps: 2 }
                                  output: "y")pb")
                  .ok());
}

TEST(BadInputTest, NamesAreEscapedInMessages) {
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "a\"b" op: "input" dtype: F32 })pb"))),
            "node name \"a\\\"b\" contains '\\\"'; names use only letters, digits and _ . - / :");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "a\nb" op: "input" dtype: F32 })pb"))),
            "node name \"a\\nb\" contains '\\n'; names use only letters, digits and _ . - / :");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "café" op: "input" dtype: F32 })pb"))),
            "node name \"caf\\303\\251\" contains '\\303'; names use only letters, digits and _ . - / :");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "" op: "input" dtype: F32 })pb"))),
            "a node has an empty name");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "y" op: "ne\"g\n" })pb"))),
            "node \"y\": unknown op \"ne\\\"g\\n\"");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "y" op: "neg" operand: "q\"\n\303" })pb"))),
            "node \"y\" (neg): operand \"q\\\"\\n\\303\" is not defined");
  EXPECT_EQ(Error(ParseGraphText(TextGraph(R"pb(node { name: "x" op: "input" dtype: F32 })pb",
                                           "it's\\tx"))),
            "output \"it\\'s\\tx\" names no node");
  // A huge name is cut short rather than copied whole into the message.
  const std::string long_name(100000, 'q');
  EXPECT_EQ(Error(ParseGraphText(TextGraph(
                R"pb(node { name: "y" op: "neg" operand: ")pb" + long_name + "\" }"))),
            absl::StrCat("node \"y\" (neg): operand \"", std::string(64, 'q'), "...\" is not defined"));
}

std::string LimitMessage() {
  return absl::StrCat("graph has more than the limit of ", kMaxNodes, " nodes");
}

// The node-count limit is checked before the nodes are built: these nodes
// are all empty, so any per-node work would report an empty name instead.
TEST(BadInputTest, MillionsOfNodesInBinaryAreRefusedBeforeParsing) {
  std::string bytes = "\x08\x01";  // format_version: 1
  for (int64_t i = 0; i <= kMaxNodes; ++i) bytes += std::string("\x12\x00", 2);  // node {}
  EXPECT_EQ(Error(ParseGraphBinary(bytes)), LimitMessage());
}

TEST(BadInputTest, MillionsOfNodesInTextAreRefusedBeforeParsing) {
  std::string text = "format_version: 1\n";
  for (int64_t i = 0; i <= kMaxNodes; ++i) text += "node{}";
  EXPECT_EQ(Error(ParseGraphText(text)), LimitMessage());
}

TEST(BadInputTest, MillionsOfNodesInAProtoAreRefusedBeforeAnyNodeWork) {
  google::protobuf::Arena arena;
  auto* graph_proto = google::protobuf::Arena::CreateMessage<proto::GraphProto>(&arena);
  graph_proto->set_format_version(1);
  graph_proto->mutable_node()->Reserve(kMaxNodes + 1);
  for (int64_t i = 0; i <= kMaxNodes; ++i) graph_proto->add_node();
  graph_proto->add_output(std::string("y"));
  EXPECT_EQ(Error(FromProto(*graph_proto)),
            absl::StrCat("graph has ", kMaxNodes + 1, " nodes, more than the limit of ", kMaxNodes));
}

TEST(BadInputTest, OversizedInputIsRefused) {
  const std::string huge(kMaxGraphFileBytes + 1, ' ');
  const std::string message = absl::StrCat("graph file of ", kMaxGraphFileBytes + 1,
                                            " bytes exceeds the limit of 268435456 bytes");
  EXPECT_EQ(Error(ParseGraphBinary(huge)), message);
  EXPECT_EQ(Error(ParseGraphText(huge)), message);
}

}  // namespace
}  // namespace kiln
