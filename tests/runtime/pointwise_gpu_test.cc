// Pointwise kernels with broadcast operands on a GPU, fused and unfused,
// against the reference interpreter on random inputs: rows and columns read
// once per vector where the last dim is a multiple of the vector, their
// column found once per vector where it is not (element by element where a
// vector crosses into the next row or the row is shorter than a vector),
// whole tiles and the last partial one, 1 to 4 inputs in f32, bf16 and f16,
// and reductions over axes of size 1, which plan as pointwise work.
// Every test skips with a message where there is no CUDA device.
#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "gtest/gtest.h"
#include "tests/differential.h"
#include "tests/pointwise_test_graphs.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

class PointwiseGpuTest : public SharedDeviceTest {};

constexpr DType kFloats[] = {DType::kF32, DType::kBF16, DType::kF16};

TEST_F(PointwiseGpuTest, RowAndColumnBroadcastsOnOddShapes) {
  KernelCache cache({.use_disk = false});
  const std::vector<Dims> shapes = {{7, 33},   {3, 8},    {333, 12344}, {333, 12345}, {1000, 1000}, {129, 4096},
                                    {1, 24},   {5, 9},    {17, 15},     {9, 17},      {64, 4093},   {2, 8191},
                                    {1000, 7}, {1000, 3}, {257, 1031},  {1, 4099}};
  for (DType dtype : kFloats) {
    for (const Dims& dims : shapes) {
      GraphBuilder g;
      Value a = g.Input("a", dtype, dims);
      Value b = g.Input("b", dtype, {dims[1]});
      Value c = g.Input("c", dtype, {dims[0], 1});
      Value d = g.Input("d", dtype, dims);
      const Graph graph = *g.Build({((a * b + c) * d).Named("y")});
      EXPECT_EQ(CheckAgainstReference(graph, device(), cache, 42), "") << DTypeName(dtype) << DimsString(dims);
    }
  }
}

TEST_F(PointwiseGpuTest, BroadcastsOverThreeDims) {
  KernelCache cache({.use_disk = false});
  for (DType dtype : kFloats) {
    for (const Dims& dims : {Dims{4, 24, 64}, Dims{5, 31, 1000}, Dims{3, 7, 9}, Dims{3, 7, 17}, Dims{4, 5, 1001},
                             Dims{2, 33, 4093}}) {
      EXPECT_EQ(CheckAgainstReference(BroadcastsOverThreeDims(dtype, dims), device(), cache, 7), "")
          << DTypeName(dtype) << DimsString(dims);
    }
  }
}

TEST_F(PointwiseGpuTest, OneAndTwoInputsAtSweepShapes) {
  KernelCache cache({.use_disk = false});
  for (DType dtype : kFloats) {
    for (const Dims& dims : {Dims{4096, 4096}, Dims{8191, 8191}}) {
      GraphBuilder g;
      Value a = g.Input("a", dtype, dims);
      Value b = g.Input("b", dtype, {dims[1]});
      const Graph graph = *g.Build({Exp(a).Named("e"), (a * b + a).Named("y")});
      EXPECT_EQ(CheckAgainstReference(graph, device(), cache, 3), "") << DTypeName(dtype) << DimsString(dims);
    }
  }
}

// Reductions over axes of size 1 run as pointwise kernels, fused and
// unfused: the sweep's row ops over rows of 1 in every float type (4194319
// rows leave the last tile partly filled and a scalar tail), a single row,
// rows of 1 in three dims, the row epilogue graphs over rows of 1, a unit
// reduction of a row kernel's per-row value, and one of a computed value
// that drops its axis.
TEST_F(PointwiseGpuTest, UnitReductionsMatchTheReference) {
  KernelCache cache({.use_disk = false});
  for (RowOp op : kRowOps) {
    for (DType dtype : kFloats) {
      for (const Dims& dims : {Dims{4194319, 1}, Dims{1, 1}, Dims{3, 2053, 1}}) {
        EXPECT_EQ(CheckAgainstReference(RowOpGraph(op, dtype, dims), device(), cache, 11), "")
            << RowOpName(op) << " " << DTypeName(dtype) << DimsString(dims);
      }
    }
  }
  for (DType dtype : kFloats) {
    EXPECT_EQ(CheckAgainstReference(ResidualNormSilu(dtype, 100003, 1), device(), cache, 13), "") << DTypeName(dtype);
    EXPECT_EQ(CheckAgainstReference(BiasedSoftmaxWithLogSumExp(dtype, 100003, 1), device(), cache, 14), "")
        << DTypeName(dtype);
    GraphBuilder b;
    Value x = b.Input("x", dtype, {4099, 1000});
    Value e = Exp(Cast(x, DType::kF32));
    Value top = ReduceMax(ReduceSum(e, {1}, true), {1}, true);
    Value column = b.Input("column", dtype, {4099, 1});
    const Graph graph = *b.Build({Cast(e / top, dtype), ReduceMin(column * 2.0, {1}), ReduceMean(column, {0, 1})});
    EXPECT_EQ(CheckAgainstReference(graph, device(), cache, 12), "") << DTypeName(dtype);
  }
}

}  // namespace
}  // namespace kiln
