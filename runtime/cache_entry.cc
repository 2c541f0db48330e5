#include "runtime/cache_entry.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/stable_hash.h"

namespace kiln {
namespace {

void PutLe(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t GetLe(absl::string_view in, int64_t offset, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(in[offset + i]);
  }
  return value;
}

}  // namespace

std::string EncodeCacheEntry(const Hash128& key, absl::string_view payload, absl::string_view magic) {
  const Hash128 checksum = StableHash128(payload);
  std::string out;
  out.reserve(kCacheEntryHeaderBytes + payload.size());
  out.append(magic.data(), magic.size());
  PutLe(out, kCacheEntryFormatVersion, 4);
  PutLe(out, 0, 4);
  PutLe(out, key.lo, 8);
  PutLe(out, key.hi, 8);
  PutLe(out, payload.size(), 8);
  PutLe(out, checksum.lo, 8);
  PutLe(out, checksum.hi, 8);
  out.append(payload.data(), payload.size());
  return out;
}

absl::StatusOr<std::string> DecodeCacheEntry(absl::string_view file, const Hash128& expected_key,
                                             absl::string_view magic) {
  if (static_cast<int64_t>(file.size()) < kCacheEntryHeaderBytes) {
    return absl::DataLossError(absl::StrCat("file is ", file.size(), " bytes, shorter than the ",
                                            kCacheEntryHeaderBytes, "-byte header"));
  }
  if (file.substr(0, magic.size()) != magic) return absl::DataLossError("bad magic");
  const uint64_t version = GetLe(file, 8, 4);
  if (version != kCacheEntryFormatVersion) {
    return absl::DataLossError(
        absl::StrCat("format version ", version, ", expected ", kCacheEntryFormatVersion));
  }
  if (GetLe(file, 12, 4) != 0) return absl::DataLossError("reserved header field is not zero");
  const Hash128 key{.lo = GetLe(file, 16, 8), .hi = GetLe(file, 24, 8)};
  if (key != expected_key) {
    return absl::DataLossError(
        absl::StrCat("entry is for key ", key.Hex(), ", expected ", expected_key.Hex()));
  }
  const uint64_t size = GetLe(file, 32, 8);
  const absl::string_view payload = file.substr(kCacheEntryHeaderBytes);
  if (size != payload.size()) {
    return absl::DataLossError(
        absl::StrCat("payload is ", payload.size(), " bytes, header says ", size));
  }
  const Hash128 checksum{.lo = GetLe(file, 40, 8), .hi = GetLe(file, 48, 8)};
  if (StableHash128(payload) != checksum) return absl::DataLossError("checksum mismatch");
  return std::string(payload);
}

}  // namespace kiln
