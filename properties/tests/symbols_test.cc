// Interning: equal names get one id, different names different ids, in first-seen order, for
// names of every length around the probe's boundaries (4, 8 and 16 bytes) and names that
// differ in one byte anywhere; topic-partition ids likewise.
#include "properties/symbols.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace logsim::properties {
namespace {

TEST(Interner, GivesOneIdPerDistinctNameInFirstSeenOrder) {
  std::vector<std::string> names;
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string base(n, 'a');
    names.push_back(base);
    // The same length, one byte different at each position (first, middle, last...).
    for (std::size_t i = 0; i < n; ++i) {
      std::string s = base;
      s[i] = 'b';
      names.push_back(s);
    }
    names.push_back(base + std::string(1, '\0'));  // an embedded zero byte is a byte like any other
  }
  Interner interner;
  std::map<std::string, Id> expected;
  for (int round = 0; round < 2; ++round) {
    for (const std::string& s : names) {
      const auto [it, fresh] = expected.try_emplace(s, static_cast<Id>(expected.size()));
      ASSERT_EQ(interner.intern(s), it->second) << "'" << s << "' (" << s.size() << " bytes), round " << round;
      (void)fresh;
    }
  }
  EXPECT_EQ(interner.size(), expected.size());
  for (const auto& [s, id] : expected) EXPECT_EQ(interner.name(id), s);
}

TEST(Symbols, TopicPartitionIdsAreDenseInFirstSeenOrderForAnyPartitionNumber) {
  Symbols symbols;
  const Id t = 0;
  const Id u = 1;
  const std::vector<std::pair<Id, std::int32_t>> pairs = {{t, 3}, {u, 3}, {t, -1}, {t, 0}, {t, 3}, {u, -7}, {t, 1 << 24}, {u, -7}, {t, 1 << 24}};
  const std::vector<Id> expected = {0, 1, 2, 3, 0, 4, 5, 4, 5};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(symbols.tp(pairs[i].first, pairs[i].second), expected[i]) << i;
  }
  EXPECT_EQ(symbols.tps(), 6U);
  EXPECT_EQ(symbols.partition_of(5), 1 << 24);
  EXPECT_EQ(symbols.topic_of(4), u);
}

}  // namespace
}  // namespace logsim::properties
