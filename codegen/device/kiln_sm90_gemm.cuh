// ---- Hopper matmul: a persistent, warp-specialised GEMM on TMA and wgmma ----
//
// A block of three warpgroups computes kBM x kBN tiles of C = A·B, one after
// another, taking every gridDim.x-th tile of the L2-grouped order (in a
// cluster grid, each cluster every cluster-count-th cluster tile):
//   warpgroup 0, the producer: one thread streams K slices of A and B into a
//     ring of kStages shared-memory stages with TMA; it keeps 40 registers;
//   warpgroups 1 and 2, the consumers, multiply with wgmma into fp32
//     accumulators held in registers (they claim 232), then run the generated
//     epilogue on them. Cooperative: both share each tile, half its rows
//     each. Ping-pong (kPingpong): they take the block's tiles in turn, so
//     one's epilogue runs while the other's main loop keeps the tensor cores
//     busy.
// Epilogue warps (kEpilogueWarps, cooperative 16-bit tiles with one staged
// 16-bit output): the producer warpgroup's warps 1-3, idle otherwise, run the
// epilogue. The consumers stage a tile's products, rounded to the product's
// 16-bit type (its value as the graph defines it), and go straight on to the
// next tile's main loop; the epilogue warps rewrite the staged tile in place
// with the generated epilogue and store it with TMA, so the epilogue's math
// and store overlap the tensor cores' next tile. Two more mbarriers: `staged`
// completes when both consumers have staged a tile, `drained` when its store
// has read the staging tiles, which the consumers wait for before staging
// the next. The producer warpgroup keeps 56 registers for the epilogue's
// code and the consumers 224, the same total as 40 and 232.
// Split K (kSplitK > 1, cooperative tiles with the epilogue on the
// consumers): K is cut into kSplitK slices of kKBlocksPerSplit K blocks, and
// a work unit is one slice of one tile, so that a few tiles with a long K
// still fill the grid. Unit t is slice t / kTiles of tile t % kTiles: the
// units running side by side share a K slice, and its operands in L2. Each
// consumer writes its unit's fp32 products to a partial slot in global
// memory (one per unit and consumer, in the accumulators' register order)
// and counts its arrival; the last of a tile's slices to arrive adds all the
// slots in slice order, so the sum does not depend on which finished last,
// and runs the epilogue. No unit waits for another.
// Clusters (kClusterM x kClusterN blocks, two at most): the blocks of a
// cluster compute adjacent tiles of one cluster tile, kClusterM of them down
// M or kClusterN across N, and so read the same K slices of one operand: B
// for blocks stacked along M, A for blocks side by side along N. Each block
// loads its share of that shared operand's boxes (a K-major tile as kCluster
// bands of rows) with TMA multicast, which writes them into every block of
// the cluster and counts their bytes on every block's `full` barrier; the
// other operand each block loads for itself. A stage is then refilled only
// once the consumers of every block of the cluster have released it, so a
// consumer's release arrives on the `empty` barrier of each block. Every
// block walks the same work units, one cluster tile each; a block whose
// tile lies wholly past M or N (an odd count of tiles) computes on the
// zeros TMA reads there and stores nothing. Before it exits, a block's
// producer waits for its stages' last releases, which may still come from
// the other block's consumers.
// Two mbarriers per stage hand it back and forth: `full` completes when the
// stage's bytes have landed, `empty` when its consumers are done reading it.
// Ping-pong adds a `turn` barrier per consumer: a consumer starts a main loop
// only once the other has passed all the `full` waits of the tile before, so
// the two take the ring's slices in order. Without it the second consumer,
// waiting for a slice a whole ring round ahead, would read the parity of the
// round before as complete.
//
// Operands are 16-bit (kOperandBytes 2) or f32 read as tf32 (4). Each is
// K-major (K contiguous: a row-major A, a column-major B) or MN-major, in the
// 128-byte-swizzled boxes TMA writes. A K slice is one swizzle row: 64
// 16-bit elements or 32 f32 ones (kBK):
//   K-major:  one box of [rows][kBK], rows 128 bytes apart;
//   MN-major: boxes of [kBK][128 bytes of M or N], one per 128 bytes of columns.
// 16-bit wgmma reads both operands from shared memory in either layout. tf32
// wgmma reads shared memory K-major only and takes A from registers, so the
// tf32 consumers load A's fragments from its tile (either layout) themselves,
// and B must be K-major; for a row-major B the planner swaps the operands and
// the kernel computes Cᵀ = Bᵀ·Aᵀ (kTransposedOutput), staging it back
// transposed so C is stored as it is laid out.
// The epilogue stages each 16-bit (or narrower) output tile in shared memory
// as boxes of 128-byte swizzled rows and stores it with TMA, which also clips
// partial tiles; 4-byte outputs go straight from the registers, whose pairs
// fill whole sectors (StagesOutput in fusion/matmul_schedule.h).
// (Host passes of nvcc see the declarations; NVRTC has no host pass.)
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

