// A small, fixed 64-bit hash for folding values into the trace and into message digests.
//
// Deterministic across platforms and builds of the same source: no std::hash (its values are
// implementation-defined), only explicit byte and integer mixing.
//
// Bytes are folded as their length, then 8-byte words read big-endian: runs of 32 bytes through
// four independent lanes (so the multiplies overlap: record payloads are most of what the
// trace hashes), each lane then added; then the remaining whole words; then the last partial
// word. A change to any one word changes the digest surely: each step is injective in the word
// it takes and bijective in the state it carries.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/base/types.h"

namespace logsim {

class Digest {
 public:
  Digest& add(std::uint64_t v) {
    h_ = mix(h_, v);
    return *this;
  }
  Digest& add(std::int64_t v) { return add(static_cast<std::uint64_t>(v)); }
  Digest& add(std::int32_t v) { return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  Digest& add(std::int16_t v) { return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  Digest& add(bool v) { return add(static_cast<std::uint64_t>(v ? 1 : 0)); }
  Digest& add(std::string_view s) {
    add(static_cast<std::uint64_t>(s.size()));
    const char* p = s.data();
    std::size_t n = s.size();
    if (n >= kBlock) {
      // Four named lanes (an array's would live in memory at -O2).
      std::uint64_t l0 = h_;
      std::uint64_t l1 = h_ ^ 0xBB67AE8584CAA73BULL;
      std::uint64_t l2 = h_ ^ 0x3C6EF372FE94F82BULL;
      std::uint64_t l3 = h_ ^ 0xA54FF53A5F1D36F1ULL;
      for (; n >= kBlock; p += kBlock, n -= kBlock) {
        l0 = mix(l0, load_be64(p));
        l1 = mix(l1, load_be64(p + 8));
        l2 = mix(l2, load_be64(p + 16));
        l3 = mix(l3, load_be64(p + 24));
      }
      add(l0).add(l1).add(l2).add(l3);
    }
    for (; n >= 8; p += 8, n -= 8) add(load_be64(p));
    if (n == 0) return *this;
    std::uint64_t word = 0;
    for (; n > 0; ++p, --n) word = (word << 8) | static_cast<unsigned char>(*p);
    return add(word);
  }
  Digest& add(const std::string& s) { return add(std::string_view(s)); }
  Digest& add(const char* s) { return add(std::string_view(s)); }
  template <typename Tag, typename Rep>
  Digest& add(StrongInt<Tag, Rep> v) {
    return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v.value())));
  }
  template <typename E>
    requires std::is_enum_v<E>
  Digest& add(E e) {
    return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(e)));
  }
  template <typename T>
  Digest& add(const std::optional<T>& o) {
    if (!o) return add(std::uint64_t{0xA5A5});
    add(std::uint64_t{1});
    return add(*o);
  }
  std::uint64_t value() const {
    std::uint64_t z = h_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

 private:
  static constexpr std::size_t kBlock = 32;
  // One round of a multiply-xorshift mixer over (state, value), as in wyhash/splitmix.
  static std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
  }
  // Eight bytes as a big-endian word: one load, and a byte swap on little-endian hosts.
  static std::uint64_t load_be64(const char* p) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, sizeof w);
    if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
    return w;
  }
  std::uint64_t h_ = 0x6A09E667F3BCC908ULL;
};

}  // namespace logsim
