// A small, fixed 64-bit hash for folding values into the trace and into message digests.
//
// Deterministic across platforms and builds of the same source: no std::hash (its values are
// implementation-defined), only explicit byte and integer mixing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/env/types.h"

namespace logsim {

class Digest {
 public:
  Digest& add(std::uint64_t v) {
    // One round of a multiply-xorshift mixer over (state, value), as in wyhash/splitmix.
    h_ = (h_ ^ v) * 0x9E3779B97F4A7C15ULL;
    h_ ^= h_ >> 29;
    return *this;
  }
  Digest& add(std::int64_t v) { return add(static_cast<std::uint64_t>(v)); }
  Digest& add(std::int32_t v) { return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  Digest& add(std::int16_t v) { return add(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  Digest& add(bool v) { return add(static_cast<std::uint64_t>(v ? 1 : 0)); }
  Digest& add(std::string_view s) {
    add(static_cast<std::uint64_t>(s.size()));
    std::uint64_t word = 0;
    int n = 0;
    for (char c : s) {
      word = (word << 8) | static_cast<unsigned char>(c);
      if (++n == 8) {
        add(word);
        word = 0;
        n = 0;
      }
    }
    return n ? add(word) : *this;
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
  std::uint64_t h_ = 0x6A09E667F3BCC908ULL;
};

}  // namespace logsim
