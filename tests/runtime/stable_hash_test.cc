#include "runtime/stable_hash.h"

#include <string>

#include "gtest/gtest.h"

namespace kiln {
namespace {

// Reference values from the canonical MurmurHash3_x64_128 (seed 0).
TEST(StableHashTest, MatchesMurmurHash3Reference) {
  EXPECT_EQ(StableHash128(""), (Hash128{.lo = 0, .hi = 0}));
  EXPECT_EQ(StableHash128("foo"),
            (Hash128{.lo = 0xe271865701f54561ULL, .hi = 0x7eaf87e42bba7d87ULL}));
  EXPECT_EQ(StableHash128("hello"),
            (Hash128{.lo = 0xcbd8a7b341bd9b02ULL, .hi = 0x5b1e906a48ae1d19ULL}));
  EXPECT_EQ(StableHash128("The quick brown fox jumps over the lazy dog"),
            (Hash128{.lo = 0xe34bbc7bbc071b6cULL, .hi = 0x7a433ca9c49a9347ULL}));
  // Two full blocks and a 5-byte tail.
  std::string bytes;
  for (int i = 0; i < 37; ++i) bytes.push_back(static_cast<char>(i));
  EXPECT_EQ(StableHash128(bytes),
            (Hash128{.lo = 0x5174ad5edd02d820ULL, .hi = 0x80845399c703cdb0ULL}));
}

TEST(StableHashTest, HexIsHighWordFirst) {
  EXPECT_EQ((Hash128{.lo = 0x1, .hi = 0xabcdef}).Hex(), "0000000000abcdef0000000000000001");
  EXPECT_EQ(StableHash128("foo").Hex(), "7eaf87e42bba7d87e271865701f54561");
}

TEST(StableHashTest, HasherSeparatesFields) {
  StableHasher ab_c;
  ab_c.Add("ab");
  ab_c.Add("c");
  StableHasher a_bc;
  a_bc.Add("a");
  a_bc.Add("bc");
  StableHasher ab_c_again;
  ab_c_again.Add("ab");
  ab_c_again.Add("c");
  EXPECT_NE(ab_c.Finish(), a_bc.Finish());
  EXPECT_EQ(ab_c.Finish(), ab_c_again.Finish());
}

TEST(StableHashTest, HasherNumbersAreFieldsToo) {
  StableHasher one;
  one.Add(uint64_t{1});
  StableHasher two;
  two.Add(uint64_t{2});
  EXPECT_NE(one.Finish(), two.Finish());
  // A number is its 8 little-endian bytes, as a field.
  StableHasher as_bytes;
  as_bytes.Add(std::string("\x01\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(one.Finish(), as_bytes.Finish());
}

}  // namespace
}  // namespace kiln
