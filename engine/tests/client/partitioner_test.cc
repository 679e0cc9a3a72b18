// Tests of Kafka's default partitioner: murmur2 against Kafka's published vectors (UtilsTest),
// bytes >= 0x80 against an independent mirror of Kafka's Java code, and partition_for_key's
// `(murmur2 & 0x7fffffff) % n`; and the sticky partition's next choice: KIP-794's load
// statistics (weights, when Kafka keeps none, how draws fall) and the uniform choice.
#include "engine/client/partitioner.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/assert.h"
#include "engine/env/rng.h"

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

// ---- The next sticky partition (KIP-794).

std::vector<std::uint64_t> cumulative_of(const PartitionLoadStats& stats) {
  return {stats.cumulative().begin(), stats.cumulative().end()};
}

// The example in Kafka's BuiltInPartitioner: queues 0 3 1 weigh 4 1 3 (max 3, plus 1, minus each),
// running sums 4 5 8; draws 0-3 fall on the first partition, 4 on the second, 5-7 on the third.
TEST(PartitionLoadStats, WeighsEachQueueByTheLongestPlusOneMinusItsOwn) {
  const std::vector<PartitionQueue> queues = {{0, 0}, {1, 3}, {2, 1}};
  const auto stats = PartitionLoadStats::build(queues, 3);
  ASSERT_TRUE(stats);
  EXPECT_EQ(cumulative_of(*stats), (std::vector<std::uint64_t>{4, 5, 8}));
  EXPECT_EQ(stats->total(), 8u);
  const std::int32_t expected[] = {0, 0, 0, 0, 1, 2, 2, 2};
  for (std::uint64_t draw = 0; draw < 8; ++draw) EXPECT_EQ(stats->partition_at(draw), expected[draw]) << draw;
  EXPECT_THROW(stats->partition_at(8), InvariantError);
}

TEST(PartitionLoadStats, PartitionIdsComeFromTheCandidatesNotTheirPositions) {
  // Partition 1 left out (no leader, or unavailable): the table covers partitions 0 and 2.
  const std::vector<PartitionQueue> queues = {{0, 2}, {2, 0}};
  const auto stats = PartitionLoadStats::build(queues, 3);
  ASSERT_TRUE(stats);
  EXPECT_EQ(cumulative_of(*stats), (std::vector<std::uint64_t>{1, 4}));
  EXPECT_EQ(stats->partition_at(0), 0);
  for (std::uint64_t draw = 1; draw < 4; ++draw) EXPECT_EQ(stats->partition_at(draw), 2);
}

TEST(PartitionLoadStats, NoStatisticsWhereKafkaKeepsNone) {
  const std::vector<PartitionQueue> equal = {{0, 2}, {1, 2}, {2, 2}};
  EXPECT_FALSE(PartitionLoadStats::build(equal, 3)) << "all alike, none left out: uniform";
  EXPECT_FALSE(PartitionLoadStats::build({}, 3)) << "every partition left out: uniform over all";
  const std::vector<PartitionQueue> one = {{0, 4}};
  EXPECT_FALSE(PartitionLoadStats::build(one, 1)) << "a single partition needs no statistics";
  // Alike but one left out: the statistics hold, with equal weights over the rest.
  const std::vector<PartitionQueue> rest = {{0, 2}, {2, 2}};
  const auto stats = PartitionLoadStats::build(rest, 3);
  ASSERT_TRUE(stats);
  EXPECT_EQ(cumulative_of(*stats), (std::vector<std::uint64_t>{1, 2}));
  // A lone candidate out of several (the others unavailable) takes every draw.
  const auto lone = PartitionLoadStats::build(one, 3);
  ASSERT_TRUE(lone);
  EXPECT_EQ(lone->total(), 1u);
  EXPECT_EQ(lone->partition_at(0), 0);
}

// How often each partition is picked in `draws` picks from a generator seeded with `seed`.
std::map<std::int32_t, int> picks(const PartitionLoadStats& stats, std::uint64_t seed, int draws) {
  Rng rng(seed);
  std::map<std::int32_t, int> counts;
  for (int i = 0; i < draws; ++i) ++counts[stats.pick(rng)];
  return counts;
}

