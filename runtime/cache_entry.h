// The on-disk format of one cache entry, `<keyhex>.cubin` in the kernel cache
// and `tuning/<keyhex>.tune` in the tuning cache:
//
//   offset  size  field
//        0     8  magic "KILNCUBN" (a cubin) or "KILNTUNE" (a tuning result)
//        8     4  format version (little-endian), kCacheEntryFormatVersion
//       12     4  zero
//       16    16  key (lo, hi; little-endian)
//       32     8  payload size in bytes
//       40    16  StableHash128 of the payload (lo, hi)
//       56     *  payload (the cubin, or the chosen config as text)
//
//   std::string file = EncodeCacheEntry(key, cubin);
//   absl::StatusOr<std::string> back = DecodeCacheEntry(file, key);  // == cubin
//
// Decoding checks every field, so a truncated, corrupted or foreign file is
// refused instead of handed to the driver.
#ifndef KILN_RUNTIME_CACHE_ENTRY_H_
#define KILN_RUNTIME_CACHE_ENTRY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/stable_hash.h"

namespace kiln {

// Bump when the entry layout or anything hashed into the key changes meaning;
// it is part of the key too, so old entries are simply never looked up.
inline constexpr uint32_t kCacheEntryFormatVersion = 1;
inline constexpr int64_t kCacheEntryHeaderBytes = 56;

// The first 8 bytes of an entry say what it holds: a cubin, or a tuning result.
inline constexpr absl::string_view kCubinEntryMagic = "KILNCUBN";
inline constexpr absl::string_view kTuningEntryMagic = "KILNTUNE";

std::string EncodeCacheEntry(const Hash128& key, absl::string_view payload,
                             absl::string_view magic = kCubinEntryMagic);

// The payload of `file`, or DataLossError saying what is wrong with it
// ("bad magic", "payload is 100 bytes, header says 4096", "checksum mismatch", ...).
absl::StatusOr<std::string> DecodeCacheEntry(absl::string_view file, const Hash128& expected_key,
                                             absl::string_view magic = kCubinEntryMagic);

}  // namespace kiln

#endif  // KILN_RUNTIME_CACHE_ENTRY_H_
