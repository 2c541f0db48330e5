// The slice op: windows, strides and broadcasts by a step of 0, checked
// against indices written out here.
#include "frontends/builder.h"
#include "gmock/gmock.h"
#include "graph/reference.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;

HostTensor Iota(Dims shape) {
  HostTensor t{.dtype = DType::kF32, .shape = shape};
  for (int64_t i = 0; i < NumElements(shape); ++i) t.data.push_back(static_cast<double>(i));
  return t;
}

std::vector<double> SliceOf(const HostTensor& x, std::vector<int64_t> starts, std::vector<int64_t> steps,
                            Dims shape) {
  GraphBuilder b;
  Value in = b.Input("x", x.dtype, x.shape);
  absl::StatusOr<Graph> graph = b.Build({Slice(in, starts, steps, shape).Named("y")});
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return {};
  absl::StatusOr<std::vector<HostTensor>> out = EvaluateReference(*graph, {x});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0].data : std::vector<double>{};
}

TEST(SliceTest, WindowsStridesAndBroadcasts) {
  const HostTensor x = Iota({3, 4});  // rows 0..3, 4..7, 8..11
  EXPECT_THAT(SliceOf(x, {0, 2}, {1, 1}, {3, 2}), ElementsAre(2, 3, 6, 7, 10, 11));   // last two columns
  EXPECT_THAT(SliceOf(x, {1, 0}, {1, 2}, {2, 2}), ElementsAre(4, 6, 8, 10));          // every other column
  EXPECT_THAT(SliceOf(x, {2, 1}, {0, 0}, {2, 3}), ElementsAre(9, 9, 9, 9, 9, 9));     // one element, repeated
  EXPECT_THAT(SliceOf(Iota({1, 3}), {0, 0}, {0, 1}, {2, 3}), ElementsAre(0, 1, 2, 0, 1, 2));  // broadcast rows
}

TEST(SliceTest, BadSlicesNameTheProblem) {
  Graph g;
  NodeId x = *g.AddNode({.name = "x", .op = OpKind::kInput, .shape = {3, 4}});
  auto error = [&](std::vector<int64_t> starts, std::vector<int64_t> steps, Dims shape) {
    return g.AddNode({.name = "s", .op = OpKind::kSlice, .operands = {x}, .shape = shape, .starts = starts,
                      .steps = steps})
        .status();
  };
  ExpectInvalid(error({0}, {1}, {3}),
                "node \"s\" (slice): starts, steps and shape need one entry per dim of the rank 2 operand [3,4]");
  ExpectInvalid(error({0, 4}, {1, 1}, {1, 1}), "node \"s\" (slice): start 4 of dim 1 is outside the operand's [0, 4)");
  ExpectInvalid(error({0, -1}, {1, 1}, {1, 1}),
                "node \"s\" (slice): start -1 of dim 1 is outside the operand's [0, 4)");
  ExpectInvalid(error({0, 0}, {1, -1}, {1, 1}), "node \"s\" (slice): step -1 of dim 1 is negative");
  ExpectInvalid(error({0, 2}, {1, 2}, {3, 2}), "node \"s\" (slice): 2 elements from 2 in steps of 2 run past dim 1 of [3,4]");
  ExpectInvalid(error({0, 1}, {1, int64_t{1} << 62}, {3, 4}),
                "node \"s\" (slice): 4 elements from 1 in steps of 4611686018427387904 run past dim 1 of [3,4]");
  ExpectInvalid(error({0, 0}, {1, 1}, {3, 0}),
                "node \"s\" (slice): shape [3,0] has a zero dim at axis 1; empty tensors are not supported");
}

}  // namespace
}  // namespace kiln
