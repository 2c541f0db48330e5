// Transposes on a GPU, fused and unfused, against the reference interpreter
// bit for bit: a transpose moves values and must never change one. 2-D,
// batched, 3-D and 4-D perms in f32, bf16 and f16 (and i32 and bool), odd
// sizes, dims of size 1, kept and moved last dims, computed operands, and
// transposes chained through intermediates and views. Every test skips with
// a message where there is no CUDA device.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/builder.h"
#include "gtest/gtest.h"
#include "tests/differential.h"

namespace kiln {
namespace {

using Perms = std::vector<std::vector<int64_t>>;

class TransposeGpuTest : public SharedDeviceTest {
 protected:
  // Empty when both plans of `graph` reproduce the reference exactly on
  // random inputs (outputs poisoned with NaN first); else what differed.
  static std::string ExactMismatches(const Graph& graph, KernelCache& cache, uint64_t seed) {
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < graph.inputs().size(); ++i) {
      const Node& node = graph.node(graph.inputs()[i]);
      inputs.push_back(RandomTensor(node.dtype, node.shape, seed + i));
    }
    absl::StatusOr<std::vector<HostTensor>> reference = EvaluateReference(graph, inputs);
    if (!reference.ok()) return std::string(reference.status().message());
    std::string failures;
    for (bool fuse : {true, false}) {
      const std::string plan = fuse ? "fused" : "unfused";
      absl::StatusOr<std::unique_ptr<Executable>> exe =
          Executable::Compile(graph, device(), cache, {.fuse = fuse, .autotune = false});
      if (!exe.ok()) return absl::StrCat(plan, ": ", exe.status().message());
      absl::StatusOr<std::vector<HostTensor>> outputs = (*exe)->RunOnHost(inputs);
      if (!outputs.ok()) return absl::StrCat(plan, ": ", outputs.status().message());
      for (size_t j = 0; j < outputs->size(); ++j) {
        const std::vector<double>& got = (*outputs)[j].data;
        const std::vector<double>& want = (*reference)[j].data;
        size_t first = 0;
        while (first < want.size() && first < got.size() && got[first] == want[first]) ++first;
        if (first == want.size() && got.size() == want.size()) continue;
        const Node& node = graph.node(graph.outputs()[j]);
        absl::StrAppend(&failures, plan, " ", node.name, " ", DTypeName(node.dtype), DimsString(node.shape),
                        ": element ", first, " differs; ");
      }
    }
    return failures;
  }

  // One graph with an input of `dims` and one output per perm.
  static Graph Transposes(DType dtype, const Dims& dims, const Perms& perms) {
    GraphBuilder b;
    Value x = b.Input("x", dtype, dims);
    std::vector<Value> outputs;
    for (const std::vector<int64_t>& perm : perms) {
      outputs.push_back(Transpose(x, perm).Named(absl::StrCat("t", absl::StrJoin(perm, "_"))));
    }
    return *b.Build(outputs);
  }

