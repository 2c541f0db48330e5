// The hardware figures that planning and the roofline use, and the choices a
// user may impose on the planner to measure alternatives. With no GPU the
// defaults describe an NVIDIA H200; a runtime with a device fills them from it.
//
//   DeviceLimits limits;                  // H200 defaults
//   limits.sm_count = 114;                // e.g. an H100 PCIe
//   limits.BlockRowBudgetBytes()          // on-chip bytes one block may hold
//   limits.matmul_tile = MatmulTile{.block_m = 128, .block_n = 128, .block_k = 64, .stages = 4};
#ifndef KILN_FUSION_DEVICE_LIMITS_H_
#define KILN_FUSION_DEVICE_LIMITS_H_

#include <cstdint>
#include <optional>

namespace kiln {

// A tensor-core matmul tile: block_m, block_n in {64, 128, 256} (not both
// 256), block_k in {32, 64}, stages in 2..8 within the SM's shared memory,
// and tile rows per launch group in 1..64. Groups of 16 rows of 128 keep an
// 8192-wide bf16 A block (32 MiB) in L2 while B streams past it: measured with
// 128x256 tiles at 8192^3, 1.23 GB of DRAM reads against 1.49 with groups of 8.
struct MatmulTile {
  int block_m = 128, block_n = 128, block_k = 32, stages = 4, group_m = 16;
};

struct DeviceLimits {
  int sm_count = 132;
  int64_t registers_per_sm = 65536;         // 32-bit registers
  int max_threads_per_block = 1024;
  int max_cluster_blocks = 8;                // portable thread-block cluster size
  bool supports_clusters = true;
  int64_t shared_bytes_per_block = 227 * 1024;  // opt-in dynamic shared memory
  // Rates for the roofline bound.
  double hbm_bytes_per_second = 4.22e12;    // measured copy rate, read + write
  double f32_flops_per_second = 67e12;
  double tensor_flops_per_second = 790e12;  // dense bf16/f16 matrix rate, measured
  // Set: every f16/bf16 matmul uses this tile instead of the planner's choice.
  std::optional<MatmulTile> matmul_tile;

  // Values one thread may keep in registers for a persistent row: enough to
  // hold a long row while leaving registers for the arithmetic around it.
  static constexpr int kValuesPerThread = 32;

  // Bytes of f32 row data one block may hold persistently: half the SM's
  // register file, so two blocks can still overlap their loads.
  int64_t BlockRowBudgetBytes() const { return registers_per_sm * 4 / 2; }
};

}  // namespace kiln

#endif  // KILN_FUSION_DEVICE_LIMITS_H_
