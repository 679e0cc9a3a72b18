// The fuzz-case generators: pure functions of the seed, and fault schedules that respect the
// fault model (lanes never overlap, every fault is repaired within the fault phase, only the
// swarm's kinds appear), for generated cases and for every first shrink of them.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>

#include "fuzz/generators.h"

namespace logsim::fuzz {
namespace {

void check_schedule(const Case& c, const Shape& shape) {
  const auto placed = place_faults(c, shape);
  std::int64_t lane_end[2] = {shape.faults_from_ms, shape.faults_from_ms};
  std::int64_t last_start = 0;
  for (const auto& p : placed) {
    RC_ASSERT(std::find(c.kinds.begin(), c.kinds.end(), p.fault.kind) != c.kinds.end());
    RC_ASSERT(p.start_ms >= shape.faults_from_ms);
    RC_ASSERT(p.end_ms <= shape.faults_until_ms);
    RC_ASSERT(p.end_ms > p.start_ms);
    RC_ASSERT(p.start_ms >= last_start);  // in time order
    last_start = p.start_ms;
  }
  // Per lane, in the order they were drawn, faults do not overlap.
  std::vector<PlacedFault> by_lane[2];
  for (const auto& p : placed) by_lane[scenarios::is_member_fault(p.fault.kind) ? 1 : 0].push_back(p);
  for (int lane = 0; lane < 2; ++lane) {
    for (const auto& p : by_lane[lane]) {
      RC_ASSERT(p.start_ms >= lane_end[lane]);
      lane_end[lane] = p.end_ms;
    }
  }
}

RC_GTEST_PROP(Generators, FaultSchedulesFollowTheFaultModel, ()) {
  const Shape shape;
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
  const auto shrinkable = case_for_seed(gen_case(shape), seed);
  const Case c = shrinkable.value();
  RC_ASSERT(c.brokers >= 3);
  RC_ASSERT(!c.producers.empty());
  RC_ASSERT(!c.groups.empty());
  check_schedule(c, shape);
  auto shrinks = shrinkable.shrinks();
  int n = 0;
  while (auto s = shrinks.next()) {
    check_schedule(s->value(), shape);
    if (++n == 20) break;
  }
}

RC_GTEST_PROP(Generators, ACaseIsAPureFunctionOfItsSeed, ()) {
  const Shape shape;
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
  const Case a = case_for_seed(gen_case(shape), seed).value();
  const Case b = case_for_seed(gen_case(shape), seed).value();
  RC_ASSERT(a.brokers == b.brokers);
  RC_ASSERT(a.partitions == b.partitions);
  RC_ASSERT(a.groups.size() == b.groups.size());
  RC_ASSERT(a.kinds == b.kinds);
  RC_ASSERT(a.faults.size() == b.faults.size());
  for (std::size_t i = 0; i < a.faults.size(); ++i) {
    RC_ASSERT(a.faults[i].kind == b.faults[i].kind);
    RC_ASSERT(a.faults[i].gap_ms == b.faults[i].gap_ms);
    RC_ASSERT(a.faults[i].length_ms == b.faults[i].length_ms);
  }
}

TEST(Generators, TheSwarmTurnsOnDifferentSubsetsOfFaultKinds) {
  const Shape shape;
  std::set<std::vector<FaultKind>> subsets;
  std::set<FaultKind> seen;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const Case c = case_for_seed(gen_case(shape), seed).value();
    subsets.insert(c.kinds);
    for (const auto& p : place_faults(c, shape)) seen.insert(p.fault.kind);
  }
  EXPECT_GE(subsets.size(), 20u) << "each seed should draw its own subset of fault kinds";
  EXPECT_EQ(seen.size(), safe_fault_kinds().size()) << "every safe kind appears in some schedule";
  EXPECT_FALSE(seen.count(FaultKind::kPowerLoss)) << "power loss is unsafe under Kafka's rules: only when asked for";
}

TEST(Generators, FaultsOnlyCasesCarryNoTopology) {
  Shape shape;
  shape.kinds = {FaultKind::kMemberPause};
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Case c = case_for_seed(gen_faults_only(shape), seed).value();
    EXPECT_TRUE(c.groups.empty());
    EXPECT_TRUE(c.producers.empty());
    for (const auto& f : c.faults) EXPECT_EQ(f.kind, FaultKind::kMemberPause);
  }
}

}  // namespace
}  // namespace logsim::fuzz
