// Tests for the trace's hash (engine/base/digest.h): bytes fold as documented, and no change to
// a byte string, however small, goes unnoticed.
#include "engine/base/digest.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "engine/env/rng.h"

namespace logsim {
namespace {

std::string random_bytes(Rng& rng, std::size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng.next_u64());
  return s;
}

std::uint64_t digest_of(const std::string& s) { return Digest().add(std::string_view(s)).value(); }

// Short strings fold as their length and their words, read big-endian, the last one partial.
TEST(Digest, ShortBytesFoldAsLengthAndBigEndianWords) {
  Digest got;
  got.add(std::string_view("abcdefghij"));
  Digest want;
  want.add(std::uint64_t{10}).add(std::uint64_t{0x6162636465666768}).add(std::uint64_t{0x696A});
  EXPECT_EQ(got.value(), want.value());
}

// Every length from 0 to 200 (the four-lane runs, the whole words after them and the partial
// word), any one byte flipped anywhere, or a byte more or less: the digest moves.
TEST(Digest, AnyByteChangedOrLengthChangedMovesTheDigest) {
  Rng rng(3);
  for (std::size_t n = 0; n <= 200; ++n) {
    const std::string s = random_bytes(rng, n);
    const std::uint64_t base = digest_of(s);
    for (std::size_t i = 0; i < n; ++i) {
      for (const int mask : {0x01, 0x80, 0xFF}) {
        std::string t = s;
        t[i] = static_cast<char>(static_cast<unsigned char>(t[i]) ^ static_cast<unsigned char>(mask));
        ASSERT_NE(digest_of(t), base) << "length " << n << ", byte " << i;
      }
    }
    EXPECT_NE(digest_of(s + '\0'), base) << n;
    if (n > 0) {
      EXPECT_NE(digest_of(s.substr(0, n - 1)), base) << n;
    }
  }
}

// Two words swapped between lanes, or within one, or whole blocks swapped: position counts.
TEST(Digest, PositionCounts) {
  Rng rng(4);
  const std::string s = random_bytes(rng, 96);
  std::set<std::uint64_t> seen{digest_of(s)};
  for (const auto& [a, b] : {std::pair<std::size_t, std::size_t>{0, 8}, {0, 32}, {8, 40}, {0, 64}, {24, 88}}) {
    std::string t = s;
    for (std::size_t k = 0; k < 8; ++k) std::swap(t[a + k], t[b + k]);
    EXPECT_TRUE(seen.insert(digest_of(t)).second) << a << " <-> " << b;
  }
  // The same bytes after different earlier input digest differently.
  EXPECT_NE(Digest().add(std::uint64_t{1}).add(std::string_view(s)).value(),
            Digest().add(std::uint64_t{2}).add(std::string_view(s)).value());
}

}  // namespace
}  // namespace logsim
