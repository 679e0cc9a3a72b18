// The byte-wise lexicographic order of names (std::string_view::compare's: unsigned bytes,
// then length), computed inline. Maps keyed by topic names and file paths compare short
// strings on hot paths (a fetch looks its partition up in several), where a call into the C
// library's memcmp costs more than the comparison itself. The order is exactly the standard
// one, so a map that switches to these comparators iterates as it did.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace logsim {

namespace name_order_detail {
// The order of the w-byte words at a and b (w = 4 or 8): the first byte most significant.
template <typename Word>
inline int compare_word(const char* a, const char* b) noexcept {
  Word x;
  Word y;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&y, b, sizeof y);
  if (x == y) return 0;
  if constexpr (std::endian::native == std::endian::little) {
    if constexpr (sizeof(Word) == 8) {
      x = __builtin_bswap64(x);
      y = __builtin_bswap64(y);
    } else {
      x = __builtin_bswap32(x);
      y = __builtin_bswap32(y);
    }
  }
  return x < y ? -1 : 1;
}
}  // namespace name_order_detail

// <0, 0 or >0 as a is before, equal to or after b. The common prefix is compared in whole
// words; what is left of it, in one more word that overlaps the last one compared (its bytes
// before the rest are equal, so its order is the rest's). Below 8 bytes, two 4-byte words do
// the same; below 4, single bytes.
inline int compare_names(std::string_view a, std::string_view b) noexcept {
  using name_order_detail::compare_word;
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  const char* const p = a.data();
  const char* const q = b.data();
  if (n >= 8) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      if (const int c = compare_word<std::uint64_t>(p + i, q + i)) return c;
    }
    if (i < n) {
      if (const int c = compare_word<std::uint64_t>(p + n - 8, q + n - 8)) return c;
    }
  } else if (n >= 4) {
    if (const int c = compare_word<std::uint32_t>(p, q)) return c;
    if (const int c = compare_word<std::uint32_t>(p + n - 4, q + n - 4)) return c;
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const auto x = static_cast<unsigned char>(p[i]);
      const auto y = static_cast<unsigned char>(q[i]);
      if (x != y) return x < y ? -1 : 1;
    }
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

// std::less<> for strings, in this order; transparent (finds by string_view).
struct NameLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return compare_names(a, b) < 0; }
};

}  // namespace logsim
