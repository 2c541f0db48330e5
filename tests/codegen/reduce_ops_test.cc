// The one table of how generated code reduces, for both reducing emitters.
#include "codegen/reduce_ops.h"

#include "gtest/gtest.h"

namespace kiln {
namespace {

TEST(ReduceOpsTest, EveryReduceOpHasItsCombiner) {
  EXPECT_EQ(ReduceCodeOf(OpKind::kReduceSum).combiner, "KilnSum");
  EXPECT_FALSE(ReduceCodeOf(OpKind::kReduceSum).divides_by_count);
  EXPECT_EQ(ReduceCodeOf(OpKind::kReduceMean).combiner, "KilnSum");
  EXPECT_TRUE(ReduceCodeOf(OpKind::kReduceMean).divides_by_count);
  EXPECT_EQ(ReduceCodeOf(OpKind::kReduceMax).combiner, "KilnMax");
  EXPECT_EQ(ReduceCodeOf(OpKind::kReduceMin).combiner, "KilnMin");
  for (OpKind op : {OpKind::kReduceMax, OpKind::kReduceMin}) EXPECT_FALSE(ReduceCodeOf(op).divides_by_count);
}

}  // namespace
}  // namespace kiln
