// Tests of Kafka's default partitioner: murmur2 against Kafka's published vectors (UtilsTest),
// bytes >= 0x80 against an independent mirror of Kafka's Java code, and partition_for_key's
// `(murmur2 & 0x7fffffff) % n`.
#include "engine/client/partitioner.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

// Kafka's UtilsTest.testMurmur2 vectors.
TEST(Murmur2, MatchesKafkaPublishedVectors) {
  EXPECT_EQ(murmur2("21"), -973932308);
  EXPECT_EQ(murmur2("foobar"), -790332482);
  EXPECT_EQ(murmur2("a-little-bit-long-string"), -985981536);
  EXPECT_EQ(murmur2("a-little-bit-longer-string"), -1486304829);
  EXPECT_EQ(murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8"), -58897971);
  EXPECT_EQ(murmur2("abc"), 479470107);
}

// Values computed with a Python mirror of Kafka's Java Utils.murmur2 (Java bytes are signed;
// Kafka masks each with 0xff before shifting). A version that sign-extends the bytes instead
// gives 2026781833, -747627646, -1349066788, 93394066 and -1611944298 for these keys, so these
// pins catch that mistake in the block loop and in every tail length (1, 2, 3).
TEST(Murmur2, HighBytesAreMaskedAsKafkaDoes) {
  using namespace std::string_view_literals;
  EXPECT_EQ(murmur2("\xff"sv), -311467685);                                    // tail of 1
  EXPECT_EQ(murmur2("\x80\xff"sv), -80095470);                                 // tail of 2
  EXPECT_EQ(murmur2("\xc3\xa9t\xc3"sv), 554430331);                           // one block
  EXPECT_EQ(murmur2("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"sv), 1431860170);   // 2 blocks + 1
  EXPECT_EQ(murmur2("\xff\xfe\xfd\xfc\x80\x81\x82"sv), -1449165224);          // block + 3
}

TEST(Murmur2, EmptyAndEmbeddedNulKeys) {
  using namespace std::string_view_literals;
  EXPECT_EQ(murmur2(""), 275646681);
  // The key is its bytes, not a C string: a NUL byte counts.
  EXPECT_NE(murmur2("a\0b"sv), murmur2("a"));
  EXPECT_NE(murmur2("\0"sv), murmur2(""));
}

TEST(PartitionForKey, IsPositiveMurmur2ModuloPartitions) {
  // (murmur2 & 0x7fffffff) % n, from the same Python mirror.
  struct Case {
    std::string_view key;
    std::int32_t n;
    std::int32_t expected;
  };
  using namespace std::string_view_literals;
  const Case cases[] = {
      {"", 1, 0},         {"", 2, 1},          {"", 3, 0},          {"", 6, 3},
      {"", 7, 2},         {"", 12, 9},         {"", 100, 81},       {"key-0", 3, 1},
      {"key-0", 100, 41}, {"key-1", 7, 5},     {"key-1", 100, 40},  {"user-42", 6, 4},
      {"user-42", 100, 60}, {"\xff"sv, 7, 5},  {"\xff"sv, 100, 63}, {"\x80\xff"sv, 3, 2},
      {"\x80\xff"sv, 100, 78},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(partition_for_key(c.key, c.n), c.expected) << "n=" << c.n;
  }
}

// Keys with a negative murmur2 are where a plain `abs` or a signed modulo would go wrong.
TEST(PartitionForKey, NegativeHashesUseTheMaskNotAbs) {
  const std::string keys[] = {"21", "foobar", "a-little-bit-long-string", "a-little-bit-longer-string"};
  for (const std::string& key : keys) {
    const std::int32_t h = murmur2(key);
    ASSERT_LT(h, 0) << key;
    const auto positive = static_cast<std::int64_t>(static_cast<std::uint32_t>(h) & 0x7fffffffU);
    for (std::int32_t n : {1, 2, 3, 5, 16, 1000, 2147483647}) {
      EXPECT_EQ(partition_for_key(key, n), static_cast<std::int32_t>(positive % n)) << key << " n=" << n;
    }
  }
  // "21": -973932308 & 0x7fffffff = 1173551340.
  EXPECT_EQ(partition_for_key("21", 1000), 340);
  EXPECT_EQ(partition_for_key("foobar", 10), (static_cast<std::int64_t>(-790332482) & 0x7fffffff) % 10);
}

TEST(PartitionForKey, AlwaysInRangeAndStable) {
  for (std::int32_t n : {1, 2, 3, 7, 10, 64, 97}) {
    for (int i = 0; i < 2000; ++i) {
      std::string key = "k" + std::to_string(i);
      if (i % 3 == 0) key.push_back(static_cast<char>(0x80 + i % 128));
      const std::int32_t p = partition_for_key(key, n);
      ASSERT_GE(p, 0) << key;
      ASSERT_LT(p, n) << key;
      ASSERT_EQ(p, partition_for_key(key, n)) << key;
    }
  }
}

TEST(PartitionForKey, SpreadsKeysOverEveryPartition) {
  // Not a statistical test: 1000 distinct keys over 8 partitions must touch every one, and no
  // partition may take more than a third (a constant or badly masked result would).
  std::int32_t counts[8] = {};
  for (int i = 0; i < 1000; ++i) ++counts[partition_for_key("key-" + std::to_string(i), 8)];
  for (std::int32_t c : counts) {
    EXPECT_GT(c, 0);
    EXPECT_LT(c, 334);
  }
}

TEST(PartitionForKey, NonPositivePartitionCountIsAnInvariantError) {
  EXPECT_THROW(partition_for_key("a", 0), InvariantError);
  EXPECT_THROW(partition_for_key("a", -3), InvariantError);
}

}  // namespace
}  // namespace logsim::engine
