// ---- split K for the block-per-tile matmul kernels (KilnFfmaMainloop and
// KilnMmaMainloop in kiln_matmul.cuh; the persistent wgmma kernel has its
// own units, in kiln_sm90_gemm.cuh). ----
// K's kKSteps steps are cut into kSplitK slices of kStepsPerSlice (the last
// may be shorter), and a block is one work unit: one slice of one tile. Unit
// u is slice u / kTiles of tile u % kTiles, so the blocks launched side by
// side share a K slice, and its operand rows in L2. Each unit writes its fp32
// partial tile to a slot of its own and counts its arrival on the tile's
// counter; the last of a tile's slices to arrive adds every slot in slice
// order, so the sum does not depend on which finished last, and runs the
// epilogue. No block waits for another. kSplitK = 1 is the plain kernel: a
// unit per tile, all of K.
template <int kTiles, int kKSteps, int kSplitK>
struct KilnKSlice {
  static constexpr int kStepsPerSlice = (kKSteps + kSplitK - 1) / kSplitK;
  static constexpr int kUnits = kTiles * kSplitK;
  // Partials a thread loads at once while it sums the slots: 32 registers,
  // which the 128-row FFMA tile (64 accumulators, 128 registers for two
  // blocks an SM) still has beside its accumulators. Partials move as
  // single floats: a float4 would need its accumulators in an aligned
  // register quad, and the copies into one spill that tile.
  static constexpr int kSumValues = 32;
  static_assert((kSplitK - 1) * kStepsPerSlice < kKSteps, "no slice is empty");

  int tile;
  int slice;

  // With one slice the unit is the tile, known to be slice 0.
  __device__ __forceinline__ explicit KilnKSlice(unsigned unit)
      : tile(kSplitK == 1 ? unit : unit % kTiles), slice(kSplitK == 1 ? 0 : unit / kTiles) {}
  __device__ __forceinline__ int first_step() const { return slice * kStepsPerSlice; }
  __device__ __forceinline__ int end_step() const { return min(first_step() + kStepsPerSlice, kKSteps); }

  // Publishes `m`'s accumulators (Mainloop::kValues a thread, m.value(i)) in
  // this unit's slot and counts its arrival. False, with the accumulators
  // left behind, but for the last of the tile's slices to arrive, whose
  // accumulators become the sum of every slice's slot; it also resets the
  // tile's counter for the next launch. `partials` holds kUnits slots of
  // Mainloop::kValues * Mainloop::kThreads floats and `arrivals` a counter
  // per tile, both zero before the first launch; `last` is a shared int.
  template <class Mainloop>
  __device__ __forceinline__ bool sum(Mainloop& m, float* partials, unsigned* arrivals, int* last) const {
    constexpr int kValues = Mainloop::kValues, kThreads = Mainloop::kThreads;
    constexpr int kColumns = kValues < kSumValues ? kValues : kSumValues;
    static_assert(kValues % kColumns == 0, "whole rounds");
    // Value e of thread t in slot (tile, slice) lies at e * kThreads + t, so a warp's accesses are contiguous.
    float* const slots = partials + static_cast<long long>(tile) * kSplitK * kValues * kThreads + threadIdx.x;
    auto at = [&](int s, int e) { return slots + (static_cast<long long>(s) * kValues + e) * kThreads; };
#pragma unroll
    for (int e = 0; e < kValues; ++e) *at(slice, e) = m.value(e);
    if (!kiln_split_arrive(&arrivals[tile], kSplitK, last)) return false;
    // Rounds of kColumns values, a slice at a time; the indices into the
    // accumulators stay compile-time, so they stay in registers.
#pragma unroll
    for (int e0 = 0; e0 < kValues; e0 += kColumns) {
#pragma unroll
      for (int e = e0; e < e0 + kColumns; ++e) m.value(e) = 0.0f;
#pragma unroll 1
      for (int s = 0; s < kSplitK; ++s) {
        float p[kColumns];
#pragma unroll
        for (int j = 0; j < kColumns; ++j) p[j] = kiln_load_cg(at(s, e0 + j));
#pragma unroll
        for (int j = 0; j < kColumns; ++j) m.value(e0 + j) += p[j];
      }
    }
    return true;
  }
};
