// A row kernel's column operands beside unaligned rows (codegen/device/
// kiln_device.cuh, kiln_with_shift and kiln_load_cols) run on the CPU: for
// every operand length and every start of a vector inside it, the vector
// read is the operand's elements from that start, and nothing past the
// operand's end is read.
#include <memory>
#include <new>

#include "gtest/gtest.h"
// clang-format off: the shim must come before the device code (whose
// `#pragma unroll`s tests/CMakeLists.txt keeps the host compiler quiet about).
#include "tests/codegen/device_host.h"
#include "codegen/device/kiln_device.cuh"
// clang-format on

namespace kiln {
namespace {

template <typename T, int N>
void ExpectShiftedLoadsRead(int cols) {
  // Exactly cols elements, vector-aligned: under AddressSanitizer (.ci/run
  // runs every test so) a read past the operand's end fails the test.
  constexpr std::align_val_t kAlign{sizeof(KilnVec<T, N>)};
  std::unique_ptr<T[], void (*)(T*)> owner(new (kAlign) T[cols], [](T* q) { operator delete[](q, kAlign); });
  T* const p = owner.get();
  for (int i = 0; i < cols; ++i) p[i] = static_cast<T>(i + 1);
  for (int c = 0; c + N <= cols; ++c) {
    KilnVec<T, N> got = {};
    kiln_with_shift<N>(c & (N - 1), [&](auto shift) {
      got = kiln_load_cols<T, N, decltype(shift)::value>(p, c, cols);
    });
    for (int j = 0; j < N; ++j) {
      EXPECT_EQ(got.v[j], static_cast<T>(c + j + 1))
          << "vector from column " << c << " of " << cols << ", element " << j;
    }
  }
}

TEST(ColumnLoadHostTest, EveryShiftReadsTheColumnsFromItsStart) {
  for (int cols : {8, 9, 15, 16, 17, 31, 33, 4093}) {
    ExpectShiftedLoadsRead<unsigned short, 8>(cols);
    ExpectShiftedLoadsRead<float, 4>(cols);
    ExpectShiftedLoadsRead<unsigned char, 16>(cols);
  }
}

}  // namespace
}  // namespace kiln
