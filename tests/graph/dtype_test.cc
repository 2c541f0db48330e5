#include "graph/dtype.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace kiln {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(DTypeTest, NamesParseAndSizes) {
  EXPECT_EQ(DTypeName(DType::kF32), "f32");
  EXPECT_EQ(DTypeName(DType::kF16), "f16");
  EXPECT_EQ(DTypeName(DType::kBF16), "bf16");
  EXPECT_EQ(DTypeName(DType::kBool), "bool");
  EXPECT_EQ(DTypeName(DType::kI32), "i32");
  for (DType dtype : kAllDTypes) {
    absl::StatusOr<DType> parsed = ParseDType(DTypeName(dtype));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, dtype);
  }
  EXPECT_EQ(DTypeSize(DType::kF32), 4);
  EXPECT_EQ(DTypeSize(DType::kF16), 2);
  EXPECT_EQ(DTypeSize(DType::kBF16), 2);
  EXPECT_EQ(DTypeSize(DType::kBool), 1);
  EXPECT_EQ(DTypeSize(DType::kI32), 4);
  EXPECT_TRUE(IsFloat(DType::kF32));
  EXPECT_TRUE(IsFloat(DType::kF16));
  EXPECT_TRUE(IsFloat(DType::kBF16));
  EXPECT_FALSE(IsFloat(DType::kBool));
  EXPECT_FALSE(IsFloat(DType::kI32));
}

TEST(DTypeTest, ParseRejectsUnknownNamesAndEscapesThem) {
  absl::StatusOr<DType> parsed = ParseDType("f64");
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(),
            "unknown dtype \"f64\" (expected f32, f16, bf16, bool or i32)");
  EXPECT_EQ(ParseDType("F32").status().message(),
            "unknown dtype \"F32\" (expected f32, f16, bf16, bool or i32)");
  EXPECT_EQ(ParseDType("a\"b\n").status().message(),
            "unknown dtype \"a\\\"b\\n\" (expected f32, f16, bf16, bool or i32)");
}

TEST(DTypeTest, BF16RoundsToNearestEven) {
  // bf16 keeps 7 fraction bits: the spacing just above 1 is 2^-7.
  EXPECT_EQ(RoundToDType(1.0, DType::kBF16), 1.0);
  EXPECT_EQ(RoundToDType(1.0 + 0x1p-8, DType::kBF16), 1.0);               // tie, down to even
  EXPECT_EQ(RoundToDType(1.0 + 3 * 0x1p-8, DType::kBF16), 1.0 + 0x1p-6);  // tie, up to even
  EXPECT_EQ(RoundToDType(-(1.0 + 3 * 0x1p-8), DType::kBF16), -(1.0 + 0x1p-6));
  EXPECT_EQ(RoundToDType(1.0 + 0x1p-8 + 0x1p-30, DType::kBF16), 1.0 + 0x1p-7);  // just above a tie
  EXPECT_EQ(RoundToDType(0.1, DType::kBF16), 0.10009765625);
  EXPECT_EQ(RoundToDType(3.0, DType::kBF16), 3.0);
  EXPECT_EQ(RoundToDType(257.0, DType::kBF16), 256.0);  // spacing 2 above 256, tie to even
  EXPECT_EQ(RoundToDType(259.0, DType::kBF16), 260.0);
}

TEST(DTypeTest, BF16RangeSubnormalsAndSpecials) {
  const double max_bf16 = 0x1.fep127;
  EXPECT_EQ(RoundToDType(max_bf16, DType::kBF16), max_bf16);
  EXPECT_EQ(RoundToDType(0x1.fe8p127, DType::kBF16), max_bf16);  // below the halfway point
  EXPECT_EQ(RoundToDType(0x1.ffp127, DType::kBF16), kInf);       // halfway, odd max: up to inf
  EXPECT_EQ(RoundToDType(-0x1.ffp127, DType::kBF16), -kInf);
  EXPECT_EQ(RoundToDType(1e300, DType::kBF16), kInf);
  EXPECT_EQ(RoundToDType(0x1p-133, DType::kBF16), 0x1p-133);  // smallest subnormal
  EXPECT_EQ(RoundToDType(0x1p-134, DType::kBF16), 0.0);       // tie between 0 and 2^-133
  EXPECT_EQ(RoundToDType(3 * 0x1p-134, DType::kBF16), 0x1p-132);
  EXPECT_EQ(RoundToDType(0x1p-126, DType::kBF16), 0x1p-126);  // smallest normal
  EXPECT_TRUE(std::signbit(RoundToDType(-0x1p-140, DType::kBF16)));
  EXPECT_EQ(RoundToDType(kInf, DType::kBF16), kInf);
  EXPECT_EQ(RoundToDType(-kInf, DType::kBF16), -kInf);
  EXPECT_TRUE(std::isnan(RoundToDType(kNaN, DType::kBF16)));
}

