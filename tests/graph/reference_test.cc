// The reference interpreter against closed forms and naive loops written out
// here, never against itself.
#include "graph/reference.h"

#include <cmath>
#include <limits>
#include <vector>

#include "frontends/builder.h"
#include "frontends/workloads.h"
#include "gmock/gmock.h"
#include "graph/host_tensor.h"
#include "gtest/gtest.h"
#include "tests/expect_status.h"

namespace kiln {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

HostTensor Tensor(DType dtype, Dims shape, std::vector<double> data) {
  return {.dtype = dtype, .shape = std::move(shape), .data = std::move(data)};
}

std::vector<HostTensor> Evaluate(const absl::StatusOr<Graph>& graph,
                                 std::vector<HostTensor> inputs) {
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return {};
  absl::StatusOr<std::vector<HostTensor>> outputs = EvaluateReference(*graph, inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  if (!outputs.ok()) return {};
  EXPECT_EQ(outputs->size(), graph->outputs().size());
  return *std::move(outputs);
}

// One output of a graph with one input.
HostTensor EvaluateOne(const absl::StatusOr<Graph>& graph, HostTensor input) {
  std::vector<HostTensor> outputs = Evaluate(graph, {std::move(input)});
  return outputs.empty() ? HostTensor() : outputs[0];
}

double F32(double value) { return static_cast<double>(static_cast<float>(value)); }

double GeluFormula(double x) {
  return 0.5 * x * (1.0 + std::tanh(0.79788456 * (x + 0.044715 * x * x * x)));
}

TEST(ReferenceTest, GeluF32MatchesTheTanhFormula) {
  const HostTensor x = RandomTensor(DType::kF32, {64, 1000}, 1);
  const HostTensor y = EvaluateOne(GeluNaive(DType::kF32, {64, 1000}), x);
  ASSERT_EQ(y.data.size(), x.data.size());
  EXPECT_EQ(y.dtype, DType::kF32);
  EXPECT_THAT(y.shape, ElementsAre(64, 1000));
  for (size_t i = 0; i < x.data.size(); ++i) {
    const float xf = static_cast<float>(x.data[i]);
    // The same nine steps in float arithmetic: IEEE float + - * are the double
    // results rounded once, so only tanh needs to come from double.
    const float t1 = xf * xf, t2 = t1 * xf, t3 = 0.044715f * t2, t4 = xf + t3;
    const float t5 = 0.79788456f * t4;
    const float t6 = static_cast<float>(std::tanh(static_cast<double>(t5)));
    const float stepwise = (0.5f * xf) * (1.0f + t6);
    ASSERT_EQ(y.data[i], static_cast<double>(stepwise)) << "x = " << x.data[i];
    ASSERT_NEAR(y.data[i], GeluFormula(x.data[i]), 1e-6) << "x = " << x.data[i];
  }
}

TEST(ReferenceTest, GeluBF16AndF16AreRoundedAndClose) {
  for (DType dtype : {DType::kBF16, DType::kF16}) {
    const HostTensor x = RandomTensor(dtype, {32, 100}, 2);
    const HostTensor y = EvaluateOne(GeluNaive(dtype, {32, 100}), x);
    ASSERT_EQ(y.data.size(), x.data.size());
    HostTensor formula = x;
    for (size_t i = 0; i < x.data.size(); ++i) {
      ASSERT_EQ(RoundToDType(y.data[i], dtype), y.data[i]) << DTypeName(dtype);
      ASSERT_NEAR(y.data[i], GeluFormula(x.data[i]), 2e-2)
          << DTypeName(dtype) << " x = " << x.data[i];
      formula.data[i] = GeluFormula(x.data[i]);
    }
    EXPECT_LT(RelativeError(y, formula), 1e-2) << DTypeName(dtype);
  }
}

TEST(ReferenceTest, SoftmaxRowsSumToOneAndMatchTheFormula) {
  constexpr int64_t kRows = 6, kCols = 300;
  HostTensor x = RandomTensor(DType::kF32, {kRows, kCols}, 3);
  for (int64_t j = 0; j < kCols; ++j) {
    x.data[1 * kCols + j] = F32(x.data[1 * kCols + j] + 1000.0);  // overflows exp without the max
    x.data[2 * kCols + j] = 0.5;                                  // a constant row
  }
  const HostTensor y = EvaluateOne(SoftmaxNaive(DType::kF32, kRows, kCols), x);
  ASSERT_EQ(y.data.size(), x.data.size());
  for (int64_t i = 0; i < kRows; ++i) {
    double max = -kInf, denominator = 0.0, row_sum = 0.0;
    for (int64_t j = 0; j < kCols; ++j) max = std::max(max, x.data[i * kCols + j]);
    for (int64_t j = 0; j < kCols; ++j) denominator += std::exp(x.data[i * kCols + j] - max);
    for (int64_t j = 0; j < kCols; ++j) {
      const double expected = std::exp(x.data[i * kCols + j] - max) / denominator;
      ASSERT_NEAR(y.data[i * kCols + j], expected, 1e-6 * expected) << i << "," << j;
      row_sum += y.data[i * kCols + j];
    }
    EXPECT_NEAR(row_sum, 1.0, 1e-5) << "row " << i;
  }
  EXPECT_EQ(y.data[2 * kCols], F32(1.0 / kCols));
}

// C[b,i,j] = sum over k of A[b,i,k] * B[b,k,j], accumulated in double in k order.
std::vector<double> NaiveMatmul(const HostTensor& a, const HostTensor& b, int64_t batch, int64_t m,
                                int64_t k, int64_t n, DType dtype) {
  std::vector<double> c(batch * m * n);
  for (int64_t p = 0; p < batch; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (int64_t q = 0; q < k; ++q)
          sum += a.data[(p * m + i) * k + q] * b.data[(p * k + q) * n + j];
        c[(p * m + i) * n + j] = RoundToDType(sum, dtype);
      }
    }
  }
  return c;
}

TEST(ReferenceTest, MatmulSmallClosedForm) {
  GraphBuilder b;
  Value a = b.Input("a", DType::kF32, {2, 2});
  Value w = b.Input("w", DType::kF32, {2, 2});
  std::vector<HostTensor> c = Evaluate(
      b.Build({Matmul(a, w)}),
      {Tensor(DType::kF32, {2, 2}, {1, 2, 3, 4}), Tensor(DType::kF32, {2, 2}, {5, 6, 7, 8})});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_THAT(c[0].shape, ElementsAre(2, 2));
  EXPECT_THAT(c[0].data, ElementsAre(19, 22, 43, 50));
}

TEST(ReferenceTest, MatmulMatchesNaiveLoops) {
  struct Case {
    int64_t batch, m, k, n;
    DType dtype;
  };
  // The 64x300x40 case is large enough to split rows across threads.
  for (const Case& c : {Case{1, 5, 7, 3, DType::kF32}, Case{1, 64, 300, 40, DType::kF32},
                        Case{1, 9, 33, 17, DType::kBF16}, Case{3, 4, 5, 2, DType::kF32},
                        Case{2, 6, 10, 3, DType::kF16}}) {
    GraphBuilder b;
    const bool batched = c.batch > 1;
    Dims a_shape = batched ? Dims{c.batch, c.m, c.k} : Dims{c.m, c.k};
    Dims b_shape = batched ? Dims{c.batch, c.k, c.n} : Dims{c.k, c.n};
    Value a = b.Input("a", c.dtype, a_shape);
    Value w = b.Input("w", c.dtype, b_shape);
    const HostTensor at = RandomTensor(c.dtype, a_shape, 10);
    const HostTensor wt = RandomTensor(c.dtype, b_shape, 11);
    std::vector<HostTensor> out = Evaluate(b.Build({Matmul(a, w)}), {at, wt});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dtype, c.dtype);
    EXPECT_THAT(out[0].shape, ElementsAreArray(batched ? Dims{c.batch, c.m, c.n} : Dims{c.m, c.n}));
    EXPECT_EQ(out[0].data, NaiveMatmul(at, wt, c.batch, c.m, c.k, c.n, c.dtype))
        << c.batch << "x" << c.m << "x" << c.k << "x" << c.n;
  }
}

TEST(ReferenceTest, IotaCountsAlongItsAxis) {
  GraphBuilder b;
  Value rows = b.Iota(DType::kI32, {2, 3}, 0);
  Value cols = b.Iota(DType::kF32, {2, 3}, 1);
  std::vector<HostTensor> out = Evaluate(*b.Build({rows + 0, cols * 1.0}), {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].data, ElementsAre(0, 0, 0, 1, 1, 1));
  EXPECT_THAT(out[1].data, ElementsAre(0, 1, 2, 0, 1, 2));
}

