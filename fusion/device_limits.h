// The hardware figures that planning and the roofline use. With no GPU the
// defaults describe an NVIDIA H200; a runtime with a device fills them from it.
//
//   DeviceLimits limits;                  // H200 defaults
//   limits.sm_count = 114;                // e.g. an H100 PCIe
//   limits.BlockRowBudgetBytes()          // on-chip bytes one block may hold
//   limits.Arch()                         // "sm_90a": what NVRTC compiles for
#ifndef KILN_FUSION_DEVICE_LIMITS_H_
#define KILN_FUSION_DEVICE_LIMITS_H_

#include <array>
#include <cstdint>
#include <string>

namespace kiln {

// Clusters the GPU holds at once, by cluster size and blocks an SM. A
// cluster's blocks share one GPC, and a GPC whose SMs leave block slots over
// holds one cluster fewer than its slots suggest: an H100 holds 30 clusters
// of 8 blocks at two blocks an SM, not the 33 its 264 slots would.
struct ClusterResidency {
  static constexpr int kSizes = 3;             // clusters of 2, 4 and 8 blocks
  static constexpr int kMaxBlocksPerSm = 4;    // 1 to 4 blocks an SM
  // clusters[i][b - 1]: clusters of 2 << i blocks at b blocks an SM; 0 where
  // not known.
  std::array<std::array<int, kMaxBlocksPerSm>, kSizes> clusters{};

  // The count, or 0 where the table has no entry for the pair.
  int At(int cluster_blocks, int blocks_per_sm) const;
};

// cudaOccupancyMaxActiveClusters on an H100 SXM (s23,
// bench/probes/cluster_residency.cu): what planning assumes with no GPU.
ClusterResidency H100ClusterResidency();

struct DeviceLimits {
  int sm_count = 132;
  int64_t registers_per_sm = 65536;         // 32-bit registers
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int max_cluster_blocks = 8;                // portable thread-block cluster size
  bool supports_clusters = true;
  int64_t shared_bytes_per_block = 227 * 1024;  // opt-in dynamic shared memory
  // The register file is split evenly between the SM's warp schedulers, and
  // a warp's registers come from its scheduler's share in whole units.
  static constexpr int kRegisterPartitionsPerSm = 4;
  static constexpr int kRegistersPerWarpUnit = 256;
  // Shared memory the driver keeps for itself in every block, beside that.
  static constexpr int64_t kReservedSharedBytesPerBlock = 1024;
  static constexpr int64_t kSharedAllocationUnit = 128;
  // Rates for the roofline bound.
  double hbm_bytes_per_second = 4.22e12;    // measured copy rate, read + write
  double f32_flops_per_second = 67e12;
  double tensor_flops_per_second = 790e12;  // dense bf16/f16 matrix rate, measured
  // Compute capability, major * 10 + minor: 90 has Hopper's wgmma and TMA.
  int compute_capability = 90;
  // Measured by a runtime with a device; with none, an H100's. Limits that
  // describe another GPU clear it, leaving the block slots to bound clusters.
  ClusterResidency cluster_residency = H100ClusterResidency();

  // Values one thread may keep in registers for a persistent row: enough to
  // hold a long row while leaving registers for the arithmetic around it.
  static constexpr int kValuesPerThread = 32;

  // Bytes of f32 row data one block may hold persistently: half the SM's
  // register file, so two blocks can still overlap their loads.
  int64_t BlockRowBudgetBytes() const { return registers_per_sm * 4 / 2; }

  // Blocks one SM holds by shared memory when each takes `bytes_per_block`:
  // the SM has one block's opt-in limit plus the reserve, and every block
  // takes the reserve on top of its own bytes.
  int64_t BlocksBySharedMemory(int64_t bytes_per_block) const {
    return (shared_bytes_per_block + kReservedSharedBytesPerBlock) / (bytes_per_block + kReservedSharedBytesPerBlock);
  }

  // wgmma and setmaxnreg exist on compute capability 9.0 alone, and only in
  // code built for its architecture-specific target, sm_90a.
  bool HasWgmma() const { return compute_capability == 90; }

  // Clusters of `cluster_blocks` blocks the GPU holds at once at
  // `blocks_per_sm` blocks an SM: the measured count, else the SMs' block
  // slots divided by the cluster size, which can overstate it.
  int64_t ResidentClusters(int cluster_blocks, int blocks_per_sm) const;
  // The architecture NVRTC compiles for (see CompileArch).
  std::string Arch() const;
};

// The one place that names the architecture kernels are compiled for:
// "sm_90a" on compute capability 9.0, so Hopper-only instructions are
// available, and "sm_<major><minor>" elsewhere.
std::string CompileArch(int major, int minor);

}  // namespace kiln

#endif  // KILN_FUSION_DEVICE_LIMITS_H_
