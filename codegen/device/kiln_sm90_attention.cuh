// ---- Hopper attention: O = softmax(f(Q·Kᵀ)) V in one kernel, flash style ----
//
// A block computes 128 query rows of one batch; three warpgroups:
//   warpgroup 0, the producer: one thread loads the Q tile once, then K and V
//     blocks of 128 keys into rings of kStages stages with TMA (40 registers);
//   warpgroups 1 and 2, the consumers (232 registers), 64 query rows each:
//     for every key block, S = Q·Kᵀ with wgmma into fp32 registers, the
//     generated logits function x = f(S) on each score, the online softmax
//     (a running row max m and sum l; when m grows, O and l are scaled by
//     exp(m_old - m_new)), P rounded to 16 bits in registers and O += P·V
//     with wgmma reading P from registers. S and P never leave the SM.
// Both consumers read every K and V stage, so `empty` barriers wait for two.
// Q and K are K-major (head dim contiguous); a Kᵀ stored [D, Skv] is read
// MN-major; V is MN-major. Each head-dim chunk of 64 is one 128-byte swizzle
// row: Q as [chunk][128 rows][64], K as [chunk][128 keys][64] (or Kᵀ as
// [d chunk][key chunk][64 d][64 keys]), V as [Dv chunk][128 keys][64].
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ unsigned kiln_pack_bf16x2(float lo, float hi) {
  unsigned packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}
