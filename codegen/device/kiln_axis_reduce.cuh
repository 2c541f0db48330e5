// ---- column-tile reductions over leading and middle axes
// (codegen/axis_reduction_emitter.cc). Every combine runs in a fixed order,
// so a result is bit-identical from run to run whatever the timing. ----

// The largest power of two below n (n >= 2): the first stride of a pairwise tree over n lanes.
__device__ constexpr int kiln_tree_top(int n) { return n <= 2 ? 1 : 2 * kiln_tree_top((n + 1) / 2); }

// Combines `v` over the kLanes threads threadIdx.x + k * kStride whose lane
// (this thread's index among them) runs 0..kLanes-1, as a pairwise tree; lane
// 0 returns the result. `slots` holds one vector for each thread of the block.
// The leading barrier lets consecutive calls reuse `slots`.
template <typename Op, int V, int kLanes, int kStride>
__device__ __forceinline__ KilnVec<float, V> kiln_lanes_reduce(KilnVec<float, V> v, KilnVec<float, V>* slots,
                                                               int lane) {
  if constexpr (kLanes == 1) return v;
  __syncthreads();
  slots[threadIdx.x] = v;
#pragma unroll
  for (int step = kiln_tree_top(kLanes); step >= 1; step >>= 1) {
    __syncthreads();
    if (lane < step && lane + step < kLanes) {
      const KilnVec<float, V> other = slots[threadIdx.x + step * kStride];
#pragma unroll
      for (int j = 0; j < V; ++j) v.v[j] = Op::combine(v.v[j], other.v[j]);
      slots[threadIdx.x] = v;
    }
  }
  return v;
}

// A float another block wrote in this launch: read from L2, never from a stale L1 line.
__device__ __forceinline__ float kiln_load_cg(const float* p) {
  float v;
  asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ float4 kiln_load_cg4(const float4* p) {
  float4 v;
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

// Called by every thread of a block once it has written its partial: true, in
// every thread, for the last of the `blocks` blocks sharing `counter` to
// arrive, which may then read all their partials. That block also resets the
// counter for the next launch (no block of this one touches it again).
// `flag` is a shared int of the block.
__device__ __forceinline__ bool kiln_split_arrive(unsigned* counter, unsigned blocks, int* flag) {
  __threadfence();  // this block's partial is visible device-wide before its arrival
  __syncthreads();
  if (threadIdx.x == 0) {
    const bool last = atomicAdd(counter, 1u) == blocks - 1;
    if (last) *counter = 0u;
    *flag = last;
  }
  __syncthreads();
  const bool last = *flag != 0;
  if (last) __threadfence();  // every other block's partial is seen after its arrival
  return last;
}
