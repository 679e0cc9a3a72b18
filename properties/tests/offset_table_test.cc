// OffsetTable and OffsetSet against std::map and std::set, over dense, sparse, negative and
// huge offsets.
#include "properties/offset_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace logsim::properties {
namespace {

std::vector<std::int64_t> offsets(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> out;
  for (int i = 0; i < 3000; ++i) {
    switch (rng() % 4) {
      case 0: out.push_back(static_cast<std::int64_t>(rng() % 5000)); break;                 // dense
      case 1: out.push_back(static_cast<std::int64_t>(rng() % 50) - 25); break;               // around zero
      case 2: out.push_back((std::int64_t{1} << 40) + static_cast<std::int64_t>(rng() % 3000)); break;  // high
      default: out.push_back(static_cast<std::int64_t>(rng() >> 2)); break;                   // anywhere
    }
  }
  return out;
}

TEST(OffsetTable, BehavesAsAnOrderedMap) {
  for (std::uint64_t seed : {1U, 2U, 3U}) {
    OffsetTable<std::int64_t> table;
    std::map<std::int64_t, std::int64_t> model;
    std::int64_t n = 0;
    for (std::int64_t o : offsets(seed)) {
      const auto [entry, fresh] = table.emplace(o, ++n);
      const auto [it, model_fresh] = model.emplace(o, n);
      ASSERT_EQ(fresh, model_fresh) << o;
      ASSERT_EQ(*entry, it->second) << o;
    }
    ASSERT_EQ(table.size(), model.size());
    for (std::int64_t o : offsets(seed + 100)) {
      const auto it = model.find(o);
      ASSERT_EQ(table.contains(o), it != model.end()) << o;
      const auto next = model.lower_bound(o);
      ASSERT_EQ(table.next_at_or_after(o), next == model.end() ? std::nullopt : std::optional(next->first)) << o;
    }
    // An ordered walk over a range, and stopping early.
    std::vector<std::int64_t> walked;
    table.for_each_in(-10, 4000, [&](std::int64_t o, std::int64_t v) {
      EXPECT_EQ(v, model.at(o));
      walked.push_back(o);
      return true;
    });
    std::vector<std::int64_t> expected;
    for (auto it = model.lower_bound(-10); it != model.end() && it->first < 4000; ++it) expected.push_back(it->first);
    EXPECT_EQ(walked, expected);
    int calls = 0;
    table.for_each_from(0, [&](std::int64_t, std::int64_t) { return ++calls < 3; });
    EXPECT_EQ(calls, 3);
  }
}

TEST(OffsetTable, EraseMatchesAMapAndAnEmptiedPageCanFillAgain) {
  for (std::uint64_t seed : {4U, 5U, 6U}) {
    OffsetTable<std::int64_t> table;
    std::map<std::int64_t, std::int64_t> model;
    std::mt19937_64 rng(seed);
    const std::vector<std::int64_t> keys = offsets(seed);
    std::int64_t n = 0;
    for (int step = 0; step < 20000; ++step) {
      const std::int64_t o = keys[rng() % keys.size()];
      if (rng() % 3 == 0) {
        ASSERT_EQ(table.erase(o), model.erase(o) == 1) << o;
      } else {
        const auto [entry, fresh] = table.emplace(o, ++n);
        const auto [it, model_fresh] = model.emplace(o, n);
        ASSERT_EQ(fresh, model_fresh) << o;
        ASSERT_EQ(*entry, it->second) << o;
      }
      ASSERT_EQ(table.size(), model.size());
    }
    for (std::int64_t o : keys) {
      const auto it = model.find(o);
      ASSERT_EQ(table.find(o) == nullptr ? std::nullopt : std::optional(*table.find(o)),
                it == model.end() ? std::nullopt : std::optional(it->second))
          << o;
    }
    std::vector<std::int64_t> walked;
    table.for_each_from(INT64_MIN, [&](std::int64_t o, std::int64_t) {
      walked.push_back(o);
      return true;
    });
    std::vector<std::int64_t> expected;
    for (const auto& [o, v] : model) expected.push_back(o);
    EXPECT_EQ(walked, expected);
  }
  // Every entry of a page erased, then the page used again: the freed page is not found.
  OffsetTable<int> t;
  for (int o = 0; o < 2048; ++o) t.emplace(o, o + 1);
  for (int o = 0; o < 1024; ++o) EXPECT_TRUE(t.erase(o));
  EXPECT_FALSE(t.erase(5));
  EXPECT_EQ(t.find(5), nullptr);
  EXPECT_EQ(t.next_at_or_after(0), std::optional<std::int64_t>(1024));
  EXPECT_TRUE(t.emplace(7, 70).second);
  EXPECT_EQ(*t.find(7), 70);
  EXPECT_EQ(t.size(), 1025U);
}

TEST(OffsetTable, AMovedTableKeepsItsEntriesAndTheOldOneIsEmpty) {
  OffsetTable<int> a;
  a.emplace(7, 70);
  a.emplace(5000, 500);
  ASSERT_NE(a.find(7), nullptr);  // warms the cache of page 0
  OffsetTable<int> b = std::move(a);
  EXPECT_EQ(*b.find(7), 70);
  EXPECT_EQ(*b.find(5000), 500);
  EXPECT_EQ(a.find(7), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty, not dangling
  EXPECT_EQ(a.size(), 0U);
}

TEST(OffsetSet, BehavesAsAnOrderedSet) {
  for (std::uint64_t seed : {4U, 5U}) {
    OffsetSet set;
    std::set<std::int64_t> model;
    for (std::int64_t o : offsets(seed)) ASSERT_EQ(set.insert(o), model.insert(o).second) << o;
    ASSERT_EQ(set.size(), model.size());
    for (std::int64_t o : offsets(seed + 100)) {
      ASSERT_EQ(set.contains(o), model.contains(o)) << o;
      const auto next = model.upper_bound(o);
      ASSERT_EQ(set.next_above(o), next == model.end() ? std::nullopt : std::optional(*next)) << o;
    }
    EXPECT_EQ(set.next_above(INT64_MAX), std::nullopt);
  }
}

}  // namespace
}  // namespace logsim::properties