__device__ __forceinline__ unsigned kiln_pack_f16x2(float lo, float hi) {
  unsigned packed;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

template <int kBatch, long long kSq, long long kSkv, int kD, int kDv, bool kKMnMajor, bool kCausal, int kStages,
          bool kBF16, class MmaS, class MmaO, class Logits>
struct KilnSm90Attention {
  static constexpr int kBQ = 128, kBKV = 128, kWgRows = 64, kThreads = 384;
  static constexpr int kScores = kBKV / 2;  // S accumulators per thread: 2 rows x 32 keys
  static constexpr int kOut = kDv / 2;      // O accumulators per thread
  static constexpr int kQBytes = kBQ * kD * 2;
  static constexpr int kKBytes = kBKV * kD * 2;
  static constexpr int kVBytes = kBKV * kDv * 2;
  static constexpr int kOffsetK = kQBytes;
  static constexpr int kOffsetV = kOffsetK + kStages * kKBytes;
  static constexpr int kOffsetBarriers = kOffsetV + kStages * kVBytes;
  static constexpr int kSharedBytes = kOffsetBarriers + (4 * kStages + 1) * 8 + 1024;
  static constexpr int kQBlocks = static_cast<int>((kSq + kBQ - 1) / kBQ);
  static constexpr int kKvBlocks = static_cast<int>((kSkv + kBKV - 1) / kBKV);
  static_assert(kD % 64 == 0 && kDv % 64 == 0 && kD <= 128 && kDv <= 128, "head dims of 64 or 128");

  static __device__ __forceinline__ unsigned char* aligned(unsigned char* shared) {
    const unsigned address = kiln_shared_address(shared);
    return shared + (((address + 1023u) & ~1023u) - address);
  }
  static __device__ __forceinline__ unsigned barrier(unsigned base, int index) {
    return base + kOffsetBarriers + index * 8;
  }
  // Barriers: 0 the Q tile, then per stage K full, K empty, V full, V empty.
  static __device__ __forceinline__ unsigned q_full(unsigned base) { return barrier(base, 0); }
  static __device__ __forceinline__ unsigned k_full(unsigned base, int s) { return barrier(base, 1 + 4 * s); }
  static __device__ __forceinline__ unsigned k_empty(unsigned base, int s) { return barrier(base, 2 + 4 * s); }
  static __device__ __forceinline__ unsigned v_full(unsigned base, int s) { return barrier(base, 3 + 4 * s); }
  static __device__ __forceinline__ unsigned v_empty(unsigned base, int s) { return barrier(base, 4 + 4 * s); }

  static __device__ __forceinline__ int batch() { return static_cast<int>(blockIdx.x) / kQBlocks; }
  // Causal: the last query blocks, which visit the most key blocks, start
  // first, so the short ones fill the tail of the grid.
  static __device__ __forceinline__ int q0() {
    const int q = static_cast<int>(blockIdx.x) % kQBlocks;
    return (kCausal ? kQBlocks - 1 - q : q) * kBQ;
  }
  // Key blocks this block visits: with a causal mask, none right of its last row.
  static __device__ __forceinline__ int kv_blocks() {
    if constexpr (kCausal) return min(kKvBlocks, (q0() + kBQ - 1) / kBKV + 1);
    return kKvBlocks;
  }
  static __device__ __forceinline__ bool is_producer() { return threadIdx.x < 128; }

  static __device__ __forceinline__ void init(unsigned base) {
    if (threadIdx.x == 0) {
      kiln_mbar_init(q_full(base), 1);
#pragma unroll
      for (int s = 0; s < kStages; ++s) {
        kiln_mbar_init(k_full(base, s), 1);
        kiln_mbar_init(k_empty(base, s), 2);
        kiln_mbar_init(v_full(base, s), 1);
        kiln_mbar_init(v_empty(base, s), 2);
      }
      kiln_mbar_init_fence();
    }
    __syncthreads();
  }

  // ---- producer ----
  static __device__ __forceinline__ void produce(unsigned base, const KilnTensorMap* map_q, const KilnTensorMap* map_k,
                                                 const KilnTensorMap* map_v) {
    kiln_release_registers<40>();
    if (threadIdx.x != 0) return;
    const int b = batch();
    kiln_mbar_arrive_expect_tx(q_full(base), kQBytes);
#pragma unroll
    for (int c = 0; c < kD / 64; ++c) kiln_tma_load_3d(base + c * kBQ * 128, map_q, q_full(base), c * 64, q0(), b);
    const int blocks = kv_blocks();
    for (int j = 0; j < blocks; ++j) {
      const int s = j % kStages;
      const unsigned phase = (j / kStages) & 1;
      const int kv0 = j * kBKV;
      kiln_mbar_wait(k_empty(base, s), phase ^ 1);
      kiln_mbar_arrive_expect_tx(k_full(base, s), kKBytes);
      const unsigned k = base + kOffsetK + s * kKBytes;
      if constexpr (kKMnMajor) {
#pragma unroll
        for (int c = 0; c < kD / 64; ++c) {
#pragma unroll
          for (int n = 0; n < kBKV / 64; ++n) {
            kiln_tma_load_3d(k + (c * (kBKV / 64) + n) * 8192, map_k, k_full(base, s), kv0 + n * 64, c * 64, b);
          }
        }
      } else {
#pragma unroll
        for (int c = 0; c < kD / 64; ++c) kiln_tma_load_3d(k + c * kBKV * 128, map_k, k_full(base, s), c * 64, kv0, b);
      }
      kiln_mbar_wait(v_empty(base, s), phase ^ 1);
      kiln_mbar_arrive_expect_tx(v_full(base, s), kVBytes);
      const unsigned v = base + kOffsetV + s * kVBytes;
#pragma unroll
      for (int n = 0; n < kDv / 64; ++n) kiln_tma_load_3d(v + n * kBKV * 128, map_v, v_full(base, s), n * 64, kv0, b);
    }
  }

  // ---- consumers ----
  struct Consumer {
    float o[kOut];
    float m[2], l[2];  // running max and (this thread's part of the) sum of its two rows
    unsigned base;
    int wg;

    __device__ __forceinline__ Consumer(unsigned char* aligned_shared)
        : base(kiln_shared_address(aligned_shared)), wg(threadIdx.x / 128 - 1) {
      kiln_claim_registers<232>();
    }

    __device__ __forceinline__ unsigned long long desc_q(int kk) const {
      return kiln_wgmma_desc(base + (kk / 4) * kBQ * 128 + wg * kWgRows * 128 + (kk % 4) * 32, 16, 1024);
    }
    __device__ __forceinline__ unsigned long long desc_k(int s, int kk) const {
      const unsigned k = base + kOffsetK + s * kKBytes;
      if constexpr (kKMnMajor) return kiln_wgmma_desc(k + (kk / 4) * (kBKV / 64) * 8192 + (kk % 4) * 2048, 8192, 1024);
      return kiln_wgmma_desc(k + (kk / 4) * kBKV * 128 + (kk % 4) * 32, 16, 1024);
    }
    __device__ __forceinline__ unsigned long long desc_v(int s, int kk) const {
      return kiln_wgmma_desc(base + kOffsetV + s * kVBytes + kk * 2048, kBKV * 128, 1024);
    }
    __device__ __forceinline__ void release(unsigned bar) const {
      if (threadIdx.x % 128 == 0) kiln_mbar_arrive(bar);
    }
    // The query row and key of score accumulator i (a 64x128 m64n128 tile).
    __device__ __forceinline__ int row_of(int i) const {
      const int t = threadIdx.x % 128;
      return q0() + wg * kWgRows + (t / 32) * 16 + (t % 32) / 4 + 8 * ((i / 2) % 2);
    }
    static __device__ __forceinline__ int col_of(int i) { return (i / 4) * 8 + (threadIdx.x % 4) * 2 + (i % 2); }

    __device__ __forceinline__ unsigned pack(float lo, float hi) const {
      if constexpr (kBF16) return kiln_pack_bf16x2(lo, hi);
      return kiln_pack_f16x2(lo, hi);
    }

    __device__ __forceinline__ void run(const Logits& logits) {
#pragma unroll
      for (int i = 0; i < kOut; ++i) o[i] = 0.0f;
      m[0] = m[1] = -KILN_INF;
      l[0] = l[1] = 0.0f;
      const int b = batch();
      kiln_mbar_wait(q_full(base), 0);
      const int blocks = kv_blocks();
      for (int j = 0; j < blocks; ++j) {
        const int s = j % kStages;
        const unsigned phase = (j / kStages) & 1;
        const int kv0 = j * kBKV;
        // S = Q·Kᵀ for this warpgroup's 64 rows and the block's 128 keys.
        float sc[kScores];
#pragma unroll
        for (int i = 0; i < kScores; ++i) sc[i] = 0.0f;
        kiln_fence_registers(sc);
        kiln_mbar_wait(k_full(base, s), phase);
        kiln_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kD / 16; ++kk) MmaS::template run<0, kKMnMajor ? 1 : 0>(sc, desc_q(kk), desc_k(s, kk));
        kiln_wgmma_commit();
        kiln_wgmma_wait<0>();
        kiln_fence_registers(sc);
        release(k_empty(base, s));

        // x = f(S); keys past the end are -inf, so they weigh nothing. Rows
        // past the end are never stored; they read the last row's masks and
        // biases, so that every load stays inside its tensor.
        float block_max[2] = {-KILN_INF, -KILN_INF};
#pragma unroll
        for (int i = 0; i < kScores; ++i) {
          const int col = kv0 + col_of(i);
          const int row = min(row_of(i), static_cast<int>(kSq) - 1);
          sc[i] = col < kSkv ? logits(sc[i], b, row, col) : -KILN_INF;
          block_max[(i / 2) % 2] = fmaxf(block_max[(i / 2) % 2], sc[i]);
        }
        // The online softmax: the four threads of a row share its max.
        float scale[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          block_max[r] = fmaxf(block_max[r], __shfl_xor_sync(0xffffffffu, block_max[r], 1));
          block_max[r] = fmaxf(block_max[r], __shfl_xor_sync(0xffffffffu, block_max[r], 2));
          const float m_new = fmaxf(m[r], block_max[r]);
          // A row masked so far has max -inf; exp(-inf - -inf) must be 0, not NaN.
          const float m_use = m_new == -KILN_INF ? 0.0f : m_new;
          scale[r] = __expf(m[r] - m_use);
          l[r] *= scale[r];
          m[r] = m_new;
          block_max[r] = m_use;
        }
        unsigned p[kBKV / 16][4];
#pragma unroll
        for (int i = 0; i < kScores; i += 2) {
          const int r = (i / 2) % 2;
          const float p0 = __expf(sc[i] - block_max[r]), p1 = __expf(sc[i + 1] - block_max[r]);
          l[r] += p0 + p1;
          p[i / 8][(i % 8) / 2] = pack(p0, p1);
        }
#pragma unroll
        for (int i = 0; i < kOut; ++i) o[i] *= scale[(i / 2) % 2];

        // O += P·V, P from registers: the S accumulator layout is the
        // wgmma A-fragment layout, 16 keys a slice.
        kiln_fence_registers(o);
        kiln_mbar_wait(v_full(base, s), phase);
        kiln_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBKV / 16; ++kk) MmaO::run(o, p[kk], desc_v(s, kk));
        kiln_wgmma_commit();
        kiln_wgmma_wait<0>();
        kiln_fence_registers(o);
        release(v_empty(base, s));
      }
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
      }
    }

    // f(row, col, v0, v1) for each pair of adjacent outputs, already divided
    // by the row's sum; rows past the end are left out.
    template <typename F>
    __device__ __forceinline__ void for_each_output(F&& f) const {
#pragma unroll
      for (int i = 0; i < kOut; i += 2) {
        const int row = row_of(i);
        if (row >= kSq) continue;
        const float inverse = 1.0f / l[(i / 2) % 2];
        f(batch(), row, col_of(i), o[i] * inverse, o[i + 1] * inverse);
      }
    }
  };
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL
