// ---- transposes: one tile through shared memory ----
// kiln_transpose_tile moves the tile whose first row is r0 and first column
// c0: its element (r, c) is in[in_at + r * kInRowStride + c] and goes to
// out[out_at + c * kOutColStride + r]. Global memory moves as aligned 16-byte
// vectors of kV elements both ways (element by element only at the ends of a
// tensor or of a row), so a warp reads and writes whole 128-byte lines.
//
// Shared memory holds the tile row by row in 16-byte chunks, chunk k of row r
// at chunk k ^ ((r / kV) & 7) of its row. The swizzle, unlike a padded row,
// keeps every chunk 16-byte aligned, and the chunks a quarter-warp touches at
// once (8 along a row when reading, one chunk column of 8 micro-tiles kV rows
// apart when writing) all fall in different banks.
//
// How each side moves its rows (TileRows in fusion/plan.h):
//   KILN_ROWS_ALIGNED: every row starts on a vector boundary. Reads store
//     whole chunks; writes load kV x kV micro-tiles as kV chunks and transpose
//     them in registers, so no shared access is narrower than 16 bytes.
//   KILN_ROWS_STRADDLING: rows start off boundaries. Shared memory still
//     moves whole chunks: a read chunk is the two aligned vectors covering it
//     funnel-shifted by the row's lead, a write vector the columns of two
//     micro-tiles funnel-shifted by its column's lead (kV scalar shared
//     accesses per vector, as before, were issue-bound). A write vector
//     belongs to the tile that holds its first element (the first tile of a
//     row also owns the one straddling the row's start), and the tile holds
//     the kV rows after it that its last vectors reach into, so no vector
//     inside a row is split between two tiles and written in element-wise
//     halves (that filled L2 with partial sectors: 4093x8191 bf16 ran at 0.17
//     of copy on an H200).
//   KILN_ROWS_CONTIGUOUS: rows start off boundaries, but the tile's rows are
//     whole and adjacent in memory: the tile is one span of vectors, so short
//     rows need no vector each.
//
// Shape holds kThreads (the block), kTileR, kTileC (powers of two, at least
// kV), kV, kReads and kWrites (KilnTileRows), kRows and kCols (the dims the
// tile's rows and columns run along), kInRowStride and kOutColStride
// (elements), kN (the input's elements) and kAlignedBatches (every batch
// starts on a vector boundary in both tensors, as in 2-D, so the leads of
// a tile's rows are constants).
enum KilnTileRows { KILN_ROWS_ALIGNED, KILN_ROWS_STRADDLING, KILN_ROWS_CONTIGUOUS };

// A transpose moves bits, never values: every element travels as the
// unsigned integer of its size (a NaN's payload survives).
template <int kBytes>
struct KilnBitsOf;
template <>
struct KilnBitsOf<1> {
  using type = unsigned char;
};
template <>
struct KilnBitsOf<2> {
  using type = unsigned short;
};
template <>
struct KilnBitsOf<4> {
  using type = unsigned;
};

// A 16-byte vector as four words, the form the register transpose works on.
struct KilnChunk {
  unsigned w[4];
};
__device__ __forceinline__ KilnChunk kiln_chunk_load(const void* p) {
  const uint4 v = *static_cast<const uint4*>(p);
  return {{v.x, v.y, v.z, v.w}};
}
// Words 2h and 2h + 1 of the chunk at p, one 8-byte load (the other two
// words are left unset: callers read only these).
__device__ __forceinline__ void kiln_chunk_load_half(const void* p, int h, KilnChunk& c) {
  const uint2 v = static_cast<const uint2*>(p)[h];
  c.w[2 * h] = v.x;
  c.w[2 * h + 1] = v.y;
}
__device__ __forceinline__ void kiln_chunk_store_shared(void* p, const KilnChunk& c) {
  *static_cast<uint4*>(p) = make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]);
}
// NVCC splits a 16-byte global store of values gathered from shared memory
// into scalar stores, even one written as a uint4 (the previous tile kernel
// stored f32 tiles as 4 st.global.f32 per vector and 16-bit ones as 8
// st.global.u16, and L2 saturated on sectors); inline PTX keeps one vector.
__device__ __forceinline__ void kiln_chunk_store_global(void* p, const KilnChunk& c) {
#ifdef __CUDA_ARCH__
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(c.w[0]), "r"(c.w[1]), "r"(c.w[2]),
               "r"(c.w[3])
               : "memory");
