// How many thread-block clusters the GPU holds at once, by cluster size and by
// the blocks an SM holds, from cudaOccupancyMaxActiveClusters. A cluster's
// blocks share one GPC, so where the GPCs' SM counts do not divide into
// clusters the GPU holds fewer than sm_count * blocks_per_sm / cluster_size.
// The blocks an SM holds are set with dynamic shared memory.
//
//   nvcc -arch=sm_90a -o cluster_residency bench/probes/cluster_residency.cu && ./cluster_residency
//
// Prints one line per cluster size (1-16; above 8 needs the non-portable
// opt-in): the resident clusters for 1, 2, 3, 4, 6 and 8 blocks an SM, and
// beside each the count the SMs' slots alone would allow.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void probe() {}

static bool Check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return false;
}

int main() {
  cudaDeviceProp prop;
  if (!Check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties")) return 1;
  const int per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  const int reserve = static_cast<int>(prop.reservedSharedMemPerBlock);
  std::printf("%s: %d SMs, %d B shared memory an SM, %d B reserved a block\n", prop.name,
              prop.multiProcessorCount, per_sm, reserve);
  if (!Check(cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), "non-portable opt-in") ||
      !Check(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(prop.sharedMemPerBlockOptin)),
             "shared memory opt-in")) {
    return 1;
  }
  const int blocks_per_sm[] = {1, 2, 3, 4, 6, 8};
  std::printf("cluster");
  for (int b : blocks_per_sm) std::printf("  %d/SM (slots)", b);
  std::printf("\n");
  for (int cluster = 1; cluster <= 16; ++cluster) {
    std::printf("%7d", cluster);
    for (int b : blocks_per_sm) {
      // The most a block may take so that b of them, each with its reserve,
      // fit in the SM's shared memory.
      const int shared = (per_sm / b - reserve) / 128 * 128;
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(cluster * 1024, 1, 1);
      config.blockDim = dim3(128, 1, 1);
      config.dynamicSmemBytes = static_cast<size_t>(shared);
      cudaLaunchAttribute attribute;
      attribute.id = cudaLaunchAttributeClusterDimension;
      attribute.val.clusterDim.x = cluster;
      attribute.val.clusterDim.y = 1;
      attribute.val.clusterDim.z = 1;
      config.attrs = &attribute;
      config.numAttrs = 1;
      int clusters = 0;
      int blocks = 0;
      if (!Check(cudaOccupancyMaxActiveClusters(&clusters, probe, &config), "cudaOccupancyMaxActiveClusters") ||
          !Check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, probe, 128, static_cast<size_t>(shared)),
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor")) {
        return 1;
      }
      if (blocks != b) std::printf("  [%d/SM]", blocks);
      std::printf("  %5d (%5d)", clusters, prop.multiProcessorCount * blocks / cluster);
    }
    std::printf("\n");
  }
  return 0;
}