// Broadcast batch dims read the same matrix for every batch they span: each
// product equals the unbatched product of the matrices it pairs.
TEST(ReferenceTest, MatmulBroadcastsBatchDims) {
  GraphBuilder b;
  Value a = b.Input("a", DType::kF32, {2, 1, 4, 5});
  Value w = b.Input("w", DType::kF32, {3, 5, 6});
  const HostTensor at = RandomTensor(DType::kF32, {2, 1, 4, 5}, 20);
  const HostTensor wt = RandomTensor(DType::kF32, {3, 5, 6}, 21);
  std::vector<HostTensor> out = Evaluate(b.Build({Matmul(a, w)}), {at, wt});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].shape, ElementsAre(2, 3, 4, 6));
  auto matrix = [](const HostTensor& t, int64_t index, int64_t elements) {
    HostTensor m{.dtype = t.dtype, .shape = {1, elements}};
    m.data.assign(t.data.begin() + index * elements, t.data.begin() + (index + 1) * elements);
    return m;
  };
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      const std::vector<double> expected = NaiveMatmul(matrix(at, i, 20), matrix(wt, j, 30), 1, 4, 5, 6, DType::kF32);
      const std::vector<double> got(out[0].data.begin() + (i * 3 + j) * 24, out[0].data.begin() + (i * 3 + j + 1) * 24);
      EXPECT_EQ(got, expected) << "batch " << i << "," << j;
    }
  }
}

TEST(ReferenceTest, MatmulAccumulatesInDoubleAndRoundsOnce) {
  // In bf16 units of 2^-10 the sum is 1 + 6 units; bf16 spacing at 1 is 8 units,
  // so one rounding gives 1 + 2^-7, while bf16 running sums would stay at 1.
  GraphBuilder b;
  Value a = b.Input("a", DType::kBF16, {1, 3});
  Value w = b.Input("w", DType::kBF16, {3, 1});
  std::vector<HostTensor> out = Evaluate(
      b.Build({Matmul(a, w)}), {Tensor(DType::kBF16, {1, 3}, {1, 3 * 0x1p-10, 3 * 0x1p-10}),
                                Tensor(DType::kBF16, {3, 1}, {1, 1, 1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].data, ElementsAre(1.0 + 0x1p-7));
}

TEST(ReferenceTest, MatmulReluClampsNegatives) {
  const HostTensor a = RandomTensor(DType::kF32, {8, 16}, 4);
  const HostTensor w = RandomTensor(DType::kF32, {16, 12}, 5);
  std::vector<HostTensor> out = Evaluate(MatmulRelu(DType::kF32, 8, 12, 16), {a, w});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].shape, ElementsAre(8, 12));
  const std::vector<double> c = NaiveMatmul(a, w, 1, 8, 16, 12, DType::kF32);
  int negatives = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(out[0].data[i], c[i] > 0 ? c[i] : 0.0);
    negatives += c[i] < 0;
  }
  EXPECT_GT(negatives, 0);  // the check above exercised the clamp
}

// x[i,j,k] = 100i + 10j + k over [2,3,4], so every reduction has a closed form.
HostTensor Ramp() {
  HostTensor x{.dtype = DType::kF32, .shape = {2, 3, 4}};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) x.data.push_back(100 * i + 10 * j + k);
    }
  }
  return x;
}

HostTensor ReduceRamp(OpKind op, std::vector<int64_t> axes, bool keepdims) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {2, 3, 4});
  Value y = b.Add({.op = op, .axes = std::move(axes), .keepdims = keepdims}, {x});
  return EvaluateOne(b.Build({y}), Ramp());
}

TEST(ReferenceTest, ReductionsOverAxisSets) {
  std::vector<double> expected;
  HostTensor sum0 = ReduceRamp(OpKind::kReduceSum, {0}, false);
  EXPECT_THAT(sum0.shape, ElementsAre(3, 4));
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < 4; ++k) expected.push_back(100 + 20 * j + 2 * k);
  }
  EXPECT_EQ(sum0.data, expected);

  HostTensor sum1 = ReduceRamp(OpKind::kReduceSum, {1}, true);
  EXPECT_THAT(sum1.shape, ElementsAre(2, 1, 4));
  expected.clear();
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 4; ++k) expected.push_back(300 * i + 30 + 3 * k);
  }
  EXPECT_EQ(sum1.data, expected);

  HostTensor sum01 = ReduceRamp(OpKind::kReduceSum, {0, 1}, false);
  EXPECT_THAT(sum01.shape, ElementsAre(4));
  EXPECT_THAT(sum01.data, ElementsAre(360, 366, 372, 378));

  HostTensor sum02 = ReduceRamp(OpKind::kReduceSum, {0, 2}, true);
  EXPECT_THAT(sum02.shape, ElementsAre(1, 3, 1));
  EXPECT_THAT(sum02.data, ElementsAre(412, 492, 572));

  HostTensor max02 = ReduceRamp(OpKind::kReduceMax, {2, 0}, false);
  EXPECT_THAT(max02.shape, ElementsAre(3));
  EXPECT_THAT(max02.data, ElementsAre(103, 113, 123));

  HostTensor min1 = ReduceRamp(OpKind::kReduceMin, {-2}, false);
  EXPECT_THAT(min1.shape, ElementsAre(2, 4));
  EXPECT_THAT(min1.data, ElementsAre(0, 1, 2, 3, 100, 101, 102, 103));

  HostTensor mean01 = ReduceRamp(OpKind::kReduceMean, {0, 1}, true);
  EXPECT_THAT(mean01.shape, ElementsAre(1, 1, 4));
  EXPECT_THAT(mean01.data, ElementsAre(60, 61, 62, 63));

  HostTensor all = ReduceRamp(OpKind::kReduceSum, {0, 1, 2}, false);
  EXPECT_THAT(all.shape, ElementsAre());
  EXPECT_THAT(all.data, ElementsAre(1476));
  HostTensor all_kept = ReduceRamp(OpKind::kReduceMax, {0, 1, 2}, true);
  EXPECT_THAT(all_kept.shape, ElementsAre(1, 1, 1));
  EXPECT_THAT(all_kept.data, ElementsAre(123));
}

