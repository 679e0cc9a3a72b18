// Tests of the World's run loop: timers fire at their time in order, cancelled ones never,
// run_until's limits, scheduled actions, and invariant failures that name where the run broke.
// The lifecycle, pause, clock and network, and trace tests are in the other world_*_test files.
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
// Timers and the run loop.

TEST(WorldTimers, FireAtTheirTimeInOrderAndCancelledOnesNever) {
  Sim sim;
  // Tag 3 is cancelled at start; tag 1 is cancelled by tag 2's callback before it is due.
  const NodeId n = sim.world.add_node(
      "n", factory<OneShots>(sim.probe,
                             std::vector<TimerPlan>{{5 * kMs, 1}, {2 * kMs, 2}, {9 * kMs, 3}, {2 * kMs, 4}, {7 * kMs, 5}},
                             std::vector<CancelPlan>{{kAtStart, 3}, {2, 1}}));
  sim.world.start(n);
  EXPECT_EQ(sim.world.run_until(seconds(1)), RunEnd::kQuiescent);
  EXPECT_EQ(sim.probe.values(n, Did::kTimer), (std::vector<std::int64_t>{2, 4, 5}));  // equal times: armed order
  EXPECT_EQ(sim.probe.times(n, Did::kTimer), (std::vector<Nanos>{2 * kMs, 2 * kMs, 7 * kMs}));
  EXPECT_EQ(sim.world.now(), seconds(1));  // quiescent: time still passes to the limit
  EXPECT_EQ(sim.world.events_run(), 3u);
}

// Arms timer 1 at start (1 ms). When it fires: arms timer 2 (1 ms later), which takes the
// queue slot timer 1 left, and cancels timer 1 again, whose id is now stale. When timer 2
// fires: arms timer 3 and cancels timer 2 and then timer 1 once more.
class StaleCanceller : public TestNode {
 public:
  using TestNode::TestNode;
  void on_start() override {
    TestNode::on_start();
    ids_.push_back(env_.set_timer(kMs, 1));
  }
  void on_timer(TimerId id, std::uint64_t tag) override {
    TestNode::on_timer(id, tag);
    if (tag > 2) return;
    ids_.push_back(env_.set_timer(kMs, tag + 1));
    for (std::size_t i = tag; i-- > 0;) env_.cancel_timer(ids_[i]);
  }
  std::vector<TimerId> ids_;
};

TEST(WorldTimers, CancellingATimerThatFiredCancelsNothingElse) {
  // A timer's id names its event in the queue; the slot of a fired timer is reused by the next
  // event, so a stale id must not cancel that one. And the same after a pause, when the held
  // timer's event was pushed again under a new name.
  for (const bool paused : {false, true}) {
    SCOPED_TRACE(paused ? "paused" : "not paused");
    Sim sim;
    const NodeId n = sim.world.add_node("n", factory<StaleCanceller>(sim.probe));
    sim.world.start(n);
    if (paused) {
      sim.world.schedule(kMs / 2, "pause", [&] { sim.world.pause(n); });
      sim.world.schedule(2 * kMs, "resume", [&] { sim.world.resume(n); });
    }
    sim.world.run_until(seconds(1));
    EXPECT_EQ(sim.probe.values(n, Did::kTimer), (std::vector<std::int64_t>{1, 2, 3}));
    const Nanos first = paused ? 2 * kMs : kMs;
    EXPECT_EQ(sim.probe.times(n, Did::kTimer), (std::vector<Nanos>{first, first + kMs, first + 2 * kMs}));
  }
}

TEST(WorldTimers, RunUntilStopsAtTheLimitAndEventsAtTheLimitRun) {
  Sim sim;
  const NodeId n = sim.world.add_node("n", factory<Ticker>(sim.probe, kMs));
  sim.world.start(n);
  EXPECT_EQ(sim.world.run_until(10 * kMs + 500 * kUs), RunEnd::kTimeLimit);
  EXPECT_EQ(sim.world.now(), 10 * kMs + 500 * kUs);
  EXPECT_EQ(sim.probe.of(n, Did::kTimer).size(), 10u);
  EXPECT_EQ(sim.world.run_until(20 * kMs), RunEnd::kTimeLimit);
  EXPECT_EQ(sim.world.now(), 20 * kMs);
  ASSERT_EQ(sim.probe.of(n, Did::kTimer).size(), 20u);
  EXPECT_EQ(sim.probe.of(n, Did::kTimer).back().at, 20 * kMs);
  EXPECT_EQ(sim.world.run_until(20 * kMs), RunEnd::kTimeLimit);  // nothing more is due
  EXPECT_EQ(sim.probe.of(n, Did::kTimer).size(), 20u);
}

TEST(WorldTimers, QuiescentWhenNothingIsLeft) {
  Sim empty;
  EXPECT_EQ(empty.world.run_until(seconds(1)), RunEnd::kQuiescent);
  EXPECT_EQ(empty.world.events_run(), 0u);

  Sim sim;
  const NodeId n = sim.world.add_node(
      "n", factory<OneShots>(sim.probe, std::vector<TimerPlan>{{3 * kMs, 1}}, std::vector<CancelPlan>{}));
  sim.world.start(n);
  EXPECT_EQ(sim.world.run_until(seconds(1)), RunEnd::kQuiescent);
  EXPECT_EQ(sim.world.now(), seconds(1));
  EXPECT_EQ(sim.probe.values(n, Did::kTimer), (std::vector<std::int64_t>{1}));
}

