// The one CeilDiv and AlignUp every stage uses.
#include "graph/int_math.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(IntMathTest, CeilDivRoundsUp) {
  EXPECT_EQ(CeilDiv(0, 256), 0);
  EXPECT_EQ(CeilDiv(1, 256), 1);
  EXPECT_EQ(CeilDiv(256, 256), 1);
  EXPECT_EQ(CeilDiv(257, 256), 2);
  EXPECT_EQ(CeilDiv(int64_t{1} << 40, 3), 366503875926);
  static_assert(CeilDiv(1000, 256) == 4);
}

TEST(IntMathTest, AlignUpGivesTheNextMultiple) {
  EXPECT_EQ(AlignUp(0, 256), 0);
  EXPECT_EQ(AlignUp(1, 256), 256);
  EXPECT_EQ(AlignUp(256, 256), 256);
  EXPECT_EQ(AlignUp(1000, 256), 1024);
}

}  // namespace
}  // namespace kiln