TEST(ReferenceTest, RowSumMatchesSequentialSums) {
  // 300 rows of 1000: split across threads, each row summed in column order.
  const HostTensor x = RandomTensor(DType::kF32, {300, 1000}, 6);
  const HostTensor y = EvaluateOne(RowSum(DType::kF32, 300, 1000), x);
  ASSERT_EQ(y.data.size(), 300u);
  for (int64_t i = 0; i < 300; ++i) {
    double sum = 0.0;
    for (int64_t j = 0; j < 1000; ++j) sum += x.data[i * 1000 + j];
    ASSERT_EQ(y.data[i], F32(sum)) << "row " << i;
  }
}

TEST(ReferenceTest, ReductionRoundingNaNAndIntegers) {
  GraphBuilder b;
  Value h = b.Input("h", DType::kBF16, {2, 2});
  Value f = b.Input("f", DType::kF32, {3});
  std::vector<HostTensor> out =
      Evaluate(b.Build({ReduceSum(h, {1}), ReduceMax(f, {0}), ReduceMin(f, {0}), ReduceMean(h, {0, 1})}),
               {Tensor(DType::kBF16, {2, 2}, {1, 0x1p-8, 1, 3 * 0x1p-8}), Tensor(DType::kF32, {3}, {1, kNaN, 3})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(out[0].data, ElementsAre(1.0, 1.0 + 0x1p-6));  // bf16 ties to even
  EXPECT_TRUE(std::isnan(out[1].data[0]));
  EXPECT_TRUE(std::isnan(out[2].data[0]));
  EXPECT_THAT(out[3].data, ElementsAre(RoundToDType((2 + 4 * 0x1p-8) / 4, DType::kBF16)));
}

TEST(ReferenceTest, Broadcasting) {
  GraphBuilder b;
  Value col = b.Input("col", DType::kF32, {3, 1});
  Value row = b.Input("row", DType::kF32, {1, 4});
  Value cube = b.Input("cube", DType::kF32, {2, 3, 4});
  Value vec = b.Input("vec", DType::kF32, {4});
  std::vector<HostTensor> out =
      Evaluate(b.Build({col + row, col * 3.0, 10.0 - vec, cube + vec, cube * col}),
               {Tensor(DType::kF32, {3, 1}, {0, 10, 20}), Tensor(DType::kF32, {1, 4}, {1, 2, 3, 4}),
                Ramp(), Tensor(DType::kF32, {4}, {1000, 2000, 3000, 4000})});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_THAT(out[0].shape, ElementsAre(3, 4));
  EXPECT_THAT(out[0].data, ElementsAre(1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24));
  EXPECT_THAT(out[1].shape, ElementsAre(3, 1));
  EXPECT_THAT(out[1].data, ElementsAre(0, 30, 60));
  EXPECT_THAT(out[2].data, ElementsAre(-990, -1990, -2990, -3990));
  EXPECT_THAT(out[3].shape, ElementsAre(2, 3, 4));
  EXPECT_THAT(out[4].shape, ElementsAre(2, 3, 4));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k) {
        const double x = 100 * i + 10 * j + k;
        EXPECT_EQ(out[3].data[(i * 3 + j) * 4 + k], x + 1000 * (k + 1));
        EXPECT_EQ(out[4].data[(i * 3 + j) * 4 + k], x * 10 * j);
      }
    }
  }
}

