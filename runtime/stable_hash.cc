#include "runtime/stable_hash.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace kiln {
namespace {

uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t Fmix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

// Explicit little-endian reads keep the hash identical on any host.
uint64_t LoadLe64(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void AppendLe64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

std::string Hash128::Hex() const { return absl::StrFormat("%016x%016x", hi, lo); }

Hash128 StableHash128(absl::string_view bytes) {
  constexpr uint64_t c1 = 0x87c37b91114253d5ULL;
  constexpr uint64_t c2 = 0x4cf5ad432745937fULL;
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t len = bytes.size();
  const size_t blocks = len / 16;
  uint64_t h1 = 0;
  uint64_t h2 = 0;

  for (size_t i = 0; i < blocks; ++i) {
    uint64_t k1 = LoadLe64(data + 16 * i, 8);
    uint64_t k2 = LoadLe64(data + 16 * i + 8, 8);
    k1 *= c1;
    k1 = Rotl(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 = Rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= c2;
    k2 = Rotl(k2, 33);
    k2 *= c1;
    h2 ^= k2;
    h2 = Rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  const unsigned char* tail = data + 16 * blocks;
  const int rest = static_cast<int>(len & 15);
  if (rest > 8) {
    uint64_t k2 = LoadLe64(tail + 8, rest - 8);
    k2 *= c2;
    k2 = Rotl(k2, 33);
    k2 *= c1;
    h2 ^= k2;
  }
  if (rest > 0) {
    uint64_t k1 = LoadLe64(tail, rest > 8 ? 8 : rest);
    k1 *= c1;
    k1 = Rotl(k1, 31);
    k1 *= c2;
    h1 ^= k1;
  }

  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = Fmix(h1);
  h2 = Fmix(h2);
  h1 += h2;
  h2 += h1;
  return Hash128{.lo = h1, .hi = h2};
}

void StableHasher::Add(absl::string_view field) {
  AppendLe64(buffer_, field.size());
  buffer_.append(field.data(), field.size());
}

void StableHasher::Add(uint64_t value) {
  std::string bytes;
  AppendLe64(bytes, value);
  Add(bytes);
}

}  // namespace kiln