template <long long kM, long long kN, long long kK, int kBatch, int kBM, int kBN, int kStages, bool kAMnMajor,
          bool kBMnMajor, int kGroupM, int kStagingElementBytes, bool kPingpong, bool kEpilogueWarps, int kSplitK,
          int kClusterM, int kClusterN, int kOperandBytes, bool kTransposedOutput, class Mma, class Batches>
struct KilnSm90Gemm {
  static constexpr bool kTf32 = kOperandBytes == 4;
  static constexpr int kBK = 128 / kOperandBytes;    // one swizzle row of K
  static constexpr int kMmaK = 32 / kOperandBytes;   // K of one wgmma: 16 (16-bit) or 8 (tf32)
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr int kWgRows = kPingpong ? kBM : kBM / kConsumers;  // rows of a tile one consumer owns
  static constexpr int kSlabs = kWgRows / 64;        // 64-row wgmma slabs per consumer
  static constexpr int kAccumulators = kBN / 2;      // per slab and thread
  static constexpr int kBoxColumns = 128 / kOperandBytes;  // MN-major box: columns per 128-byte row
  static constexpr int kBoxBytes = kBK * 128;
  static constexpr int kStageBytesA = kBM * 128;
  static constexpr int kStageBytesB = kBN * 128;
  static constexpr int kKBlocks = static_cast<int>((kK + kBK - 1) / kBK);
  static constexpr int kCluster = kClusterM * kClusterN;
  static constexpr bool kShareA = kClusterN > 1;  // blocks side by side along N read the same A
  static constexpr bool kShareB = kClusterM > 1;  // blocks stacked along M read the same B
  // Cluster tiles: kClusterM x kClusterN block tiles each (one block tile
  // without clusters).
  static constexpr int kTiles = kBatch * static_cast<int>((kM + kBM * kClusterM - 1) / (kBM * kClusterM)) *
                                static_cast<int>((kN + kBN * kClusterN - 1) / (kBN * kClusterN));
  static constexpr int kKBlocksPerSplit = (kKBlocks + kSplitK - 1) / kSplitK;
  static constexpr int kUnits = kTiles * kSplitK;  // work units: one K slice of one tile each
  // Split K: a consumer's partial products of one unit, as float4 vectors per thread.
  static constexpr int kPartialVectors = kSlabs * kAccumulators / 4;
  static constexpr long long kPartialSlots = static_cast<long long>(kUnits) * kConsumers;
  // Vectors of partials the last slice loads at once while it sums them: a
  // power of two, half the registers a consumer has beside its accumulators
  // (of the 168 ptxas allots every thread of a 384-thread block), so that the
  // loads overlap without spilling.
  static constexpr int kSumSpare = (168 - kSlabs * kAccumulators) / 8;
  static constexpr int kSumVectors = kSumSpare >= 16 ? 16 : kSumSpare >= 8 ? 8 : kSumSpare >= 4 ? 4 : 2;
  static constexpr int kStagingBytes = kWgRows * kBN * kStagingElementBytes;  // per consumer
  // Shared memory: A stages, B stages, one staging tile per consumer, then
  // the barriers; 1024 bytes of slack let the base be 1024-byte aligned, as
  // the 128-byte swizzle pattern requires.
  static constexpr int kOffsetB = kStages * kStageBytesA;
  static constexpr int kOffsetStaging = kOffsetB + kStages * kStageBytesB;
  static constexpr int kOffsetBarriers = kOffsetStaging + kConsumers * kStagingBytes;
  static constexpr int kBarriers = 2 * kStages + (kPingpong ? kConsumers : 0) + (kEpilogueWarps ? 2 : 0);
  static constexpr int kProducerRegisters = kEpilogueWarps ? 56 : 40;
  static constexpr int kConsumerRegisters = kEpilogueWarps ? 224 : 232;
  static constexpr int kEpilogueThreads = 96;  // warps 1-3
  // Named barriers: 0 is __syncthreads, 1 + wg a consumer's staging, then the epilogue warps'.
  static constexpr int kEpilogueBarrier = 1 + kConsumers;
  static constexpr int kSharedBytes = kOffsetBarriers + kBarriers * 8 + 1024;
  static_assert(kWgRows == 64 || kWgRows == 128, "a consumer owns 64 or 128 rows");
  static_assert(kBN % 64 == 0 && kBN <= 256 && kSlabs * kAccumulators <= 128, "tile too wide for the registers");
  static_assert(kOperandBytes == 2 || (kOperandBytes == 4 && !kBMnMajor && !kPingpong),
                "tf32 reads B K-major, in cooperative tiles");
  static_assert(!kTransposedOutput || kTf32, "only tf32 swaps its operands");
  static_assert(!kEpilogueWarps || (!kPingpong && !kTf32 && kStagingElementBytes == 2),
                "epilogue warps rewrite cooperative tiles of 16-bit products in place");
  static_assert(kSplitK == 1 || (!kPingpong && !kEpilogueWarps && (kSplitK - 1) * kKBlocksPerSplit < kKBlocks),
                "split K runs cooperative tiles, epilogue on the consumers, and no slice is empty");
  static_assert(kClusterM >= 1 && kClusterN >= 1 && kCluster <= 2 && (kCluster == 1 || kSplitK == 1),
                "clusters of two blocks at most, along M or N, without split K");

  static __device__ __forceinline__ unsigned char* aligned(unsigned char* shared) {
    const unsigned address = kiln_shared_address(shared);
    return shared + (((address + 1023u) & ~1023u) - address);
  }
  static __device__ __forceinline__ unsigned full_barrier(unsigned base, int stage) {
    return base + kOffsetBarriers + stage * 8;
  }
  static __device__ __forceinline__ unsigned empty_barrier(unsigned base, int stage) {
    return base + kOffsetBarriers + (kStages + stage) * 8;
  }
  static __device__ __forceinline__ unsigned turn_barrier(unsigned base, int wg) {
    return base + kOffsetBarriers + (2 * kStages + wg) * 8;
  }
  static __device__ __forceinline__ unsigned staged_barrier(unsigned base) {
    return base + kOffsetBarriers + (2 * kStages + (kPingpong ? kConsumers : 0)) * 8;
  }
  static __device__ __forceinline__ unsigned drained_barrier(unsigned base) { return staged_barrier(base) + 8; }
  static __device__ __forceinline__ bool is_producer() { return threadIdx.x < 128; }
  static __device__ __forceinline__ bool is_epilogue_warp() {
    return kEpilogueWarps && threadIdx.x >= 32 && threadIdx.x < 128;
  }
  // The work units a block computes: every unit_stride()-th from
  // first_unit(), the same for every block of a cluster.
  static __device__ __forceinline__ int first_unit() {
    return kCluster == 1 ? static_cast<int>(blockIdx.x) : static_cast<int>(kiln_cluster_id());
  }
  static __device__ __forceinline__ int unit_stride() {
    return kCluster == 1 ? static_cast<int>(gridDim.x) : static_cast<int>(kiln_cluster_count());
  }
  // The place of unit t among the units this block computes.
  static __device__ __forceinline__ int ordinal(int t) { return (t - first_unit()) / unit_stride(); }

  // Every thread of the block calls this once, before the roles split.
  static __device__ __forceinline__ void init(unsigned base) {
    if (threadIdx.x == 0) {
#pragma unroll
      for (int s = 0; s < kStages; ++s) {
        kiln_mbar_init(full_barrier(base, s), 1);
        // The consumers of every block of the cluster release each stage.
        kiln_mbar_init(empty_barrier(base, s), (kPingpong ? 1 : kConsumers) * kCluster);
      }
      if constexpr (kPingpong) {
        // Every thread of the other consumer arrives: each has passed its own waits.
        for (int wg = 0; wg < kConsumers; ++wg) kiln_mbar_init(turn_barrier(base, wg), 128);
      }
      if constexpr (kEpilogueWarps) {
        kiln_mbar_init(staged_barrier(base), 128 * kConsumers);  // every consumer thread
        kiln_mbar_init(drained_barrier(base), 1);                // the thread that stores
      }
      kiln_mbar_init_fence();
    }
    // The other block's copies and releases reach this block's barriers:
    // none may come before they are initialised.
    if constexpr (kCluster > 1) {
      kiln_cluster_sync();
    } else {
      __syncthreads();
    }
  }

  // The tile of work unit t, and the K blocks of its slice.
  static __device__ __forceinline__ KilnTile tile_at(int t) {
    KilnTile tile =
        kiln_matmul_tile<kM, kN, kBM * kClusterM, kBN * kClusterN, kGroupM>(static_cast<unsigned>(t % kTiles));
    if constexpr (kCluster > 1) {
      const int rank = static_cast<int>(kiln_cluster_rank());
      tile.row0 += rank % kClusterM * kBM;
      tile.col0 += rank / kClusterM * kBN;
    }
    return tile;
  }
  static __device__ __forceinline__ int first_k_block(int t) { return t / kTiles * kKBlocksPerSplit; }
  static __device__ __forceinline__ int k_blocks(int t) {
    return kSplitK == 1 ? kKBlocks : min(kKBlocksPerSplit, kKBlocks - first_k_block(t));
  }
  // The units consumer `wg` computes: all of the block's, or every other one.
  static __device__ __forceinline__ int first_tile(int wg) { return first_unit() + (kPingpong ? wg * unit_stride() : 0); }
  static __device__ __forceinline__ int next_tile(int t) { return t + (kPingpong ? 2 : 1) * unit_stride(); }

  // ---- producer ----
  // One operand's K slice k0 of the tile whose rows (of M for A, of N for B)
  // start at row0, into the stage at `dst`: a K-major tile is one box of
  // kRows rows, an MN-major one a box per 128 bytes of rows. A tile the
  // cluster shares (kShared) is cut into kCluster bands of rows (K-major) or
  // takes its boxes in turn (MN-major), and this block multicasts its share.
  template <int kRows, bool kMnMajor, bool kShared>
  static __device__ __forceinline__ void load_operand(unsigned dst, const KilnTensorMap* map, unsigned full,
                                                      int row0, int k0, int batch) {
    constexpr int kSharers = kShared ? kCluster : 1;
    constexpr int kPieces = kMnMajor ? kRows / kBoxColumns : kSharers;
    constexpr int kPieceRows = kRows / kPieces;
    static_assert(kMnMajor || kPieceRows % 8 == 0, "a band of a K-major tile holds whole 1024-byte swizzle atoms");
    const int first = kShared ? static_cast<int>(kiln_cluster_rank()) : 0;
#pragma unroll
    for (int j = first; j < kPieces; j += kSharers) {
      // An MN-major box of kBoxColumns rows of 128 bytes is kBoxBytes long.
      const unsigned piece = dst + j * (kMnMajor ? kBoxBytes : kPieceRows * 128);
      const int c0 = kMnMajor ? row0 + j * kPieceRows : k0, c1 = kMnMajor ? k0 : row0 + j * kPieceRows;
      if constexpr (kShared) {
        kiln_tma_load_3d_multicast(piece, map, full, c0, c1, batch, static_cast<unsigned short>((1u << kCluster) - 1));
      } else {
        kiln_tma_load_3d(piece, map, full, c0, c1, batch);
      }
    }
  }

  static __device__ __forceinline__ void produce(unsigned base, const KilnTensorMap* map_a,
                                                 const KilnTensorMap* map_b) {
    kiln_release_registers<kProducerRegisters>();
    if (threadIdx.x != 0) return;
    kiln_tma_prefetch_map(map_a);
    kiln_tma_prefetch_map(map_b);
    int stage = 0;
    unsigned phase = 0;
    for (int t = first_unit(); t < kUnits; t += unit_stride()) {
      const KilnTile tile = tile_at(t);
      const int batch_a = Batches::a(tile.batch), batch_b = Batches::b(tile.batch);
      const int end = first_k_block(t) + k_blocks(t);
      for (int kb = first_k_block(t); kb < end; ++kb) {
        // Wait until both consumers have released the stage's previous round
        // (a fresh barrier's "previous round" counts as complete).
        kiln_mbar_wait(empty_barrier(base, stage), phase ^ 1);
        const unsigned full = full_barrier(base, stage);
        kiln_mbar_arrive_expect_tx(full, kStageBytesA + kStageBytesB);
        const int k0 = kb * kBK;
        load_operand<kBM, kAMnMajor, kShareA>(base + stage * kStageBytesA, map_a, full, tile.row0, k0, batch_a);
        load_operand<kBN, kBMnMajor, kShareB>(base + kOffsetB + stage * kStageBytesB, map_b, full, tile.col0, k0,
                                              batch_b);
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
    // The other block's consumers release this block's stages from afar:
    // the block stays until each stage's last release has arrived.
    if constexpr (kCluster > 1) {
      for (int i = 0; i < kStages; ++i) {
        kiln_mbar_wait(empty_barrier(base, stage), phase ^ 1);
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
    }
  }

  // ---- consumers ----
  struct Consumer {
    float acc[kSlabs][kAccumulators];
    // tf32: A's register fragments of one stage.
    unsigned fragments[kTf32 ? kSlabs : 1][kBK / kMmaK][4];
    unsigned base;
    const unsigned char* shared;  // the aligned base (generic address)
    unsigned char* staging;  // this consumer's staging tile (generic address)
    int wg;                  // 0 .. kConsumers-1
    unsigned next_slice = 0;  // cooperative: the ring position of the next unit's first K slice

    __device__ __forceinline__ Consumer(unsigned char* aligned_shared)
        : base(kiln_shared_address(aligned_shared)),
          shared(aligned_shared),
          staging(aligned_shared + kOffsetStaging + (threadIdx.x / 128 - 1) * kStagingBytes),
          wg(threadIdx.x / 128 - 1) {
      kiln_claim_registers<kConsumerRegisters>();
    }

    // The first row of a tile this consumer owns.
    __device__ __forceinline__ int first_row() const { return kPingpong ? 0 : wg * kWgRows; }

    __device__ __forceinline__ unsigned long long desc_a(int s, int slab, int kk) const {
      const unsigned tile = base + s * kStageBytesA;
      const int row_slab = first_row() / 64 + slab;
      if constexpr (kAMnMajor) return kiln_wgmma_desc(tile + row_slab * kBoxBytes + kk * 16 * 128, kBoxBytes, 1024);
      return kiln_wgmma_desc(tile + row_slab * 64 * 128 + kk * 32, 16, 1024);
    }
    __device__ __forceinline__ unsigned long long desc_b(int s, int kk) const {
      const unsigned tile = base + kOffsetB + s * kStageBytesB;
      if constexpr (kBMnMajor) return kiln_wgmma_desc(tile + kk * 16 * 128, kBoxBytes, 1024);
      return kiln_wgmma_desc(tile + kk * 32, 16, 1024);
    }
    // Frees stage s for the producers that fill it: every block's of the cluster.
    __device__ __forceinline__ void release(int s) const {
      if (threadIdx.x % 128 != 0) return;
      if constexpr (kCluster == 1) {
        kiln_mbar_arrive(empty_barrier(base, s));
      } else {
#pragma unroll
        for (int rank = 0; rank < kCluster; ++rank) kiln_mbar_arrive_cluster(empty_barrier(base, s), rank);
      }
    }

    // tf32: the byte of A's element (row m of the tile, k of the slice) in
    // stage `s`, in the swizzled layout TMA wrote.
    __device__ __forceinline__ int a_offset(int m, int k) const {
      if constexpr (kAMnMajor) {
        return (m / kBoxColumns) * kBoxBytes + k * 128 + ((((m % kBoxColumns) >> 2) ^ (k & 7)) << 4) + (m & 3) * 4;
      }
      return m * 128 + (((k >> 2) ^ (m & 7)) << 4) + (k & 3) * 4;
    }
    // tf32: A's register fragments of stage `s`, m64k8 each: a thread holds
    // rows lane/4 (+8) and columns lane%4 (+4) of its warp's 16 rows. In an
    // MN-major tile the lanes of each half-warp would share banks pairwise
    // (rows m and m+4 at columns k and k^1 meet in one 16-byte chunk), so the
    // upper half-warp loads each fragment's two K halves in the other order:
    // the halves then read disjoint chunks, and a select puts them back.
    __device__ __forceinline__ void load_fragments(int s) {
      const unsigned char* tile = shared + s * kStageBytesA;
      const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
      const bool upper = kAMnMajor && lane >= 16;
#pragma unroll
      for (int slab = 0; slab < kSlabs; ++slab) {
#pragma unroll
        for (int kk = 0; kk < kBK / kMmaK; ++kk) {
          unsigned raw[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int e = upper ? i ^ 2 : i;
            const int m = first_row() + slab * 64 + warp * 16 + lane / 4 + 8 * (e & 1);
            const int k = kk * kMmaK + lane % 4 + 4 * (e >> 1);
            raw[i] = *reinterpret_cast<const unsigned*>(tile + a_offset(m, k));
          }
#pragma unroll
          for (int i = 0; i < 4; ++i) fragments[slab][kk][i] = upper ? raw[i ^ 2] : raw[i];
        }
      }
    }

    // One K slice: wait for its stage and multiply. 16-bit: one wgmma group
    // stays in flight, and the stage before is released once it completes.
    // tf32 waits for its own group and releases its stage at once: ptxas
    // serializes every wgmma (its C7513 warning) when registers a wgmma reads
    // are written while a group may be in flight, which the next slice's
    // fragment loads would be. The other consumer's wgmmas fill the drain.
    __device__ __forceinline__ void slice_step(unsigned slice, int& previous) {
      const int stage = static_cast<int>(slice % kStages);
      kiln_mbar_wait(full_barrier(base, stage), (slice / kStages) & 1);
      if constexpr (kTf32) load_fragments(stage);
      kiln_wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBK / kMmaK; ++kk) {
#pragma unroll
        for (int s = 0; s < kSlabs; ++s) {
          if constexpr (kTf32) {
            Mma::run(acc[s], fragments[s][kk], desc_b(stage, kk));
          } else {
            Mma::template run<kAMnMajor ? 1 : 0, kBMnMajor ? 1 : 0>(acc[s], desc_a(stage, s, kk), desc_b(stage, kk));
          }
        }
      }
      kiln_wgmma_commit();
      if constexpr (kTf32) {
        kiln_wgmma_wait<0>();
        release(stage);
      } else {
        kiln_wgmma_wait<1>();
        if (previous >= 0) release(previous);
        previous = stage;
      }
    }

    // acc = A·B over unit t's K slice, for this consumer's rows of its
    // tile. The producer fills the ring with the block's units in order.
    // Cooperative consumers take every unit, so they count the ring's slices
    // as they go; a ping-pong consumer takes every other tile, whose K
    // slices start at ordinal*kKBlocks, where ordinal is t's place among the
    // block's tiles.
    __device__ __forceinline__ void mainloop(int t) {
#pragma unroll
      for (int s = 0; s < kSlabs; ++s) {
#pragma unroll
        for (int i = 0; i < kAccumulators; ++i) acc[s][i] = 0.0f;
        kiln_fence_registers(acc[s]);
      }
      const int ordinal = KilnSm90Gemm::ordinal(t);
      unsigned slice = kPingpong ? static_cast<unsigned>(ordinal) * kKBlocks : next_slice;
      // Ping-pong: the block's tile `ordinal` waits for tile ordinal - 1 to
      // have passed its waits; tile 0 goes first. Consumer 1's i-th tile
      // (ordinal 2i + 1) waits for the (i+1)-th turn, consumer 0's (2i) the i-th.
      if constexpr (kPingpong) {
        if (ordinal > 0) kiln_mbar_wait(turn_barrier(base, wg), static_cast<unsigned>((ordinal - 1) / 2) & 1);
      }
      int previous = -1;  // the stage whose group is still in flight (16-bit)
      const int count = k_blocks(t);
#pragma unroll 2
      for (int kb = 0; kb < count; ++kb, ++slice) slice_step(slice, previous);
      next_slice = slice;
      if constexpr (kPingpong) kiln_mbar_arrive(turn_barrier(base, 1 - wg));
      kiln_wgmma_wait<0>();
      if (previous >= 0) release(previous);
#pragma unroll
      for (int s = 0; s < kSlabs; ++s) kiln_fence_registers(acc[s]);
    }

    // Split K: publishes this consumer's products of unit t in its partial
    // slot and counts its arrival. False, with the products left behind, but
    // for the last of the tile's slices to arrive, which replaces them with
    // the sum of every slice's slot, added in slice order; it also resets
    // the tile's counter for the next launch. `partials` holds kPartialSlots
    // slots and `arrivals` a counter per tile and consumer, both zero before
    // the first launch.
    __device__ __forceinline__ bool sum_split(int t, float4* partials, unsigned* arrivals) {
      const int tile = t % kTiles, lane = threadIdx.x % 128;
      // Slot (tile, slice, consumer): vector v of thread `lane` at v * 128 + lane, so a warp's stores are contiguous.
      auto slot = [&](int slice) {
        return partials + ((static_cast<long long>(tile) * kSplitK + slice) * kConsumers + wg) * kPartialVectors * 128 +
               lane;
      };
      float4* own = slot(t / kTiles);
#pragma unroll
      for (int v = 0; v < kPartialVectors; ++v) {
        const float* a = &acc[4 * v / kAccumulators][4 * v % kAccumulators];
        own[v * 128] = make_float4(a[0], a[1], a[2], a[3]);
      }
      if (!kiln_split_arrive_named(&arrivals[tile * kConsumers + wg], kSplitK, 1 + wg, 128)) return false;
      // Rounds of kSumVectors loads in flight: kSumSlices slices of kSumColumns
      // vectors each. Vector indices stay compile-time, so acc stays in registers.
      constexpr int kSumSlices = kSumVectors > kPartialVectors ? kSumVectors / kPartialVectors : 1;
      constexpr int kSumColumns = kSumVectors > kPartialVectors ? kPartialVectors : kSumVectors;
#pragma unroll
      for (int v0 = 0; v0 < kPartialVectors; v0 += kSumColumns) {
#pragma unroll
        for (int v = v0; v < v0 + kSumColumns; ++v) {
          float* a = &acc[4 * v / kAccumulators][4 * v % kAccumulators];
          a[0] = a[1] = a[2] = a[3] = 0.0f;
        }
#pragma unroll 1
        for (int first = 0; first < kSplitK; first += kSumSlices) {
          float4 p[kSumSlices][kSumColumns];
#pragma unroll
          for (int r = 0; r < kSumSlices; ++r) {
#pragma unroll
            for (int j = 0; j < kSumColumns; ++j) {
              if (first + r < kSplitK) p[r][j] = kiln_load_cg4(slot(first + r) + (v0 + j) * 128);
            }
          }
#pragma unroll
          for (int r = 0; r < kSumSlices; ++r) {
#pragma unroll
            for (int j = 0; j < kSumColumns; ++j) {
              if (first + r >= kSplitK) continue;
              float* a = &acc[4 * (v0 + j) / kAccumulators][4 * (v0 + j) % kAccumulators];
              a[0] += p[r][j].x;
              a[1] += p[r][j].y;
              a[2] += p[r][j].z;
              a[3] += p[r][j].w;
            }
          }
        }
      }
      return true;
    }

    // f(r, c, row, col, v0, v1) for each pair of horizontally adjacent
    // accumulators: (r, c) within this consumer's rows, (row, col) in the
    // matrix; v1 is the value at col + 1.
    template <typename F>
    __device__ __forceinline__ void for_each_pair(const KilnTile& tile, F&& f) const {
      const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
#pragma unroll
      for (int s = 0; s < kSlabs; ++s) {
#pragma unroll
        for (int j = 0; j < kBN / 8; ++j) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int r = s * 64 + warp * 16 + lane / 4 + 8 * h;
            const int c = j * 8 + (lane % 4) * 2;
            f(r, c, tile.row0 + first_row() + r, tile.col0 + c, acc[s][j * 4 + h * 2], acc[s][j * 4 + h * 2 + 1]);
          }
        }
      }
    }

    // Waits until the previous TMA store has read the staging tile.
    __device__ __forceinline__ void staging_acquire() const {
      if (threadIdx.x % 128 == 0) kiln_tma_store_wait_read();
      kiln_named_barrier(1 + wg, 128);
    }
    // Two adjacent elements of the staged tile, in the swizzled box layout
    // the output's tensor map describes. Conflict-free: the 8 rows a warp
    // writes at once land in 8 different 16-byte chunks.
    template <typename T>
    __device__ __forceinline__ void stage_pair(int r, int c, T v0, T v1) const {
      static_assert(sizeof(T) <= kStagingElementBytes, "staging is sized for a narrower type");
      constexpr int kRowElements = 128 / sizeof(T);
      const int box = c / kRowElements;
      const int byte = (c % kRowElements) * static_cast<int>(sizeof(T));
      const int offset = box * kWgRows * 128 + r * 128 + ((((byte >> 4) ^ (r & 7)) << 4) | (byte & 15));
      KilnVec<T, 2> pair;
      pair.v[0] = v0;
      pair.v[1] = v1;
      *reinterpret_cast<KilnVec<T, 2>*>(staging + offset) = pair;
    }
    // Stores the staged tile with TMA; the copy engine clips what lies past
    // the matrix. Stores stay in flight until the next staging_acquire.
    template <typename T>
    __device__ __forceinline__ void store_staged(const KilnTensorMap* map, const KilnTile& tile) const {
      constexpr int kRowElements = 128 / sizeof(T);
      kiln_fence_async_shared();
      kiln_named_barrier(1 + wg, 128);
      if (threadIdx.x % 128 == 0) {
        const unsigned source = kiln_shared_address(staging);
#pragma unroll
        for (int box = 0; box < kBN / kRowElements; ++box) {
          kiln_tma_store_3d(map, source + box * kWgRows * 128, tile.col0 + box * kRowElements,
                            tile.row0 + first_row(), tile.batch);
        }
        kiln_tma_store_commit();
      }
    }
    // kTransposedOutput: the pair (r, c), (r, c + 1) of Cᵀ's tile, which is
    // column r of C's rows c and c + 1. The staged tile is C's: kBN rows of
    // this consumer's kWgRows columns, in boxes of 128-byte rows.
    template <typename T>
    __device__ __forceinline__ void stage_pair_transposed(int r, int c, T v0, T v1) const {
      static_assert(sizeof(T) <= kStagingElementBytes, "staging is sized for a narrower type");
      constexpr int kRowElements = 128 / sizeof(T);
      const int box = r / kRowElements;
      const int byte = (r % kRowElements) * static_cast<int>(sizeof(T));
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int row = c + e;
        const int offset = box * kBN * 128 + row * 128 + ((((byte >> 4) ^ (row & 7)) << 4) | (byte & 15));
        *reinterpret_cast<T*>(staging + offset) = e == 0 ? v0 : v1;
      }
    }
    template <typename T>
    __device__ __forceinline__ void store_staged_transposed(const KilnTensorMap* map, const KilnTile& tile) const {
      constexpr int kRowElements = 128 / sizeof(T);
      kiln_fence_async_shared();
      kiln_named_barrier(1 + wg, 128);
      if (threadIdx.x % 128 == 0) {
        const unsigned source = kiln_shared_address(staging);
#pragma unroll
        for (int box = 0; box < kWgRows / kRowElements; ++box) {
          kiln_tma_store_3d(map, source + box * kBN * 128, tile.row0 + first_row() + box * kRowElements, tile.col0,
                            tile.batch);
        }
        kiln_tma_store_commit();
      }
    }
    // kEpilogueWarps: once the epilogue warps have stored the tile before,
    // stage(r, c, v0, v1) for each pair of tile t's products (as
    // for_each_pair), then hand the staged tile to the epilogue warps.
    template <typename F>
    __device__ __forceinline__ void hand_over(int t, const KilnTile& tile, F&& stage) const {
      kiln_mbar_wait(drained_barrier(base), (KilnSm90Gemm::ordinal(t) & 1) ^ 1);
      for_each_pair(tile, [&](int r, int c, int, int, float v0, float v1) { stage(r, c, v0, v1); });
      kiln_mbar_arrive(staged_barrier(base));
    }
    // Shared memory must outlive the stores that read it.
    __device__ __forceinline__ void finish() const {
      if (threadIdx.x % 128 == 0) kiln_tma_store_wait_all();
    }
  };

  // ---- epilogue warps (kEpilogueWarps) ----
  // The block's tiles in the consumers' order, each waited for, rewritten in
  // place 16 bytes at a time and stored.
  struct Epilogue {
    static constexpr int kChunkElements = 8;  // 16-bit elements per 16-byte chunk
    static constexpr int kBoxColumns = 64;    // 16-bit elements per 128-byte swizzle row
    static constexpr int kRowChunks = kBoxColumns / kChunkElements;
    static constexpr int kChunksPerConsumer = kWgRows * kBN / kChunkElements;
    using Chunk = KilnVec<unsigned short, kChunkElements>;
    unsigned base;
    unsigned char* staging;  // both consumers' staging tiles (generic address)

    __device__ __forceinline__ explicit Epilogue(unsigned char* aligned_shared)
        : base(kiln_shared_address(aligned_shared)), staging(aligned_shared + kOffsetStaging) {}

    __device__ __forceinline__ void wait(int t) const {
      kiln_mbar_wait(staged_barrier(base), KilnSm90Gemm::ordinal(t) & 1);
    }
    // f(row, col, values) for each chunk of the staged tile: `values`, the
    // staged elements (row, col .. col + 7) of the matrix, are rewritten in
    // place. Consecutive threads take consecutive chunks of a 128-byte row,
    // which the swizzle permutes within the row, so their reads and writes
    // are conflict-free.
    template <typename F>
    __device__ __forceinline__ void for_each_chunk(const KilnTile& tile, F&& f) const {
      for (int q = static_cast<int>(threadIdx.x) - 32; q < kConsumers * kChunksPerConsumer; q += kEpilogueThreads) {
        const int wg = q / kChunksPerConsumer, within = q % kChunksPerConsumer;
        const int box = within / (kWgRows * kRowChunks), r = (within / kRowChunks) % kWgRows;
        const int physical = within % kRowChunks;
        Chunk* chunk =
            reinterpret_cast<Chunk*>(staging + wg * kStagingBytes + box * kWgRows * 128 + r * 128 + physical * 16);
        Chunk values = *chunk;
        f(tile.row0 + wg * kWgRows + r, tile.col0 + box * kBoxColumns + (physical ^ (r & 7)) * kChunkElements, values);
        *chunk = values;
      }
    }
    // Stores the rewritten tile with TMA and, once the store has read it,
    // hands the staging tiles back to the consumers.
    __device__ __forceinline__ void store(const KilnTensorMap* map, const KilnTile& tile) const {
      kiln_fence_async_shared();
      kiln_named_barrier(kEpilogueBarrier, kEpilogueThreads);
      if (threadIdx.x == 32) {
#pragma unroll
        for (int wg = 0; wg < kConsumers; ++wg) {
#pragma unroll
          for (int box = 0; box < kBN / kBoxColumns; ++box) {
            kiln_tma_store_3d(map, kiln_shared_address(staging + wg * kStagingBytes + box * kWgRows * 128),
                              tile.col0 + box * kBoxColumns, tile.row0 + wg * kWgRows, tile.batch);
          }
        }
        kiln_tma_store_commit();
        kiln_tma_store_wait_read();
        kiln_mbar_arrive(drained_barrier(base));
      }
    }
    __device__ __forceinline__ void finish() const {
      if (threadIdx.x == 32) kiln_tma_store_wait_all();
    }
  };
};

#endif  // __CUDA_ARCH_FEAT_SM90_ALL
