// A 128-bit hash that is the same in every process, build and machine, for
// keys and checksums that outlive the process (the on-disk kernel cache).
// absl::Hash is salted per process and must never be used for that.
//
//   StableHasher h;
//   h.Add(source);
//   h.Add(arch);
//   Hash128 key = h.Finish();   // key.Hex() names the cache file
//
// The function is MurmurHash3_x64_128 (seed 0) over little-endian bytes.
// It is not cryptographic: it detects corruption, not tampering.
#ifndef KILN_RUNTIME_STABLE_HASH_H_
#define KILN_RUNTIME_STABLE_HASH_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace kiln {

struct Hash128 {
  uint64_t lo = 0;
  uint64_t hi = 0;

  // 32 lowercase hex digits, `hi` first.
  std::string Hex() const;

  friend bool operator==(const Hash128& a, const Hash128& b) {
    return a.lo == b.lo && a.hi == b.hi;
  }
  friend bool operator!=(const Hash128& a, const Hash128& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const Hash128& v) {
    return H::combine(std::move(h), v.lo, v.hi);
  }
};

// MurmurHash3_x64_128 of `bytes` with seed 0.
Hash128 StableHash128(absl::string_view bytes);

// Hashes a sequence of fields. Each field is length-prefixed, so ("ab", "c")
// and ("a", "bc") hash differently.
class StableHasher {
 public:
  void Add(absl::string_view field);
  void Add(uint64_t value);
  Hash128 Finish() const { return StableHash128(buffer_); }

 private:
  std::string buffer_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_STABLE_HASH_H_