TEST(ReferenceTest, HalfPrecisionResultsAreRounded) {
  GraphBuilder b;
  Value h = b.Input("h", DType::kBF16, {2});
  Value g = b.Input("g", DType::kF16, {4});
  std::vector<HostTensor> out =
      Evaluate(b.Build({h + 0x1p-8, h + 3 * 0x1p-8, g * g, g + 16.0}),
               {Tensor(DType::kBF16, {2}, {1, 256}),
                Tensor(DType::kF16, {4}, {300, 0x1p-12, 0x1p-13, 65504})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(out[0].data, ElementsAre(1.0, 256.0));
  EXPECT_THAT(out[1].data, ElementsAre(1.0 + 0x1p-6, 256.0));
  // 90000 overflows f16; 2^-24 is its smallest subnormal and 2^-26 rounds to 0.
  EXPECT_THAT(out[2].data, ElementsAre(kInf, 0x1p-24, 0.0, kInf));
  EXPECT_THAT(out[3].data, ElementsAre(316, 16, 16, kInf));  // 65520 is the tie that rounds to inf
}

TEST(ReferenceTest, UnaryAndBinaryMath) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4});
  Value y = b.Input("y", DType::kF32, {4});
  std::vector<Value> outputs = {Neg(x),  Abs(x),    Exp(x),     Log(y),   Tanh(x),       Erf(x),
                                Sqrt(y), Rsqrt(y),  Sigmoid(x), Relu(x),  Reciprocal(y), x - y,
                                x / y,   Max(x, y), Min(x, y),  Pow(y, x)};
  const std::vector<double> xs = {-1.5, 0.0, 2.0, kNaN};
  const std::vector<double> ys = {4.0, 0.25, 2.0, 1.0};
  std::vector<HostTensor> out =
      Evaluate(b.Build(outputs), {Tensor(DType::kF32, {4}, xs), Tensor(DType::kF32, {4}, ys)});
  ASSERT_EQ(out.size(), outputs.size());
  auto f32s = [](auto f, const std::vector<double>& v) {
    std::vector<double> r;
    for (double e : v) r.push_back(F32(f(e)));
    return r;
  };
  auto expect = [](const HostTensor& got, const std::vector<double>& want, const char* what) {
    ASSERT_EQ(got.data.size(), want.size()) << what;
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got.data[i])) << what << " [" << i << "]";
      } else {
        EXPECT_EQ(got.data[i], want[i]) << what << " [" << i << "]";
      }
    }
  };
  expect(out[0], {1.5, -0.0, -2.0, kNaN}, "neg");
  expect(out[1], {1.5, 0.0, 2.0, kNaN}, "abs");
  expect(out[2], f32s([](double v) { return std::exp(v); }, xs), "exp");
  expect(out[3], {F32(std::log(4.0)), F32(std::log(0.25)), F32(std::log(2.0)), 0.0}, "log");
  expect(out[4], f32s([](double v) { return std::tanh(v); }, xs), "tanh");
  expect(out[5], f32s([](double v) { return std::erf(v); }, xs), "erf");
  expect(out[6], {2.0, 0.5, F32(std::sqrt(2.0)), 1.0}, "sqrt");
  expect(out[7], {0.5, 2.0, F32(1 / std::sqrt(2.0)), 1.0}, "rsqrt");
  expect(out[8], {F32(1 / (1 + std::exp(1.5))), 0.5, F32(1 / (1 + std::exp(-2.0))), kNaN},
         "sigmoid");
  expect(out[9], {0.0, 0.0, 2.0, kNaN}, "relu");
  expect(out[10], {0.25, 4.0, 0.5, 1.0}, "reciprocal");
  expect(out[11], {-5.5, -0.25, 0.0, kNaN}, "sub");
  expect(out[12], {-0.375, 0.0, 1.0, kNaN}, "div");
  expect(out[13], {4.0, 0.25, 2.0, kNaN}, "max");
  expect(out[14], {-1.5, 0.0, 2.0, kNaN}, "min");
  expect(out[15], {0.125, 1.0, 4.0, 1.0}, "pow");  // C pow: 1^NaN is 1
}

TEST(ReferenceTest, IntegerArithmeticSaturates) {
  GraphBuilder b;
  Value n = b.Input("n", DType::kI32, {3});
  std::vector<HostTensor> out =
      Evaluate(b.Build({n + n, n * n, -n, Relu(n), Abs(n)}),
               {Tensor(DType::kI32, {3}, {2147483647, -2147483648.0, -7})});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_THAT(out[0].data, ElementsAre(2147483647, -2147483648.0, -14));
  EXPECT_THAT(out[1].data, ElementsAre(2147483647, 2147483647, 49));
  EXPECT_THAT(out[2].data, ElementsAre(-2147483647, 2147483647, 7));
  EXPECT_THAT(out[3].data, ElementsAre(2147483647, 0, 0));
  EXPECT_THAT(out[4].data, ElementsAre(2147483647, 2147483647, 7));
}