// Queues 0 5 0 weigh 6 1 6: the long queue should take 1/13 of the picks (uniform: 1/3). With a
// fixed seed the counts are fixed; the bounds are about 9 standard deviations wide, so they hold
// for any seed, and an unweighted choice (about 20000 of 60000) is far outside them.
TEST(PartitionLoadStats, PicksALongQueueLessOftenThanUniform) {
  const std::vector<PartitionQueue> queues = {{0, 0}, {1, 5}, {2, 0}};
  const auto stats = PartitionLoadStats::build(queues, 3);
  ASSERT_TRUE(stats);
  constexpr int kDraws = 60000;
  auto counts = picks(*stats, 2024, kDraws);
  EXPECT_EQ(counts[0] + counts[1] + counts[2], kDraws);
  EXPECT_GT(counts[1], 4000) << "expected about 4615 (1/13)";
  EXPECT_LT(counts[1], 5250) << "expected about 4615 (1/13); uniform would give about 20000";
  EXPECT_GT(counts[0], 26800) << "expected about 27692 (6/13)";
  EXPECT_GT(counts[2], 26800) << "expected about 27692 (6/13)";
  // The uniform choice over the same partitions, for contrast.
  Rng rng(2024);
  const std::vector<std::int32_t> all = {0, 1, 2};
  int uniform_long = 0;
  for (int i = 0; i < kDraws; ++i) uniform_long += uniform_sticky_partition(all, 3, rng) == 1 ? 1 : 0;
  EXPECT_GT(uniform_long, 19000);
  EXPECT_LT(uniform_long, 21000);
}

TEST(PartitionLoadStats, TheSameSeedGivesTheSameSequence) {
  const std::vector<PartitionQueue> queues = {{0, 1}, {1, 4}, {2, 0}, {3, 2}};
  const auto stats = PartitionLoadStats::build(queues, 4);
  ASSERT_TRUE(stats);
  Rng a(99);
  Rng b(99);
  Rng c(100);
  std::vector<std::int32_t> seq_a;
  std::vector<std::int32_t> seq_b;
  std::vector<std::int32_t> seq_c;
  for (int i = 0; i < 500; ++i) {
    seq_a.push_back(stats->pick(a));
    seq_b.push_back(stats->pick(b));
    seq_c.push_back(stats->pick(c));
  }
  EXPECT_EQ(seq_a, seq_b);
  EXPECT_NE(seq_a, seq_c) << "another seed, another sequence";
  // One draw per pick: each pick is uniform_u64(total) of the stream, nothing more.
  Rng d(99);
  for (int i = 0; i < 500; ++i) ASSERT_EQ(seq_a[static_cast<std::size_t>(i)], stats->partition_at(d.uniform_u64(stats->total())));
}

// With every leader known the uniform choice draws exactly as a plain uniform_u64 of the
// partition count, so producers that never weigh queues keep their runs.
TEST(UniformStickyPartition, AmongAvailablePartitionsElseAll) {
  Rng a(5);
  Rng b(5);
  const std::vector<std::int32_t> all = {0, 1, 2, 3, 4, 5};
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(uniform_sticky_partition(all, 6, a), static_cast<std::int32_t>(b.uniform_u64(6)));
  }
  const std::vector<std::int32_t> some = {1, 4};
  std::map<std::int32_t, int> counts;
  for (int i = 0; i < 200; ++i) ++counts[uniform_sticky_partition(some, 6, a)];
  EXPECT_EQ(counts.size(), 2u) << "only partitions with a leader";
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[4], 0);
  std::map<std::int32_t, int> none;
  for (int i = 0; i < 200; ++i) ++none[uniform_sticky_partition({}, 6, a)];
  EXPECT_EQ(none.size(), 6u) << "no leader known: any of the partitions";
  EXPECT_THROW(uniform_sticky_partition({}, 0, a), InvariantError);
}

}  // namespace
}  // namespace logsim::engine