#else
  // A host build: tests/codegen/transpose_tile_host_test.cc runs the tile code on the CPU.
  *static_cast<uint4*>(p) = make_uint4(c.w[0], c.w[1], c.w[2], c.w[3]);
#endif
}
template <typename B, int kV>
__device__ __forceinline__ KilnChunk kiln_chunk_of(const KilnVec<B, kV>& v) {
  constexpr int kBytes = static_cast<int>(sizeof(B));
  KilnChunk c = {};
#pragma unroll
  for (int j = 0; j < kV; ++j) c.w[j * kBytes / 4] |= static_cast<unsigned>(v.v[j]) << (8 * (j * kBytes % 4));
  return c;
}
// The 16 bytes from byte `offset` (0..15) on of lo followed by hi: whole
// words picked by two selects per word, the bytes within them by one permute.
__device__ __forceinline__ KilnChunk kiln_chunk_funnel(const KilnChunk& lo, const KilnChunk& hi, int offset) {
  const unsigned w[8] = {lo.w[0], lo.w[1], lo.w[2], lo.w[3], hi.w[0], hi.w[1], hi.w[2], hi.w[3]};
  unsigned by2[6], by1[5];
#pragma unroll
  for (int t = 0; t < 6; ++t) by2[t] = (offset & 8) ? w[t + 2] : w[t];
#pragma unroll
  for (int t = 0; t < 5; ++t) by1[t] = (offset & 4) ? by2[t + 1] : by2[t];
  const unsigned select = 0x3210u + 0x1111u * static_cast<unsigned>(offset & 3);
  KilnChunk out;
#pragma unroll
  for (int q = 0; q < 4; ++q) out.w[q] = __byte_perm(by1[q], by1[q + 1], select);
  return out;
}

// Column i of the kV x kV micro-tile whose row j is a[j]: element j is
// element i of a[j]. Word moves for 4-byte elements, byte permutes for 2
// (one per word) and 1 (three per word).
template <int kBytes>
__device__ __forceinline__ KilnChunk kiln_micro_column(const KilnChunk (&a)[16 / kBytes], int i) {
  KilnChunk b;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if constexpr (kBytes == 4) {
      b.w[q] = a[q].w[i];
    } else if constexpr (kBytes == 2) {
      b.w[q] = __byte_perm(a[2 * q].w[i / 2], a[2 * q + 1].w[i / 2], (i & 1) ? 0x7632 : 0x5410);
    } else {
      const unsigned select = (i & 3) | ((4 + (i & 3)) << 4);
      const unsigned low = __byte_perm(a[4 * q].w[i / 4], a[4 * q + 1].w[i / 4], select);
      const unsigned high = __byte_perm(a[4 * q + 2].w[i / 4], a[4 * q + 3].w[i / 4], select);
      b.w[q] = __byte_perm(low, high, 0x5410);
    }
  }
  return b;
}

// Column i of rows first..first + kV - 1 of the 2 kV rows a then b (a[j]
// is row j, b[j] row kV + j), as one vector: each word is one byte permute
// of two row words (three for 1-byte elements). `first` must be a constant
// after unrolling, or the rows are picked from registers at run time.
template <int kBytes>
__device__ __forceinline__ KilnChunk kiln_sheared_column(const KilnChunk (&a)[16 / kBytes],
                                                        const KilnChunk (&b)[16 / kBytes], int i, int first) {
  constexpr int kV = 16 / kBytes;
  const auto word = [&](int row) { return row < kV ? a[row].w[i * kBytes / 4] : b[row - kV].w[i * kBytes / 4]; };
  KilnChunk out;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if constexpr (kBytes == 4) {
      out.w[q] = word(first + q);
    } else if constexpr (kBytes == 2) {
      out.w[q] = __byte_perm(word(first + 2 * q), word(first + 2 * q + 1), (i & 1) ? 0x7632 : 0x5410);
    } else {
      const unsigned select = (i & 3) | ((4 + (i & 3)) << 4);
      const unsigned low = __byte_perm(word(first + 4 * q), word(first + 4 * q + 1), select);
      const unsigned high = __byte_perm(word(first + 4 * q + 2), word(first + 4 * q + 3), select);
      out.w[q] = __byte_perm(low, high, 0x5410);
    }
  }
  return out;
}

