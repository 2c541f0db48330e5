#include "graph/shape.h"

#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;

TEST(ShapeTest, DimsString) {
  EXPECT_EQ(DimsString({}), "[]");
  EXPECT_EQ(DimsString({7}), "[7]");
  EXPECT_EQ(DimsString({16384, 1}), "[16384,1]");
}

TEST(ShapeTest, ElementCounts) {
  EXPECT_EQ(*CheckedNumElements({}), 1);
  EXPECT_EQ(*CheckedNumElements({2, 3, 4}), 24);
  EXPECT_EQ(*CheckedNumElements({0, 5}), 0);
  EXPECT_EQ(*CheckedNumElements({1 << 24, 1 << 24}), kMaxElements);  // exactly 2^48 is allowed
  EXPECT_EQ(*CheckedNumElements({1, 1, 1, 1, 1, 1, 1, 1}), 1);
  EXPECT_EQ(NumElements({16384, 16384}), int64_t{268435456});
  EXPECT_EQ(NumElements({}), 1);
}

TEST(ShapeTest, ElementCountErrors) {
  ExpectInvalid(CheckedNumElements({2, -1}).status(), "shape [2,-1] has a negative dim");
  ExpectInvalid(CheckedNumElements({1, 1, 1, 1, 1, 1, 1, 1, 1}).status(),
                "rank 9 exceeds the maximum rank 8");
  ExpectInvalid(CheckedNumElements({1 << 24, 1 << 24, 2}).status(),
                "shape [16777216,16777216,2] has more than 2^48 elements");
  ExpectInvalid(CheckedNumElements({(int64_t{1} << 48) + 1}).status(),
                "shape [281474976710657] has more than 2^48 elements");
  // Products that would overflow int64 are caught before they are formed.
  const int64_t huge = std::numeric_limits<int64_t>::max();
  ExpectInvalid(CheckedNumElements({huge, huge}).status(),
                "shape [9223372036854775807,9223372036854775807] has more than 2^48 elements");
  ExpectInvalid(CheckedNumElements({3037000500, 3037000500}).status(),
                "shape [3037000500,3037000500] has more than 2^48 elements");
}

TEST(ShapeTest, BroadcastCompatibleShapes) {
  EXPECT_THAT(*BroadcastDims({16384, 1}, {16384, 16384}), ElementsAre(16384, 16384));
  EXPECT_THAT(*BroadcastDims({16384, 16384}, {16384, 1}), ElementsAre(16384, 16384));
  EXPECT_THAT(*BroadcastDims({4, 1}, {1, 5}), ElementsAre(4, 5));
  EXPECT_THAT(*BroadcastDims({3}, {2, 1}), ElementsAre(2, 3));
  EXPECT_THAT(*BroadcastDims({}, {4, 5}), ElementsAre(4, 5));
  EXPECT_THAT(*BroadcastDims({}, {}), ElementsAre());
  EXPECT_THAT(*BroadcastDims({5, 1, 7}, {6, 1}), ElementsAre(5, 6, 7));
}

TEST(ShapeTest, BroadcastMismatchNamesBothShapes) {
  ExpectInvalid(BroadcastDims({16384, 16384}, {3}).status(),
                "shapes [16384,16384] and [3] cannot broadcast");
  ExpectInvalid(BroadcastDims({2, 3}, {3, 2}).status(), "shapes [2,3] and [3,2] cannot broadcast");
  ExpectInvalid(BroadcastDims({2, 1, 4}, {3, 5}).status(),
                "shapes [2,1,4] and [3,5] cannot broadcast");
}

TEST(ShapeTest, Strides) {
  EXPECT_THAT(RowMajorStrides({2, 3, 4}), ElementsAre(12, 4, 1));
  EXPECT_THAT(RowMajorStrides({5}), ElementsAre(1));
  EXPECT_THAT(RowMajorStrides({}), ElementsAre());
  EXPECT_THAT(BroadcastStrides({2, 3, 4}, {2, 3, 4}), ElementsAre(12, 4, 1));
  EXPECT_THAT(BroadcastStrides({3, 1}, {2, 3, 4}), ElementsAre(0, 1, 0));
  EXPECT_THAT(BroadcastStrides({4}, {2, 3, 4}), ElementsAre(0, 0, 1));
  EXPECT_THAT(BroadcastStrides({1, 3, 4}, {2, 3, 4}), ElementsAre(0, 4, 1));
  EXPECT_THAT(BroadcastStrides({}, {2, 2}), ElementsAre(0, 0));
  EXPECT_THAT(BroadcastStrides({16384, 1}, {16384, 16384}), ElementsAre(1, 0));
}

}  // namespace
}  // namespace kiln