TEST(WorldTimers, EventLimitStopsARunawayLoop) {
  WorldOptions o;
  o.max_events = 5;
  Sim sim(1, o);
  const NodeId n = sim.world.add_node("n", factory<Ticker>(sim.probe, kMs));
  sim.world.start(n);
  EXPECT_EQ(sim.world.run_until(seconds(1)), RunEnd::kEventLimit);
  EXPECT_EQ(sim.world.events_run(), 5u);
  EXPECT_EQ(sim.probe.of(n, Did::kTimer).size(), 5u);
}

TEST(WorldTimers, RunUntilAnEarlierTimeNeverMovesTheClockBack) {
  Sim sim;
  sim.world.schedule(30 * kMs, "later", [] {});
  ASSERT_EQ(sim.world.run_until(20 * kMs), RunEnd::kTimeLimit);
  try {
    sim.world.run_until(10 * kMs);  // a caller bug: stopping with an InvariantError is fine too
  } catch (const InvariantError&) {
  }
  EXPECT_EQ(sim.world.now(), 20 * kMs);
}

TEST(WorldSchedule, ActionRunsAtItsTimeAndThePastThrows) {
  Sim sim(1, fixed_latency(true));
  std::vector<Nanos> ran;
  sim.world.schedule(10 * kMs, "tick", [&] { ran.push_back(sim.world.now()); });
  EXPECT_EQ(sim.world.run_until(20 * kMs), RunEnd::kQuiescent);
  EXPECT_EQ(ran, (std::vector<Nanos>{10 * kMs}));
  EXPECT_THROW(sim.world.schedule(5 * kMs, "late", [] {}), InvariantError);
  sim.world.schedule(sim.world.now(), "now", [&] { ran.push_back(sim.world.now()); });  // not the past
  sim.world.run_until(20 * kMs);
  EXPECT_EQ(ran, (std::vector<Nanos>{10 * kMs, 20 * kMs}));
  ASSERT_EQ(count_kind(sim.world.trace(), TraceKind::kAction), 2u);
  EXPECT_EQ(sim.world.trace().entries()[0].text, "tick");
}

// ---------------------------------------------------------------------------------------------
// Invariant failures name where the run broke.

// Breaks an invariant, as a buggy engine would, when its timer tagged 3 fires.
class Brittle : public OneShots {
 public:
  using OneShots::OneShots;
  void on_timer(TimerId id, std::uint64_t tag) override {
    LOGSIM_ASSERT(tag != 3, "timer 3 is never due");
    OneShots::on_timer(id, tag);
  }
};

// The message of the InvariantError that `run` throws (empty, and a test failure, if none).
template <typename Run>
std::string invariant_message(Run run) {
  try {
    run();
  } catch (const InvariantError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvariantError";
  return "";
}

TEST(WorldInvariant, FailureInANodeNamesTheTimeTheTraceEventAndTheNode) {
  Sim sim(1, fixed_latency(true));
  sim.world.add_node("bystander", factory<TestNode>(sim.probe));
  const NodeId n = sim.world.add_node(
      "brittle", factory<Brittle>(sim.probe, std::vector<TimerPlan>{{kMs, 1}, {2 * kMs, 2}, {3 * kMs + 7, 3}},
                                  std::vector<CancelPlan>{}));
  sim.world.start(n);
  const std::string what = invariant_message([&] { sim.world.run_until(seconds(1)); });
  // The trace: the start, then timers 1, 2 and 3; the third is the event that broke.
  ASSERT_EQ(sim.world.trace().size(), 4u);
  EXPECT_EQ(sim.world.trace().entries().back().detail, 3u);
  EXPECT_EQ(what.rfind("invariant failed: tag != 3 (", 0), 0u) << what;  // the original first
  const std::string where = "; at t=0.003000007s, trace event #3, timer tag=3 on node brittle";
  EXPECT_EQ(what.substr(what.size() - std::min(what.size(), where.size())), where) << what;
}

TEST(WorldInvariant, FailureInAnActionNamesTheAction) {
  Sim sim;
  const NodeId n = sim.world.add_node("n", factory<Ticker>(sim.probe, kMs));
  sim.world.start(n);
  sim.world.schedule(2 * kMs + 5, "crash n twice", [&] {
    sim.world.crash(n);
    sim.world.start(n);
    sim.world.start(n);  // a caller bug: start of a running node
  });
  const std::string what = invariant_message([&] { sim.world.run_until(seconds(1)); });
  // Traced: n's start, two ticks, the action, its crash and first start.
  EXPECT_EQ(sim.world.trace().size(), 6u);
  EXPECT_NE(what.find("start of a running node n; at t=0.002000005s, trace event #3, action \"crash n twice\""),
            std::string::npos)
      << what;
}

}  // namespace
}  // namespace logsim::sim
