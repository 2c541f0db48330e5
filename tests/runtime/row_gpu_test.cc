// Short rows on a GPU: rows packed into warps (a group of lanes per row) and
// warps covering several rows in turn, for every op of the sweep, against the
// reference interpreter. Every test skips with a message where there is no
// CUDA device.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fusion/planner.h"
#include "gtest/gtest.h"
#include "tests/differential.h"
#include "tests/row_test_graphs.h"

namespace kiln {
namespace {

class RowGpuTest : public SharedDeviceTest {
 protected:
  // Fused plan only: the unfused one has no short-row kernel to check.
  static std::string Check(const Graph& graph, KernelCache& cache, uint64_t seed, const DeviceLimits& limits) {
    return CheckAgainstReference(graph, device(), cache, seed, limits, nullptr, std::nullopt, nullptr, {},
                                 /*fused_only=*/true);
  }
  // The device's limits as if it had one SM: a lane group keeps its several
  // rows (which the planner gives up where they would leave SMs short of
  // warps) on the few thousand rows a test can afford to check on the CPU.
  static DeviceLimits OneSm() {
    DeviceLimits limits = DeviceLimitsOf(device().info());
    limits.sm_count = 1;
    return limits;
  }
  static const RowSchedule& Schedule(const Graph& graph, const DeviceLimits& limits, Plan& plan) {
    plan = *PlanFusion(graph, limits);
    return plan.kernels.front().row();
  }
};

// Every length from 1 to 40 (the primes, the powers of two and their
// neighbours among them) in every float type: lane groups of 1 to 16 lanes,
// vectors of 1 to 8 elements, and a warp per row past 16 vectors. 20011 rows
// (a prime) leave the last warp and block partly filled.
TEST_F(RowGpuTest, ShortRowsOfEveryOpMatchTheReference) {
  KernelCache cache({.use_disk = false});
  const DeviceLimits limits = OneSm();
  struct Case {
    RowOp op;
    DType dtype;
    int64_t cols;
    std::string strategy;
  };
  std::vector<Case> cases;
  int packed = 0, several_rows = 0;
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
      for (int64_t cols = 1; cols <= 40; ++cols) {
        Plan plan;
        const RowSchedule& row = Schedule(SweepRowGraph(op, dtype, 20011, cols), limits, plan);
        packed += row.strategy == RowStrategy::kPackedPersistent;
        several_rows += row.rows_per_group > 1;
        cases.push_back({op, dtype, cols, plan.kernels[0].Strategy()});
      }
    }
  }
  // The cases cover what they claim: most lengths packed, most covering several rows.
  EXPECT_GT(packed, 6 * 3 * 20);
  EXPECT_GT(several_rows, 6 * 3 * 30);
  const std::vector<std::string> results = RunChecksInParallel(static_cast<int>(cases.size()), [&](int i) {
    const Case& c = cases[i];
    return Check(SweepRowGraph(c.op, c.dtype, 20011, c.cols), cache, 100 + c.cols, limits);
  });
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    EXPECT_EQ(results[i], "") << RowOpName(c.op) << " " << DTypeName(c.dtype) << " [20011, " << c.cols
                              << "]: " << c.strategy;
  }
}

// A single row, a few rows in one partly filled warp, and a warp and one row.
TEST_F(RowGpuTest, FewRowsMatchTheReference) {
  KernelCache cache({.use_disk = false});
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16}) {
      for (int64_t cols : {1, 2, 3, 8, 13, 33}) {
        for (int64_t rows : {1, 5, 33}) {
          EXPECT_EQ(Check(SweepRowGraph(op, dtype, rows, cols), cache, 7, limits), "")
              << RowOpName(op) << " " << DTypeName(dtype) << " [" << rows << ", " << cols << "]";
        }
      }
    }
  }
}