TEST(DTypeTest, F16RoundsToNearestEven) {
  // f16 keeps 10 fraction bits: the spacing just above 1 is 2^-10.
  EXPECT_EQ(RoundToDType(1.0 + 0x1p-11, DType::kF16), 1.0);
  EXPECT_EQ(RoundToDType(1.0 + 3 * 0x1p-11, DType::kF16), 1.0 + 0x1p-9);
  EXPECT_EQ(RoundToDType(2049.0, DType::kF16), 2048.0);  // spacing 2 above 2048
  EXPECT_EQ(RoundToDType(2051.0, DType::kF16), 2052.0);
  EXPECT_EQ(RoundToDType(2047.5, DType::kF16), 2048.0);  // carries into the next exponent
  EXPECT_EQ(RoundToDType(0.1, DType::kF16), 0.0999755859375);
  EXPECT_EQ(RoundToDType(-0.1, DType::kF16), -0.0999755859375);
}

TEST(DTypeTest, F16RangeSubnormalsAndSpecials) {
  EXPECT_EQ(RoundToDType(65504.0, DType::kF16), 65504.0);
  EXPECT_EQ(RoundToDType(65519.99, DType::kF16), 65504.0);
  EXPECT_EQ(RoundToDType(65520.0, DType::kF16), kInf);  // halfway to 65536, odd max: inf
  EXPECT_EQ(RoundToDType(-65520.0, DType::kF16), -kInf);
  EXPECT_EQ(RoundToDType(0x1p-24, DType::kF16), 0x1p-24);  // smallest subnormal
  EXPECT_EQ(RoundToDType(0x1p-25, DType::kF16), 0.0);      // tie between 0 and 2^-24
  EXPECT_EQ(RoundToDType(0x1p-25 + 0x1p-40, DType::kF16), 0x1p-24);
  EXPECT_EQ(RoundToDType(3 * 0x1p-25, DType::kF16), 0x1p-23);
  EXPECT_EQ(RoundToDType(5 * 0x1p-25, DType::kF16), 0x1p-23);  // 2.5 units: down to 2
  EXPECT_EQ(RoundToDType(0x1p-14 - 0x1p-25, DType::kF16),
            0x1p-14);  // subnormal rounds up to normal
  EXPECT_EQ(RoundToDType(0x1p-14, DType::kF16), 0x1p-14);
  EXPECT_EQ(RoundToDType(kInf, DType::kF16), kInf);
  EXPECT_TRUE(std::isnan(RoundToDType(kNaN, DType::kF16)));
}

// Rounding a double to float first and then to the 16-bit format rounds twice;
// when the first rounding lands exactly on a tie the second breaks it wrongly.
TEST(DTypeTest, RoundsDoublesOnceNotThroughFloat) {
  const double above_bf16_tie = 1.0 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(static_cast<float>(above_bf16_tie), 1.0f + 0x1p-8f);  // float lands on the tie
  EXPECT_EQ(BF16BitsToFloat(FloatToBF16Bits(static_cast<float>(above_bf16_tie))), 1.0f);
  EXPECT_EQ(RoundToDType(above_bf16_tie, DType::kBF16), 1.0 + 0x1p-7);

  const double above_f16_tie = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(HalfBitsToFloat(FloatToHalfBits(static_cast<float>(above_f16_tie))), 1.0f);
  EXPECT_EQ(RoundToDType(above_f16_tie, DType::kF16), 1.0 + 0x1p-10);

  const double below_f16_tie = 1.0 + 3 * 0x1p-11 - 0x1p-40;
  EXPECT_EQ(RoundToDType(below_f16_tie, DType::kF16), 1.0 + 0x1p-10);
}

TEST(DTypeTest, F32IntAndBoolRounding) {
  EXPECT_EQ(RoundToDType(0.1, DType::kF32), static_cast<double>(0.1f));
  EXPECT_EQ(RoundToDType(1.0 + 0x1p-24, DType::kF32), 1.0);  // tie, down to even
  EXPECT_EQ(RoundToDType(1.0 + 0x1p-24 + 0x1p-50, DType::kF32), 1.0 + 0x1p-23);
  EXPECT_EQ(RoundToDType(1e39, DType::kF32), kInf);
  EXPECT_TRUE(std::isnan(RoundToDType(kNaN, DType::kF32)));

  EXPECT_EQ(RoundToDType(2.7, DType::kI32), 2.0);
  EXPECT_EQ(RoundToDType(-2.7, DType::kI32), -2.0);
  EXPECT_EQ(RoundToDType(3e9, DType::kI32), 2147483647.0);
  EXPECT_EQ(RoundToDType(-3e9, DType::kI32), -2147483648.0);
  EXPECT_EQ(RoundToDType(kInf, DType::kI32), 2147483647.0);
  EXPECT_EQ(RoundToDType(kNaN, DType::kI32), 0.0);

  EXPECT_EQ(RoundToDType(0.5, DType::kBool), 1.0);
  EXPECT_EQ(RoundToDType(-3.0, DType::kBool), 1.0);
  EXPECT_EQ(RoundToDType(0.0, DType::kBool), 0.0);
  EXPECT_EQ(RoundToDType(-0.0, DType::kBool), 0.0);
  EXPECT_EQ(RoundToDType(kNaN, DType::kBool), 1.0);
}

