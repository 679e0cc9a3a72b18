// compare_names is string_view::compare's order exactly: checked on prefixes, equal strings,
// bytes above 0x7f, embedded zeros and differences at every position of 8-byte words; and
// TopicPartitionLess is the order of TopicPartition, and of the pairs it replaced.
#include "engine/base/name_order.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/base/topic_partition.h"
#include "engine/env/rng.h"

namespace logsim {
namespace {

int sign(int v) { return (v > 0) - (v < 0); }

TEST(NameOrder, AgreesWithStringViewCompare) {
  std::vector<std::string> names = {"", "a", "b", "orders", "orders-1", "__consumer_offsets", "ordersX",
                                    std::string("a\0b", 3), std::string("a\0c", 3), "\x80", "\x7f", "\xff\xff"};
  Rng rng(7);
  const std::string alphabet = std::string("ab\0\x7f\x80\xff", 6);
  for (int i = 0; i < 400; ++i) {
    std::string s;
    const auto len = rng.uniform_u64(20);
    for (std::uint64_t j = 0; j < len; ++j) s += alphabet[rng.uniform_u64(alphabet.size())];
    names.push_back(s);
    // The same name with one byte changed at each position (words and the tail).
    for (std::size_t k = 0; k < s.size(); ++k) {
      std::string t = s;
      t[k] = alphabet[rng.uniform_u64(alphabet.size())];
      names.push_back(t);
    }
  }
  for (const std::string& a : names) {
    for (const std::string& b : names) {
      ASSERT_EQ(sign(compare_names(a, b)), sign(std::string_view(a).compare(b)))
          << "'" << a << "' vs '" << b << "' (" << a.size() << ", " << b.size() << " bytes)";
    }
  }
}

TEST(NameOrder, TopicPartitionMapsIterateAsPairsDid) {
  // The broker's and clients' partition maps were keyed by pair<string, int32> before
  // TopicPartition: the same order keeps their iteration (and so every trace) unchanged.
  const std::vector<std::pair<std::string, std::int32_t>> keys = {
      {"orders", 2}, {"__consumer_offsets", 0}, {"orders", 10}, {"orders-dlq", 0}, {"order", 5}, {"orders", 0},
      {"orders", -1}, {std::string("a\0b", 3), 1}, {"\x80", 0}};
  std::map<std::pair<std::string, std::int32_t>, int> pairs;
  std::map<TopicPartition, int> standard;
  std::map<TopicPartition, int, TopicPartitionLess> ours;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    pairs[keys[i]] = static_cast<int>(i);
    standard[TopicPartition{keys[i].first, PartitionId(keys[i].second)}] = static_cast<int>(i);
    ours[TopicPartition{keys[i].first, PartitionId(keys[i].second)}] = static_cast<int>(i);
  }
  std::vector<int> a, b, c;
  for (const auto& [k, v] : pairs) a.push_back(v);
  for (const auto& [k, v] : standard) b.push_back(v);
  for (const auto& [k, v] : ours) c.push_back(v);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  // Found by a view, without building a key.
  const auto it = ours.find(TopicPartitionView{"orders", PartitionId(10)});
  ASSERT_NE(it, ours.end());
  EXPECT_EQ(it->second, 2);
  EXPECT_EQ(ours.find(TopicPartitionView{"orders", PartitionId(3)}), ours.end());
  std::map<std::string, int, NameLess> files{{"b/1.log", 1}, {"a/2.log", 2}};
  EXPECT_EQ(files.find(std::string_view("a/2.log"))->second, 2);
  EXPECT_EQ(files.begin()->first, "a/2.log");
}

}  // namespace
}  // namespace logsim
