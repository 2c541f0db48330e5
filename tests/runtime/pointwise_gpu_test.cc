// Pointwise kernels with broadcast operands on a GPU, fused and unfused,
// against the reference interpreter on random inputs: rows and columns read
// once per vector where the last dim is a multiple of the vector, their
// column found once per vector where it is not (element by element where a
// vector crosses into the next row or the row is shorter than a vector),
// whole tiles and the last partial one, 1 to 4 inputs in f32, bf16 and f16.
// Every test skips with a message where there is no CUDA device.
#include "absl/strings/str_cat.h"
#include "frontends/builder.h"
#include "gtest/gtest.h"
#include "tests/differential.h"
#include "tests/pointwise_test_graphs.h"

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

}  // namespace
}  // namespace kiln