TEST(ReferenceTest, CompareSelectAndCast) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {4});
  Value y = b.Input("y", DType::kF32, {4});
  Value n = b.Input("n", DType::kI32, {2});
  Value lt = Lt(x, y);
  std::vector<HostTensor> out = Evaluate(
      b.Build({lt, Le(x, y), Eq(x, y), Ne(x, y), Gt(x, y), Ge(x, y), Select(lt, x, y),
               Cast(x, DType::kI32), Cast(x, DType::kBool), Cast(x, DType::kBF16),
               Cast(n, DType::kF32), Cast(lt, DType::kF16), Eq(lt, Cast(x, DType::kBool))}),
      {Tensor(DType::kF32, {4}, {-1.75, 0.0, 2.5, kNaN}),
       Tensor(DType::kF32, {4}, {0.0, 0.0, 1.0, 1.0}), Tensor(DType::kI32, {2}, {16777217, -3})});
  ASSERT_EQ(out.size(), 13u);
  EXPECT_EQ(out[0].dtype, DType::kBool);
  EXPECT_THAT(out[0].data, ElementsAre(1, 0, 0, 0));            // lt; NaN compares false
  EXPECT_THAT(out[1].data, ElementsAre(1, 1, 0, 0));            // le
  EXPECT_THAT(out[2].data, ElementsAre(0, 1, 0, 0));            // eq
  EXPECT_THAT(out[3].data, ElementsAre(1, 0, 1, 1));            // ne; NaN is unequal
  EXPECT_THAT(out[4].data, ElementsAre(0, 0, 1, 0));            // gt
  EXPECT_THAT(out[5].data, ElementsAre(0, 1, 1, 0));            // ge
  EXPECT_THAT(out[6].data, ElementsAre(-1.75, 0.0, 1.0, 1.0));  // select(x < y, x, y)
  EXPECT_EQ(out[7].dtype, DType::kI32);
  EXPECT_THAT(out[7].data, ElementsAre(-1, 0, 2, 0));  // truncation; NaN becomes 0
  EXPECT_THAT(out[8].data, ElementsAre(1, 0, 1, 1));   // != 0; NaN is true
  EXPECT_EQ(out[9].dtype, DType::kBF16);
  EXPECT_THAT(out[9].data, ElementsAre(-1.75, 0.0, 2.5, ::testing::IsNan()));
  EXPECT_EQ(out[10].dtype, DType::kF32);
  EXPECT_THAT(out[10].data, ElementsAre(16777216, -3));  // 2^24 + 1 is not an f32
  EXPECT_THAT(out[11].data, ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(out[12].data, ElementsAre(1, 1, 0, 0));  // eq on bools
}

TEST(ReferenceTest, ApplyElementwiseRoundsToTheNodeDType) {
  const Node add{.name = "a", .op = OpKind::kAdd, .operands = {0, 1}, .dtype = DType::kBF16};
  const double sum_operands[] = {1.0, 3 * 0x1p-8};
  EXPECT_EQ(ApplyElementwise(add, sum_operands), 1.0 + 0x1p-6);
  const Node select{
      .name = "s", .op = OpKind::kSelect, .operands = {0, 1, 2}, .dtype = DType::kF32};
  const double select_operands[] = {0.0, 1.0, 2.0};
  EXPECT_EQ(ApplyElementwise(select, select_operands), 2.0);
  const Node cast{.name = "c", .op = OpKind::kCast, .operands = {0}, .dtype = DType::kI32};
  const double cast_operand[] = {-7.9};
  EXPECT_EQ(ApplyElementwise(cast, cast_operand), -7.0);
}

