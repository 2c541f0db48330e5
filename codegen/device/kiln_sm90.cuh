// ---- Hopper (sm_90a) building blocks: mbarriers, the bulk tensor copy
// engine (TMA), wgmma and register reallocation. Only kernels compiled for
// sm_90a see them: the instructions exist on no other architecture. ----
// (Host passes of nvcc see the declarations; NVRTC has no host pass.)
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

// The driver's CUtensorMap: 128 opaque bytes, 64-byte aligned. Kernels take
// it by value as a __grid_constant__ parameter, so the copy engine reads it
// from parameter memory and no global copy of it is needed.
struct alignas(64) KilnTensorMap {
  unsigned long long opaque[16];
};

// -- mbarriers (kiln_mbar_init and kiln_mbar_arrive_expect_tx live in
// kiln_device.cuh: cluster row reductions use them on any sm_90+ GPU).
// Barrier initialisation must be visible to the copy engine before any copy
// names the barrier.
__device__ __forceinline__ void kiln_mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void kiln_mbar_arrive(unsigned bar) {
  asm volatile("{ .reg .b64 state; mbarrier.arrive.shared::cta.b64 state, [%0]; }" ::"r"(bar) : "memory");
}
// An arrival on the barrier at `bar`'s offset in the shared memory of the
// cluster's block `rank` (this block's own included): a consumer frees a
// stage that another block's copies also fill. Its release is the CTA's, as
// for a local arrival: what it orders are this block's wgmma reads, which
// have completed. A release at cluster scope would fence every arrival
// (measured on an H200: 2232 us against 1369 us for bf16 8192^3).
__device__ __forceinline__ void kiln_mbar_arrive_cluster(unsigned bar, unsigned rank) {
  asm volatile(
      "{ .reg .b32 remote; mapa.shared::cluster.u32 remote, %0, %1; "
      "mbarrier.arrive.shared::cluster.b64 _, [remote]; }" ::"r"(bar),
      "r"(rank)
      : "memory");
}
__device__ __forceinline__ bool kiln_mbar_try_wait(unsigned bar, unsigned parity) {
  unsigned done;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
__device__ __forceinline__ void kiln_mbar_wait(unsigned bar, unsigned parity) {
  while (!kiln_mbar_try_wait(bar, parity)) {
  }
}

// -- TMA: one thread moves a whole box between global and shared memory.
// Boxes that reach past the tensor's edge read zeros and write nothing there.
__device__ __forceinline__ void kiln_tma_load_3d(unsigned dst, const KilnTensorMap* map, unsigned bar, int c0,
                                                 int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], "
      "[%2];" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// The same box, written to the same shared-memory offset of every block of
// the cluster in `blocks` (a bit per rank), each of whose barriers at `bar`'s
// offset counts the bytes that reach it: blocks that compute with one tile
// of an operand load it once for all of them.
__device__ __forceinline__ void kiln_tma_load_3d_multicast(unsigned dst, const KilnTensorMap* map, unsigned bar,
                                                           int c0, int c1, int c2, unsigned short blocks) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, "
      "{%3, %4, %5}], [%2], %6;" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "h"(blocks)
      : "memory");
}
__device__ __forceinline__ void kiln_tma_store_3d(const KilnTensorMap* map, unsigned src, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(map),
               "r"(src), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}
__device__ __forceinline__ void kiln_tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Waits until the committed stores have read their shared memory, so it may
// be overwritten (their global writes may still be in flight).
__device__ __forceinline__ void kiln_tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void kiln_tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
__device__ __forceinline__ void kiln_tma_prefetch_map(const KilnTensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}
// Ordinary stores to shared memory, made visible to the copy engine (the
// "async proxy") that reads it next.
__device__ __forceinline__ void kiln_fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// -- Named barriers, so one warpgroup can synchronise without the others.
__device__ __forceinline__ void kiln_named_barrier(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
// Whether `predicate` holds in any of the barrier's threads, which all get the answer.
__device__ __forceinline__ bool kiln_named_barrier_or(unsigned id, unsigned threads, bool predicate) {
  unsigned any;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n selp.u32 %0, 1, 0, q;\n}"
      : "=r"(any)
      : "r"(static_cast<unsigned>(predicate)), "r"(id), "r"(threads)
      : "memory");
  return any != 0;
}

// kiln_split_arrive (kiln_axis_reduce.cuh) for the `threads` threads of
// named barrier `id`, say a warpgroup, rather than a whole block (a group
// starts at a multiple of `threads`): called by each of them once it has
// written its partial, true in all of them for the last of the `arrivals`
// groups sharing `counter`, which also resets it.
__device__ __forceinline__ bool kiln_split_arrive_named(unsigned* counter, unsigned arrivals, unsigned id,
                                                        unsigned threads) {
  __threadfence();  // this group's partial is visible device-wide before its arrival
  kiln_named_barrier(id, threads);
  bool last = false;
  if (threadIdx.x % threads == 0) {
    last = atomicAdd(counter, 1u) == arrivals - 1;
    if (last) *counter = 0u;
  }
  last = kiln_named_barrier_or(id, threads, last);
  if (last) __threadfence();  // every other group's partial is seen after its arrival
  return last;
}

// -- wgmma: a warpgroup (4 warps) multiplies a 64xNx16 slice with A and B read
// from shared memory through descriptors, accumulating in registers,
// asynchronously. A descriptor names the start of the operand's tile, the
// byte strides between its 8-row core-matrix groups, and the 128-byte swizzle
// TMA wrote it with.
__device__ __forceinline__ unsigned long long kiln_wgmma_desc(unsigned address, unsigned leading_bytes,
                                                              unsigned stride_bytes) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>((leading_bytes & 0x3FFFF) >> 4) << 16) |
         (static_cast<unsigned long long>((stride_bytes & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}
__device__ __forceinline__ void kiln_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void kiln_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void kiln_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}
// Keeps the compiler from moving reads or writes of accumulators across the
// asynchronous wgmma that owns them.
template <int kCount>
__device__ __forceinline__ void kiln_fence_registers(float (&r)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

// -- Register reallocation between warpgroups: the producer gives registers
// back, the consumers holding accumulators take them.
template <int kRegisters>
__device__ __forceinline__ void kiln_release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void kiln_claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL
