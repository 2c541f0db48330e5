// ---- matmul main loops ----
// A block computes one kBM x kBN tile of C = A·B for row-major A [M,K] and
// B [K,N], over K steps [first_step, end_step) (all of K, or one slice of
// it: KilnKSlice in kiln_split_k.cuh), and leaves the fp32 accumulators in
// registers; the generated kernel then visits them with for_each and applies
// its fused epilogue before the only store. Shapes are compile-time constants, so bounds checks vanish
// where a dimension divides the tile.

struct KilnTile {
  int batch;
  int row0;
  int col0;
};

// The tile block `block` computes. Tiles go out in groups of kGroupM tile
// rows, column by column, so the blocks resident at one time share their A
// rows and B columns in L2 instead of streaming all of B per tile row.
template <long long kM, long long kN, int kBM, int kBN, int kGroupM>
__device__ __forceinline__ KilnTile kiln_matmul_tile(unsigned block) {
  constexpr int kTilesM = static_cast<int>((kM + kBM - 1) / kBM);
  constexpr int kTilesN = static_cast<int>((kN + kBN - 1) / kBN);
  constexpr int kPerBatch = kTilesM * kTilesN;
  constexpr int kPerGroup = kGroupM * kTilesN;
  const int batch = static_cast<int>(block / kPerBatch);
  const int t = static_cast<int>(block % kPerBatch);
  const int first_m = (t / kPerGroup) * kGroupM;
  const int group_rows = min(kTilesM - first_m, kGroupM);
  const int tile_m = first_m + (t % kPerGroup) % group_rows;
  const int tile_n = (t % kPerGroup) / group_rows;
  return {batch, tile_m * kBM, tile_n * kBN};
}

// 16 bytes global -> shared without passing through registers; an invalid
// chunk reads nothing and fills zeros, which add nothing to the products.
__device__ __forceinline__ void kiln_cp_async16(unsigned dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void kiln_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void kiln_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}
__device__ __forceinline__ void kiln_ldmatrix_x4(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void kiln_ldmatrix_x4_trans(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
// d += a·b on one 16x8x16 tile, 16-bit operands, fp32 accumulators.
template <bool kBF16>
__device__ __forceinline__ void kiln_mma_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (kBF16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Tensor cores for f16/bf16: kWarpsM x kWarpsN warps, each owning a
// (kBM/kWarpsM) x (kBN/kWarpsN) piece of the tile as 16x8 mma.sync tiles.
// K advances kBK (32 or 64) at a time through kStages shared-memory stages
// filled by cp.async (kAsync: rows of A and B are 16-byte aligned) or by plain
// loads. Shared rows are XOR-swizzled in 16-byte chunks so that both the
// copies and the ldmatrix reads touch 8 distinct bank groups.
template <long long kM, long long kN, long long kK, int kTileM, int kTileN, int kTileK, int kWarpsM, int kWarpsN,
          int kStages, bool kBF16, bool kAsync>
struct KilnMmaMainloop {
  static constexpr int kBM = kTileM, kBN = kTileN, kBK = kTileK;
  static constexpr int kThreads = kWarpsM * kWarpsN * 32;
  static constexpr int kWarpM = kBM / kWarpsM;
  static constexpr int kWarpN = kBN / kWarpsN;
  static constexpr int kFragsM = kWarpM / 16;
  static constexpr int kFragsN = kWarpN / 8;
  static constexpr int kChunksA = kBK / 8;    // 16-byte chunks per row of A
  static constexpr int kRowBytesA = kBK * 2;
  static constexpr int kRowBytesB = kBN * 2;
  static constexpr int kStageBytesA = kBM * kRowBytesA;
  static constexpr int kStageBytesB = kBK * kRowBytesB;
  static constexpr int kSharedBytes = kStages * (kStageBytesA + kStageBytesB);
  static constexpr int kKTiles = static_cast<int>((kK + kBK - 1) / kBK);
  static_assert(kFragsM >= 1 && kFragsN % 2 == 0 && kBN % 64 == 0, "unsupported tile");
  static_assert(kBK == 32 || kBK == 64, "a row of A is 4 or 8 chunks");
  static_assert((kBM * kChunksA) % kThreads == 0 && (kBK * kBN / 8) % kThreads == 0, "copies must divide evenly");
  static constexpr int kValues = kFragsM * kFragsN * 4;  // accumulators per thread

  float acc[kFragsM][kFragsN][4];

  // Accumulator i of this thread, in the order a split-K partial slot holds them.
  __device__ __forceinline__ float& value(int i) { return acc[i / (kFragsN * 4)][i / 4 % kFragsN][i % 4]; }

  // A 128-byte line holds 8 / kChunksA rows of A; consecutive lines XOR
  // their chunks with a different value.
  static __device__ __forceinline__ int offset_a(int row, int chunk) {
    return row * kRowBytesA + ((chunk ^ ((row / (8 / kChunksA)) % kChunksA)) << 4);
  }
  static __device__ __forceinline__ int offset_b(int k, int chunk) {
    return k * kRowBytesB + (((chunk & ~7) | ((chunk ^ k) & 7)) << 4);
  }

  // Eight consecutive elements of a row, zeros past its end, into 16 shared bytes.
  static __device__ __forceinline__ void copy8(unsigned char* dst, const unsigned short* row, long long col,
                                               long long row_length, bool row_valid) {
    if constexpr (kAsync) {
      const bool valid = row_valid && col < row_length;
      kiln_cp_async16(kiln_shared_address(dst), valid ? row + col : row, valid);
    } else {
      unsigned short v[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) v[e] = row_valid && col + e < row_length ? row[col + e] : 0;
      uint4 packed;
      packed.x = v[0] | (static_cast<unsigned>(v[1]) << 16);
      packed.y = v[2] | (static_cast<unsigned>(v[3]) << 16);
      packed.z = v[4] | (static_cast<unsigned>(v[5]) << 16);
      packed.w = v[6] | (static_cast<unsigned>(v[7]) << 16);
      *reinterpret_cast<uint4*>(dst) = packed;
    }
  }

  static __device__ __forceinline__ void load_stage(unsigned char* stage, const unsigned short* a,
                                                    const unsigned short* b, int row0, int col0, long long k0) {
    unsigned char* sa = stage;
    unsigned char* sb = stage + kStageBytesA;
#pragma unroll
    for (int i = 0; i < kBM * kChunksA / kThreads; ++i) {
      const int c = threadIdx.x + i * kThreads;
      const int row = c / kChunksA, chunk = c % kChunksA;
      const long long global_row = row0 + row;
      copy8(sa + offset_a(row, chunk), a + (global_row < kM ? global_row : 0) * kK, k0 + chunk * 8, kK,
            global_row < kM);
    }
    constexpr int kChunksPerRow = kBN / 8;
#pragma unroll
    for (int i = 0; i < kBK * kChunksPerRow / kThreads; ++i) {
      const int c = threadIdx.x + i * kThreads;
      const int k = c / kChunksPerRow, chunk = c % kChunksPerRow;
      const long long global_k = k0 + k;
      copy8(sb + offset_b(k, chunk), b + (global_k < kK ? global_k : 0) * kN, col0 + chunk * 8, kN, global_k < kK);
    }
  }

  __device__ __forceinline__ void compute_stage(const unsigned char* stage, int warp_m, int warp_n, int lane) {
    const unsigned sa = kiln_shared_address(stage);
    const unsigned sb = sa + kStageBytesA;
#pragma unroll
    for (int ks = 0; ks < kBK / 16; ++ks) {
      unsigned a[kFragsM][4];
      unsigned b[kFragsN][2];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) {
        const int row = warp_m * kWarpM + i * 16 + (lane & 15);
        kiln_ldmatrix_x4(a[i], sa + offset_a(row, ks * 2 + (lane >> 4)));
      }
#pragma unroll
      for (int j = 0; j < kFragsN / 2; ++j) {
        const int k = ks * 16 + (lane & 15);
        unsigned r[4];
        kiln_ldmatrix_x4_trans(r, sb + offset_b(k, (warp_n * kWarpN + j * 16) / 8 + (lane >> 4)));
        b[2 * j][0] = r[0];
        b[2 * j][1] = r[1];
        b[2 * j + 1][0] = r[2];
        b[2 * j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) {
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) kiln_mma_16816<kBF16>(acc[i][j], a[i], b[j][0], b[j][1]);
      }
    }
  }

  __device__ __forceinline__ void run(const unsigned short* a, const unsigned short* b, int row0, int col0,
                                      unsigned char* shared, int first_step, int end_step) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int steps = end_step - first_step;
    const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < kFragsN; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;
    constexpr int kStageBytes = kStageBytesA + kStageBytesB;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < steps) {
        load_stage(shared + s * kStageBytes, a, b, row0, col0, static_cast<long long>(first_step + s) * kBK);
      }
      kiln_cp_async_commit();
    }
    // Step first_step + i goes through stage i % kStages.
    for (int i = 0; i < steps; ++i) {
      kiln_cp_async_wait<kStages - 2>();
      // Every warp has finished the stage about to be refilled (read in the
      // previous iteration) and sees the one about to be read.
      __syncthreads();
      const int next = i + kStages - 1;
      if (next < steps) {
        load_stage(shared + (next % kStages) * kStageBytes, a, b, row0, col0,
                   static_cast<long long>(first_step + next) * kBK);
      }
      kiln_cp_async_commit();
      compute_stage(shared + (i % kStages) * kStageBytes, warp_m, warp_n, lane);
    }
    kiln_cp_async_wait<0>();
  }

  // f(row, col, value) for every accumulator inside the matrix.
  template <typename F>
  __device__ __forceinline__ void for_each(int row0, int col0, F&& f) const {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
#pragma unroll
    for (int i = 0; i < kFragsM; ++i) {
#pragma unroll
      for (int j = 0; j < kFragsN; ++j) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = row0 + warp_m * kWarpM + i * 16 + (lane >> 2) + (r >> 1) * 8;
          const int col = col0 + warp_n * kWarpN + j * 8 + (lane & 3) * 2 + (r & 1);
          if (row < kM && col < kN) f(row, col, acc[i][j][r]);
        }
      }
    }
  }
};

// CUDA cores for f32: exact fp32 products and sums, no tf32 rounding. 256
// threads (16 x 16) own a kBM x 128 tile, kBM/16 x 8 outputs each, as 4x4
// pieces 64 rows and columns apart, so a quarter-warp's shared reads are one
// broadcast vector of A and eight consecutive 16-byte ones of B. Shared
// memory serves one 128-byte wavefront per clock and each 16-byte read costs
// one per quarter-warp, so 16x8 outputs a thread (kBM = 256) keep it busy
// 75% of the FFMA time where 8x8 (kBM = 128) needs all of it. K advances kBK
// at a time through kStages shared-memory stages:
//   2 (kBK = 8): the next slice is loaded into registers while the current
//      one is multiplied, and stored transposed ([k][row]) so A reads are
//      vectors along rows; any alignment.
//   3 or 4 (kVec only): cp.async copies slices kStages - 1 ahead straight
//      into shared memory, A as stored ([row][k], rows padded by 4 floats so
//      the two row groups a warp reads fall in different banks), and A is
//      read as vectors along K. ptxas sinks the 2-stage loads next to their
//      stores to fit 128 registers, which exposes their latency; the copies
//      hold no registers. kBK = 16 halves the barriers and waits per product.
// kVec: rows of A and B are 16-byte aligned.
template <long long kM, long long kN, long long kK, bool kVec, int kTileM, int kTileK, int kStages>
struct KilnFfmaMainloop {
  static constexpr int kBM = kTileM, kBN = 128, kBK = kTileK, kThreads = 256;
  static constexpr int kTM = kBM / 16;          // rows per thread: 8 or 16
  static constexpr int kChunksK = kBK / 4;      // 16-byte chunks along K of a row of A
  static constexpr int kLoadsA = kBM * kChunksK / kThreads;  // 16-byte loads of A per thread and slice
  static constexpr int kLoadsB = kBK * kBN / 4 / kThreads;   // and of B
  static constexpr bool kAsync = kStages > 2;
  static constexpr int kRowA = kBK + 4;         // floats per padded row of an A stage (kAsync)
  static constexpr int kStageFloatsA = kAsync ? kBM * kRowA : kBK * kBM;
  static constexpr int kStageFloatsB = kBK * kBN;
  static constexpr int kSharedBytes = kStages * (kStageFloatsA + kStageFloatsB) * 4;
  static constexpr int kKTiles = static_cast<int>((kK + kBK - 1) / kBK);
  static_assert(kBM == 128 || kBM == 256, "the FFMA tile is 128 or 256 rows tall");
  static_assert(kBK == 8 || (kAsync && kBK == 16), "FFMA slices are 8 deep, or 16 through cp.async");
  static_assert(kStages == 2 || (kVec && kStages <= 4), "cp.async stages need 16-byte aligned rows");
  static constexpr int kValues = kTM * 8;  // accumulators per thread

  float acc[kTM][8];
  float a_next[kLoadsA][4];  // A[row0 + (tid + i*256)/2][k0 + ((tid + i*256)%2)*4 + e]
  float b_next[4];           // B[k0 + tid/32][col0 + (tid%32)*4 + e]

  static __device__ __forceinline__ void load4(float (&v)[4], const float* row, long long col, long long row_length,
                                               bool row_valid) {
    if constexpr (kVec) {
      const float4 x = row_valid && col < row_length ? *reinterpret_cast<const float4*>(row + col)
                                                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      v[0] = x.x;
      v[1] = x.y;
      v[2] = x.z;
      v[3] = x.w;
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) v[e] = row_valid && col + e < row_length ? row[col + e] : 0.0f;
    }
  }

  __device__ __forceinline__ void load_global(const float* a, const float* b, int row0, int col0, long long k0) {
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < kLoadsA; ++i) {
      const int c = tid + i * kThreads;
      const long long global_row = row0 + c / 2;
      load4(a_next[i], a + (global_row < kM ? global_row : 0) * kK, k0 + (c % 2) * 4, kK, global_row < kM);
    }
    const long long global_k = k0 + tid / 32;
    load4(b_next, b + (global_k < kK ? global_k : 0) * kN, col0 + (tid % 32) * 4, kN, global_k < kK);
  }

  // A is stored transposed ([k][row]) so the inner loop reads rows as vectors.
  __device__ __forceinline__ void store_shared(float* as, float* bs) const {
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < kLoadsA; ++i) {
      const int c = tid + i * kThreads;
#pragma unroll
      for (int e = 0; e < 4; ++e) as[((c % 2) * 4 + e) * kBM + c / 2] = a_next[i][e];
    }
    *reinterpret_cast<float4*>(bs + (tid / 32) * kBN + (tid % 32) * 4) =
        make_float4(b_next[0], b_next[1], b_next[2], b_next[3]);
  }

  // Accumulator i of this thread, in the order a split-K partial slot holds them.
  __device__ __forceinline__ float& value(int i) { return acc[i / 8][i % 8]; }

  // Two stages through registers: A stages are [kBK][kBM], B's [kBK][kBN].
  // Step first_step + i goes through buffer i % 2.
  __device__ __forceinline__ void run_registers(const float* a, const float* b, int row0, int col0, float* as,
                                                float* bs, int first_step, int end_step) {
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int steps = end_step - first_step;
    load_global(a, b, row0, col0, static_cast<long long>(first_step) * kBK);
    store_shared(as, bs);
    __syncthreads();
    for (int i = 0; i < steps; ++i) {
      const int buffer = i & 1;
      if (i + 1 < steps) load_global(a, b, row0, col0, static_cast<long long>(first_step + i + 1) * kBK);
      const float* at = as + buffer * kBK * kBM;
      const float* bt = bs + buffer * kBK * kBN;
#pragma unroll
      for (int k = 0; k < kBK; ++k) {
        float av[kTM], bv[8];
#pragma unroll
        for (int p = 0; p < kTM / 4; ++p) {
          *reinterpret_cast<float4*>(av + 4 * p) = *reinterpret_cast<const float4*>(at + k * kBM + p * 64 + ty * 4);
        }
        *reinterpret_cast<float4*>(bv) = *reinterpret_cast<const float4*>(bt + k * kBN + tx * 4);
        *reinterpret_cast<float4*>(bv + 4) = *reinterpret_cast<const float4*>(bt + k * kBN + 64 + tx * 4);
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
      }
      // The other buffer was last read in the previous iteration, which every
      // thread finished before the barrier that ended it.
      if (i + 1 < steps) store_shared(as + (buffer ^ 1) * kBK * kBM, bs + (buffer ^ 1) * kBK * kBN);
      __syncthreads();
    }
  }

  // cp.async: slice `kt`'s A and B chunks into stage `stage`; chunks past
  // the matrix read nothing and fill zeros.
  __device__ __forceinline__ void copy_async(const float* a, const float* b, int row0, int col0, int kt,
                                             int stage, float* as, float* bs) const {
    const int tid = threadIdx.x;
    const long long k0 = static_cast<long long>(kt) * kBK;
#pragma unroll
    for (int i = 0; i < kLoadsA; ++i) {
      const int c = tid + i * kThreads;
      const long long row = row0 + c / kChunksK, k = k0 + (c % kChunksK) * 4;
      const bool valid = row < kM && k < kK;
      kiln_cp_async16(kiln_shared_address(as + stage * kStageFloatsA + (c / kChunksK) * kRowA + (c % kChunksK) * 4),
                      a + (valid ? row * kK + k : 0), valid);
    }
#pragma unroll
    for (int i = 0; i < kLoadsB; ++i) {
      const int c = tid + i * kThreads;
      const long long k = k0 + c / 32, col = col0 + (c % 32) * 4;
      const bool valid = k < kK && col < kN;
      kiln_cp_async16(kiln_shared_address(bs + stage * kStageFloatsB + (c / 32) * kBN + (c % 32) * 4),
                      b + (valid ? k * kN + col : 0), valid);
    }
  }

  // acc += the slice in stage `stage`, A stored [row][k] (kAsync). A is read
  // kAK values of K at a time: 16-byte vectors for 8 rows a thread, 8-byte
  // ones for 16, which keeps the vectors held to 32 registers.
  __device__ __forceinline__ void multiply_async(const float* as, const float* bs, int stage) {
    constexpr int kAK = kTM == 8 ? 4 : 2;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const float* at = as + stage * kStageFloatsA;
    const float* bt = bs + stage * kStageFloatsB;
#pragma unroll
    for (int kq = 0; kq < kBK / kAK; ++kq) {
      float av[kTM][kAK];
#pragma unroll
      for (int i = 0; i < kTM; ++i) {
        const float* row = at + ((i / 4) * 64 + ty * 4 + i % 4) * kRowA + kq * kAK;
        if constexpr (kAK == 4) {
          *reinterpret_cast<float4*>(av[i]) = *reinterpret_cast<const float4*>(row);
        } else {
          *reinterpret_cast<float2*>(av[i]) = *reinterpret_cast<const float2*>(row);
        }
      }
#pragma unroll
      for (int kk = 0; kk < kAK; ++kk) {
        const int k = kq * kAK + kk;
        float bv[8];
        *reinterpret_cast<float4*>(bv) = *reinterpret_cast<const float4*>(bt + k * kBN + tx * 4);
        *reinterpret_cast<float4*>(bv + 4) = *reinterpret_cast<const float4*>(bt + k * kBN + 64 + tx * 4);
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i][kk], bv[j], acc[i][j]);
      }
    }
  }

  // The cp.async ring: slices kStages - 1 ahead are in flight, step
  // first_step + i in stage i % kStages. The barrier at the top of step i
  // makes its copies visible to every thread and ensures all have finished
  // step i - 1, whose stage the copy issued next overwrites. Every iteration
  // commits a group, empty past the last step, so the wait counts stay uniform.
  __device__ __forceinline__ void run_async(const float* a, const float* b, int row0, int col0, float* as,
                                            float* bs, int first_step, int end_step) {
    const int steps = end_step - first_step;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < steps) copy_async(a, b, row0, col0, first_step + s, s, as, bs);
      kiln_cp_async_commit();
    }
    for (int i = 0; i < steps; ++i) {
      kiln_cp_async_wait<kStages - 2>();
      __syncthreads();
      const int next = i + kStages - 1;
      if (next < steps) copy_async(a, b, row0, col0, first_step + next, next % kStages, as, bs);
      kiln_cp_async_commit();
      multiply_async(as, bs, i % kStages);
    }
  }

  __device__ __forceinline__ void run(const float* a, const float* b, int row0, int col0, unsigned char* shared,
                                      int first_step, int end_step) {
    float* as = reinterpret_cast<float*>(shared);  // [kStages][kStageFloatsA]
    float* bs = as + kStages * kStageFloatsA;       // [kStages][kBK][kBN]
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
    if constexpr (kAsync) {
      run_async(a, b, row0, col0, as, bs, first_step, end_step);
    } else {
      run_registers(a, b, row0, col0, as, bs, first_step, end_step);
    }
  }

  template <typename F>
  __device__ __forceinline__ void for_each(int row0, int col0, F&& f) const {
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      const int row = row0 + (i / 4) * 64 + ty * 4 + i % 4;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int col = col0 + (j / 4) * 64 + tx * 4 + j % 4;
        if (row < kM && col < kN) f(row, col, acc[i][j]);
      }
    }
  }
};
