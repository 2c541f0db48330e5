// ---- transposes: one tile through shared memory ----
// kiln_transpose_tile moves the rows x cols tile (rows <= kTileR, cols <=
// kTileC) whose element (r, c) is in[in_at + r * kInRowStride + c] to
// out[out_at + c * kOutColStride + r]. Reads go along the input's rows and
// writes along the output's rows, both as 16-byte vectors of kV elements, so
// a warp moves whole 128-byte lines each way. The tile's rows are padded by
// one element, so a column's elements fall in different banks.
//
// How each side moves its rows (TileRows in fusion/plan.h):
//   KILN_ROWS_ALIGNED: every row starts on a vector boundary;
//   KILN_ROWS_STRADDLING: rows start off boundaries, and the vectors that
//     straddle a row's ends move too: a read keeps only the row's elements
//     (it may read any of the input's kN elements), a write writes only them;
//   KILN_ROWS_CONTIGUOUS: rows start off boundaries, but the tile's rows are
//     whole and adjacent in memory: the tile is one span of vectors, so short
//     rows need no vector each.
//
// Shape holds kThreads (the block), kTileR, kTileC, kV, kReads and kWrites
// (KilnTileRows), kRows and kCols (the dims the tile's rows and columns run
// along), kInRowStride and kOutColStride (elements) and kN (the input's
// elements).
enum KilnTileRows { KILN_ROWS_ALIGNED, KILN_ROWS_STRADDLING, KILN_ROWS_CONTIGUOUS };

// Vectors per line of `length` elements: an unaligned line of n elements
// touches up to one vector more than n / kV.
template <int Rows, int kV>
__device__ __forceinline__ constexpr int kiln_vectors_per_line(int length) {
  return Rows == KILN_ROWS_ALIGNED ? length / kV : (length + 2 * kV - 2) / kV;
}

// Loads the tile from the input into `tile`, every load of a thread issued
// before the first is stored, so they are in flight together.
template <typename T, typename Shape>
__device__ __forceinline__ void kiln_tile_load(const T* __restrict__ in, long long in_at, int rows, int cols,
                                               T* tile) {
  constexpr int kV = Shape::kV;
  constexpr int kPitch = Shape::kTileC + 1;
  if constexpr (Shape::kReads == KILN_ROWS_CONTIGUOUS) {
    // in[in_at + e] for e < rows * kCols is element (e / kCols, e % kCols).
    constexpr int kVectors = kiln_vectors_per_line<KILN_ROWS_CONTIGUOUS, kV>(Shape::kTileR * Shape::kTileC);
    constexpr int kSteps = (kVectors + Shape::kThreads - 1) / Shape::kThreads;
    constexpr int kCols = static_cast<int>(Shape::kCols);
    const int lead = static_cast<int>(in_at % kV);
    const int n = rows * kCols;
    KilnVec<T, kV> x[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      const int e = i * kV - lead;
      if (i < kVectors && e < n) x[u] = kiln_load_span<T, kV>(in, in_at + e, 0, Shape::kN);
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
        if (ej >= 0 && ej < n) tile[r * kPitch + ej - r * kCols] = x[u].v[j];
      }
    }
  } else {
    constexpr int kPerRow = kiln_vectors_per_line<Shape::kReads, kV>(Shape::kTileC);
    constexpr int kVectors = Shape::kTileR * kPerRow;
    constexpr int kSteps = (kVectors + Shape::kThreads - 1) / Shape::kThreads;
    constexpr bool kAligned = Shape::kReads == KILN_ROWS_ALIGNED;
    // Vector i reads row r from its column c on (c < 0: it starts before the row).
    auto origin = [&](int i, int& r, int& c) -> long long {
      r = i / kPerRow;
      const long long row = in_at + r * Shape::kInRowStride;
      c = i % kPerRow * kV - (kAligned ? 0 : static_cast<int>(row % kV));
      return row + c;
    };
    KilnVec<T, kV> x[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      int r, c;
      const long long at = origin(i, r, c);
      if (i < kVectors && r < rows && c < cols) {
        if constexpr (kAligned) {
          x[u] = kiln_load_vec<T, kV>(in + at);
        } else {
          x[u] = kiln_load_span<T, kV>(in, at, 0, Shape::kN);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      int r, c;
      origin(i, r, c);
      if (i >= kVectors || r >= rows || c >= cols) continue;
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        if (kAligned || (c + j >= 0 && c + j < cols)) tile[r * kPitch + c + j] = x[u].v[j];
      }
    }
  }
}

// Stores the tile to the output, each vector gathered from a column of `tile`.
template <typename T, typename Shape>
__device__ __forceinline__ void kiln_tile_store(T* __restrict__ out, long long out_at, int rows, int cols,
                                                const T* tile) {
  constexpr int kV = Shape::kV;
  constexpr int kPitch = Shape::kTileC + 1;
  if constexpr (Shape::kWrites == KILN_ROWS_CONTIGUOUS) {
    // out[out_at + e] for e < cols * kRows is element (e % kRows, e / kRows) of the tile.
    constexpr int kVectors = kiln_vectors_per_line<KILN_ROWS_CONTIGUOUS, kV>(Shape::kTileR * Shape::kTileC);
    constexpr int kSteps = (kVectors + Shape::kThreads - 1) / Shape::kThreads;
    constexpr int kRows = static_cast<int>(Shape::kRows);
    const int lead = static_cast<int>(out_at % kV);
    const int n = cols * kRows;
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      const int e = i * kV - lead;
      if (i >= kVectors || e >= n) continue;
      KilnVec<T, kV> y;
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        const int ej = e + j;
        const int c = ej / kRows;
        if (ej >= 0 && ej < n) y.v[j] = tile[(ej - c * kRows) * kPitch + c];
      }
      kiln_store_span<T, kV>(out, out_at + e, out_at, out_at + n, y);
    }
  } else {
    constexpr int kPerCol = kiln_vectors_per_line<Shape::kWrites, kV>(Shape::kTileR);
    constexpr int kVectors = Shape::kTileC * kPerCol;
    constexpr int kSteps = (kVectors + Shape::kThreads - 1) / Shape::kThreads;
    constexpr bool kAligned = Shape::kWrites == KILN_ROWS_ALIGNED;
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
      const int i = threadIdx.x + u * Shape::kThreads;
      // Vector i writes the output row of tile column c from tile row r on.
      const int c = i / kPerCol;
      const long long col = out_at + c * Shape::kOutColStride;
      const int r = i % kPerCol * kV - (kAligned ? 0 : static_cast<int>(col % kV));
      if (i >= kVectors || c >= cols || r >= rows) continue;
      KilnVec<T, kV> y;
#pragma unroll
      for (int j = 0; j < kV; ++j) {
        if (kAligned || (r + j >= 0 && r + j < rows)) y.v[j] = tile[(r + j) * kPitch + c];
      }
      if constexpr (kAligned) {
        kiln_store_vec<T, kV>(out + col + r, y);
      } else {
        kiln_store_span<T, kV>(out, col + r, col, col + rows, y);
      }
    }
  }
}

template <typename T, typename Shape>
__device__ __forceinline__ void kiln_transpose_tile(const T* __restrict__ in, T* __restrict__ out, long long in_at,
                                                    long long out_at, int rows, int cols) {
  __shared__ T tile[Shape::kTileR * (Shape::kTileC + 1)];
  kiln_tile_load<T, Shape>(in, in_at, rows, cols, tile);
  __syncthreads();
  kiln_tile_store<T, Shape>(out, out_at, rows, cols, tile);
}