// The element-wise ends of a tensor or of a row, as loops kept rolled:
// the ends are rare, and unrolled at every vector of a tile they made a
// 16-bit kernel's code four times larger and its ptxas run a second longer.
// They stay inline: as __noinline__ calls, ptxas 13.0 let the callee reuse
// uniform registers that the other side of a divergent branch still read
// (an f16 [15,20,10,16] transpose under perm [3,0,2,1] wrote whole columns
// to another batch's rows on an H200).
__device__ __forceinline__ unsigned kiln_chunk_word(const KilnChunk& c, int q) {
  return q < 2 ? (q == 0 ? c.w[0] : c.w[1]) : (q == 2 ? c.w[2] : c.w[3]);
}
template <typename B, int kV>
__device__ __forceinline__ KilnChunk kiln_load_span_edge(const B* __restrict__ in, long long g, long long begin,
                                                         long long end) {
  constexpr int kBytes = static_cast<int>(sizeof(B));
  KilnChunk c = {};
#pragma unroll 1
  for (int j = 0; j < kV; ++j) {
    if (g + j < begin || g + j >= end) continue;
    const unsigned bits = static_cast<unsigned>(in[g + j]) << (8 * (j * kBytes % 4));
    const int q = j * kBytes / 4;
#pragma unroll
    for (int w = 0; w < 4; ++w) c.w[w] |= w == q ? bits : 0u;
  }
  return c;
}
template <typename B, int kV>
__device__ __forceinline__ void kiln_store_span_edge(B* __restrict__ out, long long g, long long begin, long long end,
                                                     const KilnChunk& c) {
  constexpr int kBytes = static_cast<int>(sizeof(B));
#pragma unroll 1
  for (int j = 0; j < kV; ++j) {
    if (g + j < begin || g + j >= end) continue;
    out[g + j] = static_cast<B>(kiln_chunk_word(c, j * kBytes / 4) >> (8 * (j * kBytes % 4)));
  }
}

// The aligned vector at in[g..g+kV), its elements outside [0, n) zero.
template <typename B, int kV>
__device__ __forceinline__ KilnChunk kiln_chunk_load_clipped(const B* __restrict__ in, long long g, long long n) {
  return g >= 0 && g + kV <= n ? kiln_chunk_load(in + g) : kiln_load_span_edge<B, kV>(in, g, 0, n);
}
// The aligned vector at out[g..g+kV): one 16-byte store when it lies inside
// [begin, end), else only its elements inside.
template <typename B, int kV>
__device__ __forceinline__ void kiln_chunk_store_clipped(B* __restrict__ out, long long g, long long begin,
                                                         long long end, const KilnChunk& c) {
  if (g >= begin && g + kV <= end) {
    kiln_chunk_store_global(out + g, c);
  } else {
    kiln_store_span_edge<B, kV>(out, g, begin, end, c);
  }
}

__host__ __device__ constexpr int kiln_power_of_two_at_least(int n) { return n <= 1 ? 1 : 2 * kiln_power_of_two_at_least((n + 1) / 2); }

template <typename Shape>
struct KilnTileLayout {
  static constexpr int kV = Shape::kV;
  static constexpr int kChunks = Shape::kTileC / kV;  // per tile row
  static constexpr int kSwizzle = (kChunks < 8 ? kChunks : 8) - 1;
  // Rows held: the tile's, and when writes straddle the kV after them.
  static constexpr int kHeldRows = Shape::kTileR + (Shape::kWrites == KILN_ROWS_STRADDLING ? kV : 0);
  // The element offset of chunk k of row r, and of element (r, c).
  static __device__ __forceinline__ int chunk(int r, int k) {
    return r * Shape::kTileC + (k ^ (static_cast<unsigned>(r) / kV & kSwizzle)) * kV;
  }
  static __device__ __forceinline__ int at(int r, int c) {
    return chunk(r, static_cast<unsigned>(c) / kV) + static_cast<unsigned>(c) % kV;
  }
};

