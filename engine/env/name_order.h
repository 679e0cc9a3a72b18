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

// <0, 0 or >0 as a is before, equal to or after b.
inline int compare_names(std::string_view a, std::string_view b) noexcept {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t x;
    std::uint64_t y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) {
      if constexpr (std::endian::native == std::endian::little) {
        x = __builtin_bswap64(x);  // the first byte most significant: numeric order is byte order
        y = __builtin_bswap64(y);
      }
      return x < y ? -1 : 1;
    }
  }
  for (; i < n; ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

// std::less<> for strings, in this order; transparent (finds by string_view).
struct NameLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return compare_names(a, b) < 0; }
};

// For (name, number) pairs such as (topic, partition): std::less's order of the pairs, and
// transparent over pairs whose first is any string type.
struct NamePairLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const noexcept {
    const int c = compare_names(std::string_view(a.first), std::string_view(b.first));
    return c != 0 ? c < 0 : a.second < b.second;
  }
};

}  // namespace logsim
