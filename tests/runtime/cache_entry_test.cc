#include "runtime/cache_entry.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/stable_hash.h"

namespace kiln {
namespace {

using ::testing::HasSubstr;

const Hash128 kKey{.lo = 0x0123456789abcdefULL, .hi = 0xfedcba9876543210ULL};
const std::string kPayload = std::string(
                                 "\x7f"
                                 "ELF",
                                 4) +
                             std::string(300, 'x') + "end";

TEST(CacheEntryTest, RoundTrips) {
  const std::string file = EncodeCacheEntry(kKey, kPayload);
  ASSERT_EQ(file.size(), kCacheEntryHeaderBytes + kPayload.size());
  EXPECT_EQ(file.substr(0, 8), "KILNCUBN");
  absl::StatusOr<std::string> payload = DecodeCacheEntry(file, kKey);
  ASSERT_TRUE(payload.ok()) << payload.status();
  EXPECT_EQ(*payload, kPayload);
}

TEST(CacheEntryTest, EmptyPayloadRoundTrips) {
  absl::StatusOr<std::string> payload = DecodeCacheEntry(EncodeCacheEntry(kKey, ""), kKey);
  ASSERT_TRUE(payload.ok()) << payload.status();
  EXPECT_EQ(*payload, "");
}

void ExpectDataLoss(const std::string& file, const std::string& why) {
  absl::StatusOr<std::string> payload = DecodeCacheEntry(file, kKey);
  ASSERT_FALSE(payload.ok());
  EXPECT_EQ(payload.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(payload.status().message(), why);
}

TEST(CacheEntryTest, RefusesTruncatedFiles) {
  const std::string file = EncodeCacheEntry(kKey, kPayload);
  ExpectDataLoss("", "file is 0 bytes, shorter than the 56-byte header");
  ExpectDataLoss(file.substr(0, 55), "file is 55 bytes, shorter than the 56-byte header");
  ExpectDataLoss(file.substr(0, file.size() - 1), "payload is 306 bytes, header says 307");
  ExpectDataLoss(file + "!", "payload is 308 bytes, header says 307");
}

TEST(CacheEntryTest, RefusesEveryCorruptedHeaderField) {
  const std::string good = EncodeCacheEntry(kKey, kPayload);
  auto flipped = [&](int offset) {
    std::string file = good;
    file[offset] = static_cast<char>(file[offset] ^ 0x40);
    return file;
  };
  ExpectDataLoss(flipped(0), "bad magic");
  ExpectDataLoss(flipped(8), "format version 65, expected 1");
  ExpectDataLoss(flipped(12), "reserved header field is not zero");
  ExpectDataLoss(flipped(16),
                 "entry is for key fedcba98765432100123456789abcdaf, expected "
                 "fedcba98765432100123456789abcdef");
  ExpectDataLoss(flipped(32), "payload is 307 bytes, header says 371");
  ExpectDataLoss(flipped(40), "checksum mismatch");
}

TEST(CacheEntryTest, RefusesAnyFlippedPayloadByte) {
  const std::string good = EncodeCacheEntry(kKey, kPayload);
  for (size_t offset = kCacheEntryHeaderBytes; offset < good.size(); offset += 37) {
    std::string file = good;
    file[offset] = static_cast<char>(file[offset] ^ 1);
    ExpectDataLoss(file, "checksum mismatch");
  }
}

TEST(CacheEntryTest, RefusesAnotherKeysEntry) {
  const Hash128 other{.lo = 1, .hi = 2};
  absl::StatusOr<std::string> payload = DecodeCacheEntry(EncodeCacheEntry(other, kPayload), kKey);
  ASSERT_FALSE(payload.ok());
  EXPECT_THAT(std::string(payload.status().message()),
              HasSubstr("entry is for key "
                        "00000000000000020000000000000001"));
}

}  // namespace
}  // namespace kiln