TEST(ReferenceTest, TransposeAndReshape) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {2, 3, 4});
  Value t = Transpose(x, {2, 0, 1});
  Value flat = Reshape(x, {24});
  Value doubled = x * 2.0;
  Value moved = Reshape(doubled, {4, 6});  // the reshape is doubled's only use
  Value tripled = x * 3.0;
  Value shared = Reshape(tripled, {6, 4});  // tripled is also an output
  Value halved = x * 0.5;
  Value early = Reshape(halved, {24});  // halved is used again after the reshape
  Value late = halved + 1.0;
  std::vector<HostTensor> out =
      Evaluate(b.Build({t, flat, moved, shared, tripled, early, late}), {Ramp()});
  ASSERT_EQ(out.size(), 7u);
  EXPECT_THAT(out[0].shape, ElementsAre(4, 2, 3));
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) EXPECT_EQ(out[0].data[(k * 2 + i) * 3 + j], 100 * i + 10 * j + k);
    }
  }
  EXPECT_THAT(out[1].shape, ElementsAre(24));
  EXPECT_EQ(out[1].data, Ramp().data);
  EXPECT_THAT(out[2].shape, ElementsAre(4, 6));
  EXPECT_THAT(out[3].shape, ElementsAre(6, 4));
  for (size_t i = 0; i < 24; ++i) {
    EXPECT_EQ(out[2].data[i], 2 * Ramp().data[i]);
    EXPECT_EQ(out[3].data[i], 3 * Ramp().data[i]);
    EXPECT_EQ(out[4].data[i], 3 * Ramp().data[i]);
    EXPECT_EQ(out[5].data[i], 0.5 * Ramp().data[i]);
    EXPECT_EQ(out[6].data[i], 0.5 * Ramp().data[i] + 1);
  }
}

