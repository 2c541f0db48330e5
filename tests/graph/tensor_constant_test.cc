// Tensor constants: their bytes, their checks, their values in the reference
// interpreter, and what CountParameters adds up.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "frontends/builder.h"
#include "gmock/gmock.h"
#include "graph/parameters.h"
#include "graph/reference.h"
#include "graph/tensor_bytes.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;

ConstantData Bytes(std::string bytes) { return std::make_shared<const std::string>(std::move(bytes)); }

// Large tensors are encoded and decoded in parallel chunks; the bytes must be
// those of the same elements encoded in pieces too small to be split.
TEST(TensorBytesTest, LargeTensorsMatchTheirPieces) {
  constexpr int64_t kCount = 5 * (1 << 16) + 3;
  constexpr int64_t kPiece = 1000;
  for (DType dtype : kAllDTypes) {
    const HostTensor t = RandomTensor(dtype, {kCount}, 11);
    std::string pieces;
    for (int64_t begin = 0; begin < kCount; begin += kPiece) {
      const int64_t end = std::min(begin + kPiece, kCount);
      pieces += EncodeTensor(
          {.dtype = dtype, .shape = {end - begin}, .data = {t.data.begin() + begin, t.data.begin() + end}});
    }
    const std::string bytes = EncodeTensor(t);
    EXPECT_TRUE(bytes == pieces) << DTypeName(dtype);
    EXPECT_EQ(DecodeTensor(bytes, dtype, t.shape).data, t.data) << DTypeName(dtype);
  }
}

TEST(TensorBytesTest, EveryDTypeIsStoredLittleEndian) {
  EXPECT_EQ(EncodeTensor({.dtype = DType::kF32, .shape = {2}, .data = {1.0, -2.0}}),
            std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8));
  EXPECT_EQ(EncodeTensor({.dtype = DType::kF16, .shape = {1}, .data = {1.0}}), std::string("\x00\x3c", 2));
  EXPECT_EQ(EncodeTensor({.dtype = DType::kBF16, .shape = {1}, .data = {1.0}}), std::string("\x80\x3f", 2));
  EXPECT_EQ(EncodeTensor({.dtype = DType::kI32, .shape = {1}, .data = {-2}}), std::string("\xfe\xff\xff\xff", 4));
  EXPECT_EQ(EncodeTensor({.dtype = DType::kBool, .shape = {2}, .data = {1, 0}}), std::string("\x01\x00", 2));
  for (DType dtype : kAllDTypes) {
    const HostTensor t = RandomTensor(dtype, {3, 5}, 4);
    const HostTensor back = DecodeTensor(EncodeTensor(t), dtype, t.shape);
    EXPECT_EQ(back.data, t.data) << DTypeName(dtype);
  }
}

TEST(TensorConstantTest, HoldsItsShapeAndSharesItsData) {
  Graph g;
  const ConstantData data = Bytes(EncodeTensor({.dtype = DType::kI32, .shape = {2, 2}, .data = {1, 2, 3, 4}}));
  NodeId c = *g.AddNode({.name = "c", .op = OpKind::kConstant, .dtype = DType::kI32, .shape = {2, 2}, .data = data});
  const Node& node = g.node(c);
  EXPECT_TRUE(IsTensorConstant(node));
  EXPECT_FALSE(IsScalarConstant(node));
  EXPECT_THAT(node.shape, ElementsAre(2, 2));
  EXPECT_EQ(node.data.get(), data.get());
  const Graph copy = g;
  EXPECT_EQ(copy.node(c).data.get(), data.get());  // stored once
}

TEST(TensorConstantTest, BadConstantsAreRefused) {
  Graph g;
  auto error = [&](NodeSpec spec) { return g.AddNode(std::move(spec)).status(); };
  ExpectInvalid(error({.name = "c", .op = OpKind::kConstant, .shape = {2, 3}, .data = Bytes("abc")}),
                "node \"c\" (constant): data holds 3 bytes; f32[2,3] needs 24");
  ExpectInvalid(error({.name = "c", .op = OpKind::kConstant, .dtype = DType::kBool, .shape = {3},
                       .data = Bytes(std::string("\x01\x00\x07", 3))}),
                "node \"c\" (constant): bool element 2 is stored as 7; it must be 0 or 1");
  ExpectInvalid(error({.name = "c", .op = OpKind::kConstant, .shape = {1}, .value = 2, .data = Bytes("abcd")}),
                "node \"c\" (constant): a tensor constant holds its data, not a value");
  ExpectInvalid(error({.name = "c", .op = OpKind::kConstant, .shape = {2, 0}, .data = Bytes("")}),
                "node \"c\" (constant): shape [2,0] has a zero dim at axis 1; empty tensors are not supported");
  NodeId x = *g.AddNode({.name = "x", .op = OpKind::kInput, .shape = {1}});
  ExpectInvalid(error({.name = "y", .op = OpKind::kExp, .operands = {x}, .data = Bytes("abcd")}),
                "node \"y\" (exp): data is only for constants");
}

TEST(TensorConstantTest, TheReferenceReadsItsValues) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {2, 3});
  Value w = b.Constant(HostTensor{.dtype = DType::kF32, .shape = {3}, .data = {10, 20, 30}});
  Value mask = b.Constant(HostTensor{.dtype = DType::kBool, .shape = {2, 1}, .data = {1, 0}});
  Value y = Select(mask, x + w, x).Named("y");
  absl::StatusOr<Graph> graph = b.Build({y, w.Named("w")});
  ASSERT_TRUE(graph.ok()) << graph.status();
  const HostTensor in{.dtype = DType::kF32, .shape = {2, 3}, .data = {1, 2, 3, 4, 5, 6}};
  absl::StatusOr<std::vector<HostTensor>> out = EvaluateReference(*graph, {in});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data, ElementsAre(11, 22, 33, 4, 5, 6));
  EXPECT_THAT((*out)[1].data, ElementsAre(10, 20, 30));
  EXPECT_THAT((*out)[1].shape, ElementsAre(3));
}

TEST(TensorConstantTest, BF16ValuesAreRoundedOnceWhenBuilt) {
  GraphBuilder b;
  Value c = b.Constant(HostTensor{.dtype = DType::kBF16, .shape = {2}, .data = {0.1, -3.0}}).Named("c");
  absl::StatusOr<Graph> graph = b.Build({c});
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<std::vector<HostTensor>> out = EvaluateReference(*graph, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].data, ElementsAre(RoundToDType(0.1, DType::kBF16), -3.0));
}

TEST(ParametersTest, CountsTensorConstantsOnly) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {4, 8});
  Value w = b.Constant(RandomTensor(DType::kBF16, {8, 16}, 1));
  Value bias = b.Constant(RandomTensor(DType::kF32, {16}, 2));
  Value y = Cast(Matmul(x, w), DType::kF32) + bias + 1.0;
  absl::StatusOr<Graph> graph = b.Build({y.Named("y")});
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Parameters p = CountParameters(*graph);
  EXPECT_EQ(p.tensors, 2);
  EXPECT_EQ(p.elements, 8 * 16 + 16);
  EXPECT_EQ(p.bytes, 8 * 16 * 2 + 16 * 4);
}

}  // namespace
}  // namespace kiln
