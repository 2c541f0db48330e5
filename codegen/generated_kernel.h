// What code generation produces for one kernel of a plan: CUDA source whose
// only identifiers are generated ones, the parameters it takes, and how to
// launch it.
//
//   absl::StatusOr<GeneratedKernel> k = GenerateKernel(graph, plan.kernels[0], limits);
//   k->name          // "f0_pointwise", the extern "C" symbol
//   k->Source()      // device library + kernel, ready for NVRTC
//   k->params        // one slot per parameter: a node's address, or a TMA descriptor of its memory
#ifndef KILN_CODEGEN_GENERATED_KERNEL_H_
#define KILN_CODEGEN_GENERATED_KERNEL_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace kiln {

struct LaunchShape {
  unsigned grid = 1;
  unsigned block = 1;
  unsigned cluster = 1;  // blocks per thread-block cluster (declared in the source)
  unsigned shared_bytes = 0;
};

// A TMA descriptor for the runtime to encode (cuTensorMapEncodeTiled) over a
// node's memory: a 3-D view, innermost dim first, read or written in boxes
// with the 128-byte swizzle kiln's Hopper kernels use, zeros past the edges.
struct TensorMapSpec {
  DType dtype = DType::kF32;
  std::array<int64_t, 3> dims = {1, 1, 1};  // elements
  std::array<int64_t, 2> strides = {0, 0};  // bytes from one index of dims[1], dims[2] to the next
  std::array<int, 3> box = {1, 1, 1};       // elements per copy
};

// One kernel parameter: the device address of a node's memory, or a TMA
// descriptor of it (passed by value as a __grid_constant__ CUtensorMap).
struct KernelParam {
  enum class Kind { kPointer, kTensorMap };
  Kind kind = Kind::kPointer;
  NodeId node = -1;
  bool written = false;  // an output of the kernel
  TensorMapSpec map;     // kTensorMap only
};

struct GeneratedKernel {
  std::string name;
  std::string body;  // the kernel alone, without the device library
  // Where the launch bound asks for several blocks per SM, which caps
  // ptxas's registers per thread: the ask, and where the bound,
  // LaunchBounds(launch.block, min_blocks_per_sm), sits in the body, so the
  // runtime can tune it (WithMinBlocks). min_blocks_per_sm is 0 for a kernel
  // whose bound is not to be tuned, 1 for a tuned one that asks for no
  // occupancy.
  int min_blocks_per_sm = 0;
  size_t bound_at = 0;  // offset of "__launch_bounds__(" in body
  LaunchShape launch;
  std::vector<KernelParam> params;  // in declaration order

  // A complete translation unit: the device library followed by the body.
  std::string Source() const;
  // The same kernel with its bound asking for `blocks` per SM (1: no ask,
  // so ptxas may use every register a block of its threads can have).
  // Only for a kernel whose bound asks for some (min_blocks_per_sm > 0).
  GeneratedKernel WithMinBlocks(int blocks) const;
};

// "__launch_bounds__(512, 4)", or "__launch_bounds__(512)" for one block.
std::string LaunchBounds(int threads, int min_blocks_per_sm);

}  // namespace kiln

#endif  // KILN_CODEGEN_GENERATED_KERNEL_H_