  struct Case {
    DType dtype;
    Dims dims;
    Perms perms;
  };
  // Checks every case exactly, their compiles and reference runs overlapping
  // on a pool of threads.
  static void ExpectEveryCaseExact(const std::vector<Case>& cases) {
    KernelCache cache({.use_disk = false});
    const std::vector<std::string> failures = RunChecksInParallel(static_cast<int>(cases.size()), [&](int i) {
      return ExactMismatches(Transposes(cases[i].dtype, cases[i].dims, cases[i].perms), cache, 42 + i);
    });
    for (size_t i = 0; i < cases.size(); ++i) {
      EXPECT_EQ(failures[i], "") << DTypeName(cases[i].dtype) << DimsString(cases[i].dims);
    }
  }
};

constexpr DType kFloats[] = {DType::kF32, DType::kBF16, DType::kF16};

TEST_F(TransposeGpuTest, TwoDimsOfEveryOddAndEvenSize) {
  std::vector<Case> cases;
  const std::vector<Dims> shapes = {{1, 1},     {1, 4097}, {3, 1},      {31, 33},   {33, 31},   {1000, 3},
                                    {3, 1000},  {64, 64},  {4097, 33},  {1000, 1000}, {4093, 257}, {2048, 4096}};
  for (DType dtype : kFloats) {
    for (const Dims& dims : shapes) cases.push_back({dtype, dims, {{1, 0}}});
  }
  ExpectEveryCaseExact(cases);
}

TEST_F(TransposeGpuTest, BatchedLastTwo) {
  std::vector<Case> cases;
  const std::vector<Dims> shapes = {{3, 31, 33}, {7, 64, 1000}, {2, 4097, 3}, {5, 1, 33}, {33, 64, 8}};
  for (DType dtype : kFloats) {
    for (const Dims& dims : shapes) cases.push_back({dtype, dims, {{0, 2, 1}}});
  }
  ExpectEveryCaseExact(cases);
}

TEST_F(TransposeGpuTest, EveryPermutationOfThreeDims) {
  std::vector<Case> cases;
  const Perms perms = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const std::vector<Dims> shapes = {{31, 33, 17}, {3, 1000, 64}, {64, 3, 1000}, {1, 33, 4097}, {1000, 2, 31}};
  for (DType dtype : kFloats) {
    for (const Dims& dims : shapes) cases.push_back({dtype, dims, perms});
  }
  ExpectEveryCaseExact(cases);
}

TEST_F(TransposeGpuTest, FourDimsAttentionLayoutsAndReversals) {
  std::vector<Case> cases;
  const Perms perms = {{0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {3, 1, 2, 0}, {1, 0, 3, 2}, {3, 2, 1, 0}};
  const std::vector<Dims> shapes = {{2, 33, 4, 64}, {3, 31, 5, 33}, {1, 1000, 3, 1}, {2, 64, 8, 128}, {4, 3, 1025, 63}};
  for (DType dtype : kFloats) {
    for (const Dims& dims : shapes) cases.push_back({dtype, dims, perms});
  }
  ExpectEveryCaseExact(cases);
}

// Odd lengths on both sides over several tiles each way: every tile's
// writes own the vectors starting in its rows and read the rows after it,
// the first tile of a row also writes the vector straddling the row's start.
TEST_F(TransposeGpuTest, OddLengthsOverManyTiles) {
  std::vector<Case> cases;
  const std::vector<Dims> shapes = {{333, 257}, {129, 777}, {257, 777}, {65, 4093}, {1531, 2053}, {4093, 129}};
  for (DType dtype : kFloats) {
    for (const Dims& dims : shapes) cases.push_back({dtype, dims, {{1, 0}}});
    cases.push_back({dtype, {3, 333, 777}, {{0, 2, 1}}});
    cases.push_back({dtype, {2, 129, 3, 65}, {{0, 2, 3, 1}, {3, 1, 2, 0}, {0, 3, 1, 2}}});
    cases.push_back({dtype, {5, 131, 67}, {{2, 1, 0}, {1, 2, 0}, {2, 0, 1}}});
  }
  ExpectEveryCaseExact(cases);
}

// The benchmark's odd shapes, rows straddling vectors on one side or both,
// with batches on vector boundaries (the leads of a tile's rows are
// constants: 2-D, [4,1024,1022]) and off them ([64,333,777]: the leads are
// computed per tile).
TEST_F(TransposeGpuTest, LargeOddShapes) {
  std::vector<Case> cases;
  for (DType dtype : {DType::kBF16, DType::kF32}) {
    cases.push_back({dtype, {4093, 8191}, {{1, 0}}});
    cases.push_back({dtype, {64, 333, 777}, {{0, 2, 1}}});
    cases.push_back({dtype, {4, 1024, 1022}, {{0, 2, 1}}});
    cases.push_back({dtype, {2, 515, 3, 1021}, {{0, 3, 1, 2}, {3, 1, 2, 0}}});
  }
  ExpectEveryCaseExact(cases);
}

// Straddling writes move each column's vectors in two halves of the chunk
// words (kiln_tile_store): every residue of the output row's length modulo
// a vector (16 for bool) over several row tiles, reads straddling too, in
// every element size, with batches on vector boundaries (2-D) and off them
// (3-D), so every column of both halves starts at every lead.
TEST_F(TransposeGpuTest, StraddlingWritesAtEveryResidue) {
  std::vector<Case> cases;
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16, DType::kI32, DType::kBool}) {
    for (int64_t rows = 241; rows <= 256; ++rows) {
      cases.push_back({dtype, {rows, 131}, {{1, 0}}});
      cases.push_back({dtype, {3, rows, 67}, {{0, 2, 1}}});
    }
  }
  ExpectEveryCaseExact(cases);
}

// Batches off vector boundaries whose rows end inside their one row tile:
// in a warp, some threads write a row's last vector element by element while
// others write whole vectors. The differential suite's f16 [15,20,10,16]
// under [3,0,2,1] lost whole columns to another batch's rows there when the
// element-wise ends were calls (kiln_transpose.cuh says why they are inline).
TEST_F(TransposeGpuTest, RowsEndingInsideTheirTileWithBatchesOffVectors) {
  std::vector<Case> cases;
  for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16, DType::kI32, DType::kBool}) {
    for (int64_t rows = 17; rows <= 31; ++rows) cases.push_back({dtype, {15, rows, 10, 16}, {{3, 0, 2, 1}}});
  }
  ExpectEveryCaseExact(cases);
}

TEST_F(TransposeGpuTest, IntegerAndBoolTransposes) {
  std::vector<Case> cases;
  for (DType dtype : {DType::kI32, DType::kBool}) {
    cases.push_back({dtype, {33, 1000}, {{1, 0}}});
    cases.push_back({dtype, {31, 33, 17}, {{2, 1, 0}, {1, 0, 2}, {1, 2, 0}}});
    cases.push_back({dtype, {2, 64, 8, 129}, {{0, 2, 1, 3}, {0, 2, 3, 1}}});
    cases.push_back({dtype, {333, 257}, {{1, 0}}});
    cases.push_back({dtype, {256, 512}, {{1, 0}}});
    cases.push_back({dtype, {4093, 8191}, {{1, 0}}});
    cases.push_back({dtype, {64, 333, 777}, {{0, 2, 1}}});
  }
  ExpectEveryCaseExact(cases);
}

TEST_F(TransposeGpuTest, ComputedOperandsChainsAndViews) {
  KernelCache cache({.use_disk = false});
  GraphBuilder b;
  Value x = b.Input("x", DType::kBF16, {6, 35, 129});
  Value twice = Transpose(Transpose(x, {2, 0, 1}), {0, 2, 1}).Named("twice");      // through an intermediate
  Value viewed = Transpose(Reshape(x, {210, 129}), {1, 0}).Named("viewed");         // a reshape's memory
  Value fed = Exp(Transpose(x, {1, 0, 2}) + 1.0).Named("fed");                      // read by a pointwise kernel
  Value iota = Transpose(b.Iota(DType::kI32, {33, 65}, 1), {1, 0}).Named("iota");  // computed per element
  Value scalar = Transpose(b.Constant(2.5, DType::kF16), {}).Named("scalar");
  EXPECT_EQ(ExactMismatches(*b.Build({twice, viewed, iota, scalar}), cache, 7), "");
  // exp is not a move: this output is checked within the bf16 tolerance.
  EXPECT_EQ(CheckAgainstReference(*b.Build({fed}), device(), cache, 7), "");
}

}  // namespace
}  // namespace kiln
