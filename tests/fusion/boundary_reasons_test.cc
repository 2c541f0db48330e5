// Every reason a fusion boundary can give, each on the smallest graph that
// makes it, pinned as the exact text `kiln plan --explain` prints.
#include <string>
#include <vector>

#include "frontends/graph_file.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

struct Case {
  const char* what;
  const char* graph;  // text format, without format_version
  const char* producer;
  const char* consumer;
  const char* reason;
};

const Case kCases[] = {
    {"an elementwise consumer of a different shape",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "z" op: "input" dtype: F32 shape: [3, 4, 8] }
          node { name: "a" op: "exp" operand: "x" }
          node { name: "d" op: "add" operand: ["a", "z"] }
          output: "d"
          output: "a")pb",
     "a", "d", "consumer shape [3,4,8] differs from the pointwise kernel's iteration shape [4,8]"},
    {"an epilogue that would grow a matmul's output",
     R"pb(node { name: "a" op: "input" dtype: F32 shape: [16, 8] }
          node { name: "b" op: "input" dtype: F32 shape: [8, 16] }
          node { name: "z" op: "input" dtype: F32 shape: [2, 16, 16] }
          node { name: "c" op: "matmul" operand: ["a", "b"] }
          node { name: "d" op: "add" operand: ["c", "z"] }
          output: "d")pb",
     "c", "d", "consumer shape [2,16,16] differs from the matmul kernel's iteration shape [16,16]"},
    {"a consumer of a row kernel that is neither rows nor the full shape",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "z" op: "input" dtype: F32 shape: [3, 4, 1] }
          node { name: "s" op: "reduce_sum" operand: "x" axes: [1] keepdims: true }
          node { name: "d" op: "add" operand: ["s", "z"] }
          output: "d")pb",
     "s", "d", "consumer shape [3,4,1] is neither the rows [4,1] nor the full shape [4,8] of the row kernel"},
    {"an operand that would be broadcast inside the kernel",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [8, 8] }
          node { name: "s" op: "reduce_sum" operand: "x" axes: [1] }
          node { name: "d" op: "add" operand: ["x", "s"] }
          output: "d")pb",
     "s", "d", "operand \"s\" [8] would be broadcast to [8,8] inside the kernel; it is materialized instead"},
    {"a reshape of the kernel's own output",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "a" op: "exp" operand: "x" }
          node { name: "v" op: "reshape" operand: "a" shape: [8, 4] }
          node { name: "w" op: "reshape" operand: "v" shape: [4, 8] }
          node { name: "d" op: "mul" operand: ["a", "w"] }
          output: "d")pb",
     "w", "d", "operand \"w\" is a reshape of this kernel's own output, read back from memory"},
    {"a consumer that is a reshape",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "a" op: "exp" operand: "x" }
          node { name: "v" op: "reshape" operand: "a" shape: [32] }
          output: "v")pb",
     "a", "v", "consumer is a reshape, a view of memory: the producer is materialized"},
    {"a reduction to other rows than the row kernel's",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "s" op: "reduce_sum" operand: "x" axes: [1] keepdims: true }
          node { name: "y" op: "div" operand: ["x", "s"] }
          node { name: "t" op: "reduce_max" operand: "y" axes: [0, 1] }
          output: "t")pb",
     "y", "t", "reduction to rows [1,1] of [4,8] does not match the row kernel's rows [4,1] of [4,8]"},
    {"softmax over a batched matmul's output (the producer is a matmul)",
     R"pb(node { name: "q" op: "input" dtype: BF16 shape: [12, 1024, 64] }
          node { name: "k" op: "input" dtype: BF16 shape: [12, 64, 1024] }
          node { name: "s" op: "matmul" operand: ["q", "k"] }
          node { name: "m" op: "reduce_max" operand: "s" axes: [-1] keepdims: true }
          node { name: "e" op: "exp" operand: "d" }
          node { name: "d" op: "sub" operand: ["s", "m"] }
          node { name: "l" op: "reduce_sum" operand: "e" axes: [-1] keepdims: true }
          node { name: "p" op: "div" operand: ["e", "l"] }
          output: "p")pb",
     "s", "m",
     "the producer is a matmul, whose kernel fuses an elementwise epilogue only; the reduction over rows of "
     "[12,1024,1024] runs in its own kernel"},
    {"a reduction of a transpose",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "t" op: "transpose" operand: "x" perm: [1, 0] }
          node { name: "s" op: "reduce_sum" operand: "t" axes: [1] }
          output: "s")pb",
     "t", "s", "a transpose kernel takes no fused consumers"},
    {"an elementwise consumer of a strided reduction",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "r" op: "reduce_sum" operand: "x" axes: [0] }
          node { name: "e" op: "exp" operand: "r" }
          output: "e")pb",
     "r", "e", "a reduction kernel takes no fused consumers"},
    {"a transpose",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "a" op: "exp" operand: "x" }
          node { name: "t" op: "transpose" operand: "a" perm: [1, 0] }
          output: "t")pb",
     "a", "t", "a transpose runs as its own kernel"},
    {"a consumer that joined its other operand's kernel",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "y" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "a" op: "exp" operand: "x" }
          node { name: "b" op: "exp" operand: "y" }
          node { name: "d" op: "add" operand: ["a", "b"] }
          output: "d")pb",
     "b", "d", "consumer was fused into the kernel of another operand"},
    {"a reshape of another kernel's output",
     R"pb(node { name: "x" op: "input" dtype: F32 shape: [4, 8] }
          node { name: "t" op: "transpose" operand: "x" perm: [1, 0] }
          node { name: "v" op: "reshape" operand: "t" shape: [4, 8] }
          node { name: "d" op: "exp" operand: "v" }
          output: "d")pb",
     "v", "d", "operand is a reshape, a view of \"t\" read from memory"},
};

TEST(BoundaryReasonsTest, EveryBoundarySaysWhy) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.what);
    absl::StatusOr<Graph> graph = ParseGraphText(std::string("format_version: 1\n") + c.graph);
    ASSERT_TRUE(graph.ok()) << graph.status();
    absl::StatusOr<Plan> plan = PlanFusion(*graph, DeviceLimits{});
    ASSERT_TRUE(plan.ok()) << plan.status();
    bool found = false;
    for (const Boundary& b : plan->boundaries) {
      if (graph->node(b.producer).name == c.producer && graph->node(b.consumer).name == c.consumer) {
        EXPECT_EQ(b.reason, c.reason);
        found = true;
      }
    }
    EXPECT_TRUE(found) << "no boundary " << c.producer << " -> " << c.consumer;
  }
}

}  // namespace
}  // namespace kiln