TEST(DTypeTest, FloatToHalfBitsKnownPatterns) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(0.1f), 0x2e66);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(1e10f), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::quiet_NaN()), 0x7e00);
  EXPECT_EQ(FloatToHalfBits(0x1p-24f), 0x0001);
  EXPECT_EQ(FloatToHalfBits(0x1p-25f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(3 * 0x1p-25f), 0x0002);
  EXPECT_EQ(FloatToHalfBits(-0x1p-24f), 0x8001);
  EXPECT_EQ(FloatToHalfBits(0x1p-14f), 0x0400);
  EXPECT_EQ(FloatToHalfBits(0x1p-14f - 0x1p-25f), 0x0400);
  EXPECT_EQ(FloatToHalfBits(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(FloatToHalfBits(2047.5f), 0x6800);
}

TEST(DTypeTest, HalfBitsToFloatKnownPatterns) {
  EXPECT_EQ(HalfBitsToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfBitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfBitsToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(HalfBitsToFloat(0x03ff), 1023 * 0x1p-24f);
  EXPECT_EQ(HalfBitsToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfBitsToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(HalfBitsToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(0x7c01)));
  EXPECT_EQ(HalfBitsToFloat(0x8000), 0.0f);
  EXPECT_TRUE(std::signbit(HalfBitsToFloat(0x8000)));
}

TEST(DTypeTest, BF16BitsKnownPatterns) {
  EXPECT_EQ(FloatToBF16Bits(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBF16Bits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToBF16Bits(0.1f), 0x3dcd);
  EXPECT_EQ(FloatToBF16Bits(1.0f + 0x1p-8f), 0x3f80);
  EXPECT_EQ(FloatToBF16Bits(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(FloatToBF16Bits(0x1.fe8p127f), 0x7f7f);
  EXPECT_EQ(FloatToBF16Bits(0x1.ffp127f), 0x7f80);
  EXPECT_EQ(FloatToBF16Bits(0x1p-133f), 0x0001);
  EXPECT_EQ(FloatToBF16Bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(FloatToBF16Bits(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(FloatToBF16Bits(std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
  // A NaN whose payload lies only in the dropped bits must not truncate to inf.
  const float low_payload_nan = std::bit_cast<float>(0x7f800001u);
  ASSERT_TRUE(std::isnan(low_payload_nan));
  EXPECT_TRUE(std::isnan(BF16BitsToFloat(FloatToBF16Bits(low_payload_nan))));
  EXPECT_EQ(BF16BitsToFloat(0x3dcd), 0.10009765625f);
  EXPECT_EQ(BF16BitsToFloat(0x7f7f), 0x1.fep127f);
}

TEST(DTypeTest, EveryNonNaNBitPatternRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    const float half = HalfBitsToFloat(b);
    if (!std::isnan(half)) {
      ASSERT_EQ(FloatToHalfBits(half), b) << "f16 bits " << bits;
      ASSERT_EQ(RoundToDType(half, DType::kF16), half) << "f16 bits " << bits;
    }
    const float bf16 = BF16BitsToFloat(b);
    if (!std::isnan(bf16)) {
      ASSERT_EQ(FloatToBF16Bits(bf16), b) << "bf16 bits " << bits;
      ASSERT_EQ(RoundToDType(bf16, DType::kBF16), bf16) << "bf16 bits " << bits;
    }
  }
}

// From a float there is only one rounding, so the bit conversions and the
// double path must agree on every float; a stride through all 2^32 patterns
// covers every exponent, subnormals and the overflow boundary.
TEST(DTypeTest, BitConversionsAgreeWithRoundToDType) {
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 9973) {
    const float value = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(static_cast<double>(HalfBitsToFloat(FloatToHalfBits(value))),
              RoundToDType(value, DType::kF16))
        << "float bits " << bits;
    ASSERT_EQ(static_cast<double>(BF16BitsToFloat(FloatToBF16Bits(value))),
              RoundToDType(value, DType::kBF16))
        << "float bits " << bits;
  }
}

}  // namespace
}  // namespace kiln
