// FlatMap against std::map: random insertions, lookups and removals, with keys chosen so that
// probe runs are long and wrap around the end of the table (backward-shift deletion's cases).
#include "engine/base/flat_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace logsim {
namespace {

struct Identity {
  std::uint64_t operator()(std::uint64_t k) const { return k; }
};
// Every key hashes to one of four values: long collision runs.
struct Clustered {
  std::uint64_t operator()(std::uint64_t k) const { return k % 4; }
};

template <class Hash>
void check_against_a_map(std::uint64_t seed, std::uint64_t key_range) {
  FlatMap<std::uint64_t, std::string, Hash> table;
  std::map<std::uint64_t, std::string> model;
  std::mt19937_64 rng(seed);
  for (int step = 0; step < 30000; ++step) {
    const std::uint64_t k = rng() % key_range;
    switch (rng() % 4) {
      case 0: {
        const auto taken = table.take(k);
        const auto it = model.find(k);
        ASSERT_EQ(taken.has_value(), it != model.end()) << k;
        if (taken) {
          ASSERT_EQ(*taken, it->second);
          model.erase(it);
        }
        break;
      }
      case 1: {
        const std::string v = std::to_string(step);
        const auto [entry, fresh] = table.try_emplace(k, v);
        const auto [it, model_fresh] = model.try_emplace(k, v);
        ASSERT_EQ(fresh, model_fresh) << k;
        ASSERT_EQ(*entry, it->second) << k;
        break;
      }
      case 2:
        table[k] += "x";
        model[k] += "x";
        break;
      default: {
        const std::string* found = table.find(k);
        const auto it = model.find(k);
        ASSERT_EQ(found != nullptr, it != model.end()) << k;
        if (found) {
          ASSERT_EQ(*found, it->second);
        }
      }
    }
    ASSERT_EQ(table.size(), model.size());
  }
  std::map<std::uint64_t, std::string> visited;
  table.for_each([&](std::uint64_t k, const std::string& v) { EXPECT_TRUE(visited.emplace(k, v).second); });
  EXPECT_EQ(visited, model);
  for (std::uint64_t k = 0; k < key_range; ++k) EXPECT_EQ(table.contains(k), model.contains(k)) << k;
}

TEST(FlatMap, BehavesAsAMapWithSpreadKeys) {
  for (std::uint64_t seed : {1U, 2U}) check_against_a_map<Identity>(seed, 5000);
}

TEST(FlatMap, BehavesAsAMapWhenKeysCollide) {
  // Few keys, all in four probe runs: removals must shift the runs' later entries back.
  for (std::uint64_t seed : {3U, 4U, 5U}) check_against_a_map<Clustered>(seed, 60);
}

TEST(FlatMap, AnEmptyMapFindsNothingAndTakesNothing) {
  FlatMap<std::uint64_t, int, Identity> table;
  EXPECT_EQ(table.find(3), nullptr);
  EXPECT_FALSE(table.take(3).has_value());
  EXPECT_FALSE(table.erase(3));
  EXPECT_TRUE(table.empty());
}

}  // namespace
}  // namespace logsim
