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

}  // namespace
}  // namespace kiln