// Loads `held` rows of `cols` columns from the input into `tile`, a thread's
// loads (of one item when rows straddle) all issued before the first is
// stored, so they are in flight together.
template <typename B, typename Shape>
__device__ __forceinline__ void kiln_tile_load(const B* __restrict__ in, long long in_at, int held, int cols,
                                               B* tile) {
  using L = KilnTileLayout<Shape>;
  constexpr int kV = Shape::kV;
  constexpr int kBytes = static_cast<int>(sizeof(B));
  if constexpr (Shape::kReads == KILN_ROWS_ALIGNED) {
    constexpr int kVectors = L::kHeldRows * L::kChunks;
    constexpr int kSteps = (kVectors + Shape::kThreads - 1) / Shape::kThreads;
    KilnChunk x[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      const int r = i / L::kChunks, k = i % L::kChunks;
      if (i < kVectors && r < held && k * kV < cols) {
        x[u] = kiln_chunk_load(in + in_at + r * Shape::kInRowStride + k * kV);
      }
    }
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      const int r = i / L::kChunks, k = i % L::kChunks;
      if (i < kVectors && r < held && k * kV < cols) kiln_chunk_store_shared(tile + L::chunk(r, k), x[u]);
    }
  } else if constexpr (Shape::kReads == KILN_ROWS_STRADDLING) {
    // Item (g, k) moves chunk k of the kV rows from g * kV on. Row g * kV + j
    // starts lead_j elements past a vector boundary, lead_j = (lead of row 0
    // + j * kInRowStride) mod kV, the same for every g: with batches on
    // vector boundaries (always in 2-D) it is a constant, and the funnel
    // shift of the two aligned vectors covering the chunk folds to a few
    // byte permutes (or none). The second vector is not loaded where lead_j
    // is 0. A thread's 2 kV loads are all in flight before the first store.
    constexpr int kGroups = L::kHeldRows / kV;
    constexpr int kItems = kGroups * L::kChunks;
    constexpr int kSteps = (kItems + Shape::kThreads - 1) / Shape::kThreads;
    constexpr int kStride = static_cast<int>(Shape::kInRowStride % kV);
    const int lead0 = Shape::kAlignedBatches ? 0 : static_cast<int>(in_at & (kV - 1));
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int item = threadIdx.x + u * Shape::kThreads;
      const int g = item / L::kChunks, k = item % L::kChunks;
      if (item >= kItems || k * kV >= cols) continue;
      const long long group = in_at + static_cast<long long>(g) * kV * Shape::kInRowStride + k * kV;
      KilnChunk lo[kV], hi[kV];
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        const int lead = (lead0 + j * kStride) & (kV - 1);
        const long long at = group + j * Shape::kInRowStride - lead;
        if (g * kV + j >= held) continue;
        if (at + 2 * kV <= Shape::kN) {
          lo[j] = kiln_chunk_load(in + at);
          if (lead > 0) hi[j] = kiln_chunk_load(in + at + kV);
        } else {
          lo[j] = kiln_chunk_load_clipped<B, kV>(in, at, Shape::kN);
          hi[j] = kiln_chunk_load_clipped<B, kV>(in, at + kV, Shape::kN);
        }
      }
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        const int lead = (lead0 + j * kStride) & (kV - 1);
        if (g * kV + j >= held) continue;
        kiln_chunk_store_shared(tile + L::chunk(g * kV + j, k),
                                lead > 0 ? kiln_chunk_funnel(lo[j], hi[j], lead * kBytes) : lo[j]);
      }
    }
  } else {
    // in[in_at + e] for e < held * kCols is element (e / kCols, e % kCols).
    constexpr int kVectors = (L::kHeldRows * Shape::kTileC + 2 * kV - 2) / kV;
    constexpr int kSteps = (kVectors + Shape::kThreads - 1) / Shape::kThreads;
    constexpr int kCols = static_cast<int>(Shape::kCols);
    const int lead = static_cast<int>(in_at & (kV - 1));
    const int n = held * kCols;
    KilnVec<B, kV> x[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      const int e = i * kV - lead;
      if (i < kVectors && e < n) x[u] = kiln_load_span<B, kV>(in, in_at + e, 0, Shape::kN);
    }
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      const int e = i * kV - lead;
      if (i >= kVectors || e >= n) continue;
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        const int ej = e + j;
        const int r = ej / kCols;
        if (ej >= 0 && ej < n) tile[L::at(r, ej - r * kCols)] = x[u].v[j];
      }
    }
  }
}