// The sweep's short-row cliff, on the device's own limits at the most rows a
// group covers, with millions of rows (smaller than the sweep's so that the
// reference stays quick).
TEST_F(RowGpuTest, SweepShapesMatchTheReference) {
  KernelCache cache({.use_disk = false});
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  struct Case {
    RowOp op;
    DType dtype;
    int64_t rows, cols;
  };
  for (const Case& c : {Case{RowOp::kSoftmax, DType::kF32, 4194319, 1}, Case{RowOp::kLayerNorm, DType::kBF16, 4194319, 1},
                        Case{RowOp::kSum, DType::kF32, 2097169, 2}, Case{RowOp::kRmsNorm, DType::kF32, 2097169, 2},
                        Case{RowOp::kSoftmax, DType::kF32, 1398107, 3}, Case{RowOp::kLogSumExp, DType::kF32, 262147, 32},
                        Case{RowOp::kSum, DType::kBF16, 254201, 33}, Case{RowOp::kLogSumExp, DType::kF16, 254201, 33},
                        Case{RowOp::kLayerNorm, DType::kF32, 254201, 33}, Case{RowOp::kMax, DType::kF32, 254201, 33}}) {
    const Graph graph = SweepRowGraph(c.op, c.dtype, c.rows, c.cols);
    Plan plan;
    const RowSchedule& row = Schedule(graph, limits, plan);
    EXPECT_GT(row.rows_per_group, 1) << plan.kernels[0].Strategy();
    EXPECT_EQ(Check(graph, cache, 3, limits), "")
        << RowOpName(c.op) << " " << DTypeName(c.dtype) << " [" << c.rows << ", " << c.cols << "]: "
        << plan.kernels[0].Strategy();
  }
}

// Rows whose length is not a multiple of the vector width: every residue
// of 8 around 4096 (each of the 37 rows starts at another offset into its
// first vector), in every float type and sweep op, on the device's own
// limits (a block per row).
TEST_F(RowGpuTest, UnalignedRowsOfEveryOpMatchTheReference) {
  KernelCache cache({.use_disk = false});
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  for (RowOp op : kRowOps) {
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
      for (int64_t cols = 4089; cols <= 4099; ++cols) {
        const Graph graph = SweepRowGraph(op, dtype, 37, cols);
        EXPECT_EQ(Check(graph, cache, 200 + cols, limits), "")
            << RowOpName(op) << " " << DTypeName(dtype) << " [37, " << cols << "]: "
            << PlanFusion(graph, limits)->kernels[0].Strategy();
      }
    }
  }
}

// Unaligned rows under every strategy: a warp per row (odd lengths up to
// 1023), a block per row, looped passes, split over a cluster (persistent
// and looped, where each block's segment has its own ends), and lengths
// shorter than two vectors; primes and vocabulary sizes among them.
TEST_F(RowGpuTest, UnalignedRowsOfEveryStrategyMatchTheReference) {
  KernelCache cache({.use_disk = false});
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  struct Case {
    int64_t rows, cols;
  };
  for (const Case& c : {Case{67, 9}, Case{67, 15}, Case{67, 41}, Case{67, 257}, Case{67, 999}, Case{67, 1021},
                        Case{67, 1025}, Case{37, 2053}, Case{37, 4093}, Case{37, 4095}, Case{37, 4097},
                        Case{19, 8191}, Case{11, 32749}, Case{7, 50257}, Case{5, 65521}, Case{3, 128255},
                        Case{2, 131071}, Case{1, 262139}}) {
    for (RowOp op : {RowOp::kSum, RowOp::kSoftmax, RowOp::kLayerNorm, RowOp::kRmsNorm}) {
      for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
        const Graph graph = SweepRowGraph(op, dtype, c.rows, c.cols);
        EXPECT_EQ(Check(graph, cache, 17 + c.cols, limits), "")
            << RowOpName(op) << " " << DTypeName(dtype) << " [" << c.rows << ", " << c.cols << "]: "
            << PlanFusion(graph, limits)->kernels[0].Strategy();
      }
    }
  }
}

// Fused epilogues, a second full-shape input and output, a column bias of
// another type than the rows, and a row output beside a full one, on
// unaligned rows of each strategy.
TEST_F(RowGpuTest, UnalignedRowsWithEpiloguesAndOperandsMatchTheReference) {
  KernelCache cache({.use_disk = false});
  const DeviceLimits limits = DeviceLimitsOf(device().info());
  for (int64_t cols : {33, 1023, 4093, 4097, 50257}) {
    const int64_t rows = cols > 10000 ? 5 : 41;
    for (DType dtype : {DType::kF32, DType::kBF16, DType::kF16}) {
      for (const Graph& graph : {ResidualNormSilu(dtype, rows, cols), BiasedSoftmaxWithLogSumExp(dtype, rows, cols)}) {
        EXPECT_EQ(Check(graph, cache, 5 + cols, limits), "")
            << graph.node(graph.outputs()[0]).name << " " << DTypeName(dtype) << " [" << rows << ", " << cols << "]";
      }
    }
  }
}

}  // namespace
}  // namespace kiln