TEST(ReferenceTest, OutputsMayBeInputsAndIntermediates) {
  GraphBuilder b;
  Value x = b.Input("x", DType::kF32, {2});
  Value t = x + 1.0;
  Value z = t * t;
  std::vector<HostTensor> out = Evaluate(b.Build({z, x, t}), {Tensor(DType::kF32, {2}, {1, 2})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(out[0].data, ElementsAre(4, 9));
  EXPECT_THAT(out[1].data, ElementsAre(1, 2));
  EXPECT_THAT(out[2].data, ElementsAre(2, 3));
}

TEST(ReferenceTest, RejectsMismatchedInputs) {
  GraphBuilder b;
  Value a = b.Input("a", DType::kBF16, {2, 3});
  Value n = b.Input("n", DType::kI32, {2});
  Value p = b.Input("p", DType::kBool, {1});
  absl::StatusOr<Graph> graph = b.Build({a * 2.0, n + n, Cast(p, DType::kF32)});
  ASSERT_TRUE(graph.ok()) << graph.status();
  const HostTensor good_a = RandomTensor(DType::kBF16, {2, 3}, 1);
  const HostTensor good_n = Tensor(DType::kI32, {2}, {4, -5});
  const HostTensor good_p = Tensor(DType::kBool, {1}, {1});
  auto run = [&](HostTensor ta, HostTensor tn, HostTensor tp) {
    return EvaluateReference(*graph, {ta, tn, tp}).status();
  };
  ASSERT_TRUE(run(good_a, good_n, good_p).ok());
  ExpectInvalid(EvaluateReference(*graph, {good_a}).status(),
                "the graph takes 3 input tensors (\"a\", \"n\", \"p\"), got 1");
  ExpectInvalid(run(RandomTensor(DType::kF32, {2, 3}, 1), good_n, good_p),
                "node \"a\" (input): expected bf16[2,3], got f32[2,3]");
  ExpectInvalid(run(RandomTensor(DType::kBF16, {3, 2}, 1), good_n, good_p),
                "node \"a\" (input): expected bf16[2,3], got bf16[3,2]");
  ExpectInvalid(run(Tensor(DType::kBF16, {2, 3}, {1, 2, 3}), good_n, good_p),
                "node \"a\" (input): tensor holds 3 values for 6 elements");
  ExpectInvalid(run(Tensor(DType::kBF16, {2, 3}, {1, 2, 3, 4, 5, 0.1}), good_n, good_p),
                "node \"a\" (input): value 0.1 at index 5 is not representable in bf16");
  ExpectInvalid(run(good_a, Tensor(DType::kI32, {2}, {1, 1.5}), good_p),
                "node \"n\" (input): value 1.5 at index 1 is not representable in i32");
  ExpectInvalid(run(good_a, Tensor(DType::kI32, {2}, {kNaN, 1}), good_p),
                "node \"n\" (input): value nan at index 0 is not representable in i32");
  ExpectInvalid(run(good_a, good_n, Tensor(DType::kBool, {1}, {2})),
                "node \"p\" (input): value 2 at index 0 is not representable in bool");
  // NaN and infinity are valid float inputs.
  EXPECT_TRUE(run(Tensor(DType::kBF16, {2, 3}, {kNaN, kInf, -kInf, 0, 1, 2}), good_n, good_p).ok());
}

TEST(RandomTensorTest, SeededRangedAndNotZero) {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    const HostTensor t = RandomTensor(dtype, {100, 1000}, 42);
    EXPECT_EQ(t.dtype, dtype);
    EXPECT_THAT(t.shape, ElementsAre(100, 1000));
    ASSERT_EQ(t.data.size(), 100000u);
    EXPECT_EQ(t.data, RandomTensor(dtype, {100, 1000}, 42).data);
    EXPECT_NE(t.data, RandomTensor(dtype, {100, 1000}, 43).data);
    double min = kInf, max = -kInf, sum = 0.0;
    for (double v : t.data) {
      ASSERT_EQ(RoundToDType(v, dtype), v);
      min = std::min(min, v);
      max = std::max(max, v);
      sum += v;
    }
    EXPECT_GE(min, -2.0);
    EXPECT_LT(max, 2.0);
    EXPECT_LT(min, -1.9);
    EXPECT_GT(max, 1.9);
    EXPECT_NEAR(sum / 100000, 0.0, 0.05) << DTypeName(dtype);
  }
  const HostTensor n = RandomTensor(DType::kI32, {100000}, 7);
  EXPECT_EQ(*std::min_element(n.data.begin(), n.data.end()), -100);
  EXPECT_EQ(*std::max_element(n.data.begin(), n.data.end()), 100);
  for (double v : n.data) ASSERT_EQ(v, std::trunc(v));
  const HostTensor p = RandomTensor(DType::kBool, {1000}, 7);
  const int64_t ones = std::count(p.data.begin(), p.data.end(), 1.0);
  EXPECT_EQ(ones + std::count(p.data.begin(), p.data.end(), 0.0), 1000);
  EXPECT_GT(ones, 400);
  EXPECT_LT(ones, 600);
}

TEST(RandomTensorTest, TinyTensorsAreNeverAllZero) {
  for (uint64_t seed = 0; seed < 64; ++seed) {
    EXPECT_EQ(RandomTensor(DType::kBool, {1}, seed).data[0], 1.0) << seed;
    EXPECT_NE(RandomTensor(DType::kI32, {1}, seed).data[0], 0.0) << seed;
  }
  const HostTensor scalar = RandomTensor(DType::kF32, {}, 3);
  ASSERT_EQ(scalar.data.size(), 1u);
  EXPECT_NE(scalar.data[0], 0.0);
}

TEST(RelativeErrorTest, Cases) {
  const HostTensor ref = Tensor(DType::kF32, {2, 2}, {3, 0, -4, 0});
  EXPECT_EQ(RelativeError(ref, ref), 0.0);
  EXPECT_DOUBLE_EQ(RelativeError(Tensor(DType::kF32, {2, 2}, {3, 1, -4, 0}), ref), 0.2);
  EXPECT_DOUBLE_EQ(RelativeError(Tensor(DType::kF32, {2, 2}, {3.3, 0, -4.4, 0}), ref), 0.1);
  // An all-zero reference gives the absolute error.
  const HostTensor zeros = Tensor(DType::kF32, {2}, {0, 0});
  EXPECT_DOUBLE_EQ(RelativeError(Tensor(DType::kF32, {2}, {3, 4}), zeros), 5.0);
  EXPECT_EQ(RelativeError(zeros, zeros), 0.0);
  // Mismatched shapes or dtypes never pass.
  EXPECT_EQ(RelativeError(Tensor(DType::kF32, {4}, {3, 0, -4, 0}), ref), kInf);
  EXPECT_EQ(RelativeError(Tensor(DType::kBF16, {2, 2}, {3, 0, -4, 0}), ref), kInf);
  EXPECT_EQ(RelativeError(Tensor(DType::kF32, {2, 2}, {3, 0, -4}), ref), kInf);
  // NaN never passes unless the reference has it in the same place.
  EXPECT_EQ(RelativeError(Tensor(DType::kF32, {2, 2}, {3, kNaN, -4, 0}), ref), kInf);
  const HostTensor ref_nan = Tensor(DType::kF32, {2}, {kNaN, 1});
  EXPECT_EQ(RelativeError(Tensor(DType::kF32, {2}, {kNaN, 1}), ref_nan), 0.0);
  EXPECT_EQ(RelativeError(Tensor(DType::kF32, {2}, {0, 1}), ref_nan), kInf);
  // Matching infinities are exact; any other infinity is an infinite error.
  const HostTensor ref_inf = Tensor(DType::kF32, {2}, {kInf, 1});
  EXPECT_EQ(RelativeError(Tensor(DType::kF32, {2}, {kInf, 1}), ref_inf), 0.0);
  EXPECT_EQ(RelativeError(Tensor(DType::kF32, {2}, {-kInf, 1}), ref_inf), kInf);
  EXPECT_EQ(RelativeError(Tensor(DType::kF32, {2}, {kInf, 1}), Tensor(DType::kF32, {2}, {5, 1})),
            kInf);
}

}  // namespace
}  // namespace kiln