// Stores the tile to the output. `rows_left` counts the rows from the tile's
// first (r0) to the end of the dim; `cols` the tile's columns.
template <typename B, typename Shape>
__device__ __forceinline__ void kiln_tile_store(B* __restrict__ out, long long out_at, long long r0,
                                                long long rows_left, int cols, const B* tile) {
  using L = KilnTileLayout<Shape>;
  constexpr int kV = Shape::kV;
  constexpr int kBytes = static_cast<int>(sizeof(B));
  constexpr int kMicroRows = Shape::kTileR / kV;
  if constexpr (Shape::kWrites == KILN_ROWS_ALIGNED) {
    // Micro-tile m is tile rows [mr * kV, +kV) x chunk column mc; consecutive
    // threads take consecutive mr, so a warp's stores fill whole output lines.
    constexpr int kMicro = kMicroRows * L::kChunks;
    constexpr int kSteps = (kMicro + Shape::kThreads - 1) / Shape::kThreads;
    const int rows = static_cast<int>(rows_left < Shape::kTileR ? rows_left : Shape::kTileR);
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int m = threadIdx.x + u * Shape::kThreads;
      const int mr = m % kMicroRows, mc = m / kMicroRows;
      if (m >= kMicro || mr * kV >= rows || mc * kV >= cols) continue;
      KilnChunk a[kV];
#pragma unroll
      for (int j = 0; j < kV; ++j) a[j] = kiln_chunk_load(tile + L::chunk(mr * kV + j, mc));
#pragma unroll
      for (int i = 0; i < kV; ++i) {
        const int c = mc * kV + i;
        if (c < cols) {
          kiln_chunk_store_global(out + out_at + c * Shape::kOutColStride + mr * kV, kiln_micro_column<kBytes>(a, i));
        }
      }
    }
  } else if constexpr (Shape::kWrites == KILN_ROWS_STRADDLING) {
    // Item (p, mc) writes, for each column c of chunk column mc, the aligned
    // vector starting at tile row first_c + (p - 1) * kV (first_c: the
    // column's first boundary, p from 1 to kMicroRows), the column's kV
    // elements from there in micro-tiles p - 1 and p, read as chunks. Item
    // p = 1 of a row's first tile also writes the vector straddling the
    // row's start. first_c = (first of column 0 - c * kOutColStride) mod kV
    // is a constant for each c of a chunk column when batches lie on vector
    // boundaries: each word of the vector is then one byte permute of two
    // chunk words (kiln_sheared_column), else the columns of both
    // micro-tiles are funnel-shifted by first_c. Consecutive threads take
    // consecutive p (kSlots of them a chunk column). Column i reads only word
    // i * kBytes / 4 of each row, so an item moves its columns in two halves,
    // each from 8-byte halves of the 2 kV chunks: 8 words of 2 kV rows held at
    // once, not 16 (16-bit tiles on 4093x8191 took 94 registers, five blocks
    // an SM, and f32 56, four; now 76 and 42, six and five). The 8-byte loads
    // of p and p + 8 share banks, a 2-way conflict the shared pipe absorbs.
    constexpr int kSlots = kiln_power_of_two_at_least(kMicroRows);
    constexpr int kMicro = kSlots * L::kChunks;
    constexpr int kSteps = (kMicro + Shape::kThreads - 1) / Shape::kThreads;
    constexpr int kStride = static_cast<int>(Shape::kOutColStride % kV);
    const int first0 = Shape::kAlignedBatches ? 0 : static_cast<int>(-out_at & (kV - 1));
    const int rows = static_cast<int>(rows_left < L::kHeldRows ? rows_left : L::kHeldRows);
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int m = threadIdx.x + u * Shape::kThreads;
      const int p = m % kSlots + 1, mc = m / kSlots;
      if (m >= kMicro || p > kMicroRows || mc * kV >= cols || (p - 1) * kV >= rows) continue;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        KilnChunk above[kV], below[kV];
#pragma unroll
        for (int j = 0; j < kV; ++j) {
          kiln_chunk_load_half(tile + L::chunk((p - 1) * kV + j, mc), h, above[j]);
          kiln_chunk_load_half(tile + L::chunk(p * kV + j, mc), h, below[j]);
        }
#pragma unroll
        for (int i = h * kV / 2; i < (h + 1) * kV / 2; ++i) {
          const int c = mc * kV + i;
          if (c >= cols) continue;
          const long long base = out_at + c * Shape::kOutColStride;  // tile row 0 of output row c
          const int first = (first0 - i * kStride) & (kV - 1);
          const int r = first + (p - 1) * kV;
          KilnChunk vector;
          if constexpr (Shape::kAlignedBatches) {
            vector = kiln_sheared_column<kBytes>(above, below, i, first);
          } else {
            vector = kiln_chunk_funnel(kiln_micro_column<kBytes>(above, i), kiln_micro_column<kBytes>(below, i),
                                       first * kBytes);
          }
          if (r + kV <= rows) {
            kiln_chunk_store_global(out + base + r, vector);
          } else if (r < rows) {
            kiln_store_span_edge<B, kV>(out, base + r, base - r0, base + rows_left, vector);
          }
          if (p == 1 && r0 == 0 && first > 0) {
            kiln_chunk_store_clipped<B, kV>(
                out, base + first - kV, base, base + rows_left,
                kiln_chunk_funnel(KilnChunk{}, kiln_micro_column<kBytes>(above, i), first * kBytes));
          }
        }
      }
    }
  } else {
    // out[out_at + e] for e < cols * kRows is element (e % kRows, e / kRows) of the tile.
    constexpr int kVectors = (Shape::kTileR * Shape::kTileC + 2 * kV - 2) / kV;
    constexpr int kSteps = (kVectors + Shape::kThreads - 1) / Shape::kThreads;
    constexpr int kRows = static_cast<int>(Shape::kRows);
    const int lead = static_cast<int>(out_at & (kV - 1));
    const int n = cols * kRows;
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      const int e = i * kV - lead;
      if (i >= kVectors || e >= n) continue;
      KilnVec<B, kV> y = {};
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        const int ej = e + j;
        const int c = ej / kRows;
        if (ej >= 0 && ej < n) y.v[j] = tile[L::at(ej - c * kRows, c)];
      }
      kiln_chunk_store_clipped<B, kV>(out, out_at + e, out_at, out_at + n, kiln_chunk_of(y));
    }
  }
}

template <typename T, typename Shape>
__device__ __forceinline__ void kiln_transpose_tile(const T* __restrict__ in, T* __restrict__ out, long long in_at,
                                                    long long out_at, long long r0, long long c0) {
  using B = typename KilnBitsOf<static_cast<int>(sizeof(T))>::type;
  using L = KilnTileLayout<Shape>;
  __shared__ uint4 tile_chunks[L::kHeldRows * L::kChunks];
  B* tile = reinterpret_cast<B*>(tile_chunks);
  const long long rows_left = Shape::kRows - r0;
  const int held = static_cast<int>(rows_left < L::kHeldRows ? rows_left : L::kHeldRows);
  const int cols = static_cast<int>(Shape::kCols - c0 < Shape::kTileC ? Shape::kCols - c0 : Shape::kTileC);
  kiln_tile_load<B, Shape>(reinterpret_cast<const B*>(in), in_at, held, cols, tile);
  __syncthreads();
  kiln_tile_store<B, Shape>(reinterpret_cast<B*>(out), out_at, r0, rows_left, cols, tile);
}
