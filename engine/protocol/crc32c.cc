// CRC-32C: the crc32 instruction where the CPU has it, slicing-by-8 tables elsewhere.
#include "engine/protocol/crc32c.h"

#include <array>
#include <bit>
#include <cstddef>
#include <cstring>

namespace logsim {
namespace {

constexpr std::uint32_t kPolynomial = 0x82F63B78u;  // 0x1EDC6F41, bit-reversed

// tables[k][b]: the CRC of byte b followed by k zero bytes (slicing-by-8).
constexpr std::array<std::array<std::uint32_t, 256>, 8> make_tables() {
  std::array<std::array<std::uint32_t, 256>, 8> t{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][b] = c;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (std::uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
  }
  return t;
}
constexpr auto kTables = make_tables();

// Both take and return the raw (not inverted) register.
std::uint32_t update_tables(std::uint32_t c, const unsigned char* p, std::size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    if constexpr (std::endian::native == std::endian::big) {
      lo = __builtin_bswap32(lo);
      hi = __builtin_bswap32(hi);
    }
    lo ^= c;
    c = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^ kTables[4][lo >> 24] ^
        kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^ kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
  }
  for (; n > 0; ++p, --n) c = (c >> 8) ^ kTables[0][(c ^ *p) & 0xFF];
  return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t update_sse42(std::uint32_t c, const unsigned char* p, std::size_t n) {
  std::uint64_t c64 = c;
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, 8);
    c64 = __builtin_ia32_crc32di(c64, w);
  }
  c = static_cast<std::uint32_t>(c64);
  for (; n > 0; ++p, --n) c = __builtin_ia32_crc32qi(c, *p);
  return c;
}
#endif

std::uint32_t update(std::uint32_t c, std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
#if defined(__x86_64__)
  if (__builtin_cpu_supports("sse4.2")) return update_sse42(c, p, bytes.size());
#endif
  return update_tables(c, p, bytes.size());
}

}  // namespace

std::uint32_t crc32c_extend(std::uint32_t crc, std::string_view bytes) { return ~update(~crc, bytes); }

std::uint32_t crc32c(std::string_view bytes) { return crc32c_extend(0, bytes); }

std::uint32_t crc32c_portable(std::string_view bytes) {
  return ~update_tables(~0u, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

}  // namespace logsim
