// Tests of clock skew (local time, local timers under drift) and of network faults applied
// through the World (partition, isolate, heal).
#include "sim/world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/tests/world_fixtures.h"

namespace logsim::sim {
namespace {

using namespace world_fixtures;  // NOLINT(google-build-using-namespace)

// ---------------------------------------------------------------------------------------------
// Clock skew.

TEST(WorldClock, LocalTimeIsOffsetPlusDriftedTrueTime) {
  Sim sim;
  const NodeId fast = sim.world.add_node("fast", factory<TestNode>(sim.probe));
  const NodeId slow = sim.world.add_node("slow", factory<TestNode>(sim.probe));
  sim.world.set_clock(fast, seconds(1), 250.0);
  sim.world.set_clock(slow, -5 * kMs, -100.0);
  sim.world.start(fast);
  sim.world.start(slow);
  struct Reading {
    Nanos fast, slow;
  };
  std::vector<Reading> got;
  auto read = [&] {
    got.push_back(Reading{dynamic_cast<TestNode*>(sim.world.node(fast))->local_now(),
                          dynamic_cast<TestNode*>(sim.world.node(slow))->local_now()});
    EXPECT_EQ(got.back().fast, sim.world.local_time(fast));
  };
  read();
  for (const Nanos t : {Nanos{123'456'789}, seconds(1), seconds(4)}) sim.world.schedule(t, "read", read);
  sim.world.run_until(seconds(5));
  ASSERT_EQ(got.size(), 4u);
  // fast: 1 s + t * 1.00025; slow: -5 ms + t * 0.9999; rounded to the nearest ns.
  EXPECT_EQ(got[0].fast, seconds(1));
  EXPECT_EQ(got[0].slow, -5 * kMs);
  EXPECT_EQ(got[1].fast, seconds(1) + 123'487'653);  // 123456789 * 1.00025 = 123487653.197
  EXPECT_EQ(got[1].slow, -5 * kMs + 123'444'443);    // 123456789 * 0.9999 = 123444443.321
  EXPECT_EQ(got[2].fast, seconds(1) + 1'000'250'000);
  EXPECT_EQ(got[2].slow, -5 * kMs + 999'900'000);
  EXPECT_EQ(got[3].fast, seconds(1) + 4'001'000'000);
  EXPECT_EQ(got[3].slow, -5 * kMs + 3'999'600'000);
}

TEST(WorldClock, LocalTimerOfDFiresAfterDOverOnePlusDriftTrueTime) {
  Sim sim;
  const NodeId fast = sim.world.add_node("fast", factory<LocalTimers>(sim.probe, std::vector<Nanos>{seconds(1)}));
  const NodeId slow = sim.world.add_node("slow", factory<LocalTimers>(sim.probe, std::vector<Nanos>{seconds(1)}));
  sim.world.set_clock(fast, seconds(1), 100.0);
  sim.world.set_clock(slow, 0, -200.0);
  sim.world.start(fast);
  sim.world.start(slow);
  sim.world.run_until(seconds(2));
  // fast: 1e9 / 1.0001 = 999900009.9999 -> 999900010 ns, when its clock reads exactly 2 s.
  ASSERT_EQ(sim.probe.of(fast, Did::kTimer).size(), 1u);
  EXPECT_EQ(sim.probe.of(fast, Did::kTimer)[0].at, 999'900'010);
  EXPECT_EQ(sim.probe.of(fast, Did::kTimer)[0].local, seconds(2));
  // slow: 1e9 / 0.9998 = 1000200040.008 -> 1000200041 ns; its clock is then 1 s + 1 ns.
  ASSERT_EQ(sim.probe.of(slow, Did::kTimer).size(), 1u);
  EXPECT_EQ(sim.probe.of(slow, Did::kTimer)[0].at, 1'000'200'041);
  EXPECT_EQ(sim.probe.of(slow, Did::kTimer)[0].local, seconds(1) + 1);
}

TEST(WorldClock, LocalTimersFireWhenTheLocalClockReachesTheirDeadline) {
  // Chains of random delays, armed at arbitrary true times: each timer runs at the first true
  // nanosecond at which the local clock has reached its deadline, so the local clock then reads
  // the deadline or (when the drift makes it step by two) one past it.
  for (const double drift_ppm : {-500.0, -1.0, 0.0, 0.5, 37.0, 250.0, 10'000.0}) {
    SCOPED_TRACE(drift_ppm);
    Rng rng(static_cast<std::uint64_t>(drift_ppm * 1000 + 1e9));
    std::vector<Nanos> delays;
    for (int i = 0; i < 300; ++i) delays.push_back(rng.uniform_int(1, 3 * kNanosPerSecond));
    Sim sim;
    const NodeId n = sim.world.add_node("n", factory<LocalTimers>(sim.probe, delays));
    sim.world.set_clock(n, rng.uniform_int(-seconds(100), seconds(100)), drift_ppm);
    sim.world.start(n);
    EXPECT_EQ(sim.world.run_until(seconds(10'000)), RunEnd::kQuiescent);
    const auto fired = sim.probe.of(n, Did::kTimer);
    ASSERT_EQ(fired.size(), delays.size());
    int early = 0;
    for (const Seen& s : fired) {
      EXPECT_LE(s.local, s.value + 1) << "late at true " << s.at;
      early += s.local < s.value ? 1 : 0;
    }
    EXPECT_EQ(early, 0) << "timers that ran before the local clock reached their deadline";
  }
}

// ---------------------------------------------------------------------------------------------
// Network faults through the World.

TEST(WorldNetwork, PartitionDropsBetweenGroupsAndHealRestores) {
  Sim sim(1, fixed_latency(true));
  const NodeId b = sim.world.add_node("b", factory<Echo>(sim.probe));
  const NodeId a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, kMs));
  sim.world.start(b);
  sim.world.start(a);
  // Ping 2 is in flight at 2.05 ms (dropped at delivery); pings 3..5 are cut at send.
  sim.world.schedule(2 * kMs + 50 * kUs, "cut", [&] {
    sim.world.network_fault("partition a|b", [&](Network& net) { net.partition({{a}, {b}}); });
  });
  sim.world.schedule(5 * kMs + 500 * kUs, "mend", [&] {
    sim.world.network_fault("heal", [](Network& net) { net.heal(); });
  });
  sim.world.run_until(7 * kMs + 500 * kUs);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{1, 6, 7}));
  EXPECT_EQ(sim.probe.values(a, Did::kResponse), (std::vector<std::int64_t>{1, 6, 7}));
  // The connection lost pings to the cut: once healed, both ends hear it was reset (as TCP
  // gives up on unanswered segments), so requests lost in the partition are retried.
  EXPECT_EQ(sim.probe.values(a, Did::kDisconnect), (std::vector<std::int64_t>{b.value()}));
  EXPECT_EQ(sim.probe.values(b, Did::kDisconnect), (std::vector<std::int64_t>{a.value()}));
  const Trace& trace = sim.world.trace();
  std::vector<std::string> faults;
  for (const TraceEntry& e : trace.entries()) {
    if (e.kind == TraceKind::kFault && e.node == -1) faults.push_back(e.text);
    if (e.kind == TraceKind::kDrop) {
      EXPECT_EQ(e.node, b.value());
      EXPECT_EQ(e.peer, a.value());
      EXPECT_EQ(e.at, 2 * kMs + kLatency);
    }
  }
  EXPECT_EQ(faults, (std::vector<std::string>{"partition a|b", "heal"}));
  EXPECT_EQ(count_kind(trace, TraceKind::kDrop), 1u);
  EXPECT_EQ(sim.world.network().stats().cut, 3u);
}

TEST(WorldNetwork, IsolateCutsANodeOffBothWaysAndLeavesOthersAlone) {
  Sim sim(1, fixed_latency(true));
  const NodeId b = sim.world.add_node("b", factory<Echo>(sim.probe));
  const NodeId a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, kMs));
  const NodeId c = sim.world.add_node("c", factory<Echo>(sim.probe));
  const NodeId d = sim.world.add_node("d", factory<Pinger>(sim.probe, c, kMs));
  for (const NodeId n : {b, a, c, d}) sim.world.start(n);
  // At 3.15 ms b has ping 3 and its answer is on the way back (arriving at 3.2 ms).
  sim.world.schedule(3 * kMs + 150 * kUs, "isolate b", [&] {
    sim.world.network_fault("isolate b", [&](Network& net) { net.isolate(b); });
  });
  sim.world.schedule(5 * kMs + 500 * kUs, "heal b", [&] {
    sim.world.network_fault("heal b", [&](Network& net) { net.heal_node(b); });
  });
  sim.world.run_until(7 * kMs + 500 * kUs);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{1, 2, 3, 6, 7}));
  EXPECT_EQ(sim.probe.values(a, Did::kResponse), (std::vector<std::int64_t>{1, 2, 6, 7}));  // 3: b->a cut
  EXPECT_EQ(sim.probe.values(d, Did::kResponse), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, a.value()), 1u);
}

}  // namespace
}  // namespace logsim::sim
