// Tests of a node's life in the World: crash, power loss, stop and restart (what survives on
// disk, what a peer is told), and pause and resume (held events, late timers).
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
// Crash, power loss, restart.

TEST(WorldLifecycle, CrashDestroysTheNodeAndItsTimersNeverFireAgain) {
  Sim sim;
  const NodeId n = sim.world.add_node("n", factory<Ticker>(sim.probe, kMs));
  sim.world.start(n);
  sim.world.run_until(5 * kMs + 500 * kUs);
  ASSERT_EQ(sim.probe.of(n, Did::kTimer).size(), 5u);
  sim.world.crash(n);
  EXPECT_EQ(sim.probe.destroyed, 1);
  EXPECT_EQ(sim.world.state(n), NodeState::kCrashed);
  EXPECT_EQ(sim.world.node(n), nullptr);
  sim.world.schedule(20 * kMs, "restart", [&] {
    EXPECT_EQ(sim.probe.of(n, Did::kTimer).size(), 5u);  // none fired while it was down
    sim.world.restart(n);
    EXPECT_EQ(sim.probe.built, 2);
    EXPECT_EQ(sim.world.state(n), NodeState::kUp);
    EXPECT_NE(sim.world.node(n), nullptr);
  });
  sim.world.run_until(25 * kMs);
  const auto ticks = sim.probe.of(n, Did::kTimer);
  ASSERT_EQ(ticks.size(), 10u);
  EXPECT_EQ(ticks[5].object, 2);
  EXPECT_EQ(ticks[5].at, 21 * kMs);
}

TEST(WorldLifecycle, TimerArmedBeforeACrashDoesNotFireInTheNextIncarnation) {
  Sim sim;
  const NodeId n = sim.world.add_node(
      "n", factory<OneShots>(sim.probe, std::vector<TimerPlan>{{10 * kMs, 1}}, std::vector<CancelPlan>{}));
  sim.world.start(n);
  sim.world.schedule(5 * kMs, "crash", [&] { sim.world.crash(n); });
  sim.world.schedule(6 * kMs, "restart", [&] { sim.world.restart(n); });
  sim.world.run_until(seconds(1));
  EXPECT_EQ(sim.probe.times(n, Did::kTimer), (std::vector<Nanos>{16 * kMs}));  // not 10 ms
  EXPECT_EQ(sim.probe.of(n, Did::kTimer)[0].object, 2);
}

TEST(WorldLifecycle, MessagesToACrashedNodeAreDroppedUntilItRestarts) {
  Sim sim(1, fixed_latency(true));
  const NodeId b = sim.world.add_node("b", factory<Echo>(sim.probe));
  const NodeId a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, kMs));
  sim.world.start(b);
  sim.world.start(a);
  sim.world.run_until(3 * kMs + 500 * kUs);
  sim.world.crash(b);
  sim.world.run_until(6 * kMs + 500 * kUs);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(sim.probe.values(a, Did::kResponse), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, b.value()), 3u);  // pings 4, 5, 6
  sim.world.restart(b);
  sim.world.run_until(8 * kMs + 500 * kUs);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{1, 2, 3, 7, 8}));
  EXPECT_NE(sim.probe.of(b, Did::kRequest).back().object, sim.probe.of(b, Did::kRequest).front().object);
}

TEST(WorldLifecycle, MessageInFlightAcrossACrashDoesNotReachTheRestartedNode) {
  Sim sim(1, fixed_latency(true));
  const NodeId b = sim.world.add_node("b", factory<Echo>(sim.probe));
  const NodeId a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, kMs));
  sim.world.start(b);
  sim.world.start(a);
  // Ping 1 leaves at 1 ms and would arrive at 1.1 ms; b crashes and restarts in between.
  sim.world.schedule(kMs + 50 * kUs, "bounce b", [&] {
    sim.world.crash(b);
    sim.world.restart(b);
  });
  sim.world.run_until(2 * kMs + 500 * kUs);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, b.value()), 1u);  // ping 1, at 1.1 ms
  // a had sent to b's first process, so b's OS resets that connection at the crash: a hears
  // so one hop later, once (ping 1's drop is the same broken connection).
  EXPECT_EQ(sim.probe.values(a, Did::kDisconnect), (std::vector<std::int64_t>{b.value()}));
  EXPECT_EQ(sim.probe.times(a, Did::kDisconnect), (std::vector<Nanos>{kMs + 50 * kUs + kLatency}));
}

// A restarted process has new connections: an answer to its previous incarnation's request
// never reaches it, even when the server sends the answer after the restart.
TEST(WorldLifecycle, AnswerToARequestOfThePreviousIncarnationNeverReachesTheRestartedClient) {
  Sim sim(1, fixed_latency(true));
  const NodeId b = sim.world.add_node("b", factory<Echo>(sim.probe));
  const NodeId a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, kMs));
  sim.world.start(b);
  sim.world.start(a);
  // Ping 1 leaves a at 1 ms; a restarts at 1.05 ms; b gets ping 1 at 1.1 ms and answers it
  // then, after the restart. The new a pings from 2.05 ms (ids from 1 again).
  sim.world.schedule(kMs + 50 * kUs, "restart a", [&] { sim.world.restart(a); });
  sim.world.run_until(3 * kMs);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{1, 1}));
  std::vector<Nanos> answers;
  for (const Seen& s : sim.probe.of(a, Did::kResponse)) {
    EXPECT_EQ(s.object, 3) << "an answer reached the first incarnation of a after it died";
    answers.push_back(s.at);
  }
  EXPECT_EQ(answers, (std::vector<Nanos>{2 * kMs + 50 * kUs + 2 * kLatency}));  // only its own
}

// The answer a server holds (a long-poll fetch, a JoinGroup) goes back to the incarnation that
// asked, even when a newer incarnation of the client has asked the server since. (Each
// incarnation numbers its requests afresh, as real clients do: routes are kept by correlation
// id, engine/env/answer_routes.h.)
TEST(WorldLifecycle, HeldAnswerGoesToTheIncarnationThatAskedNotTheOneLastHeardFrom) {
  Sim sim(1, fixed_latency(true));
  const NodeId b = sim.world.add_node("b", factory<SlowEcho>(sim.probe, 5 * kMs));
  const NodeId a = sim.world.add_node("a", factory<FreshPinger>(sim.probe, b, kMs));
  sim.world.start(b);
  sim.world.start(a);
  sim.world.schedule(kMs + 50 * kUs, "restart a", [&] { sim.world.restart(a); });
  sim.world.run_until(8 * kMs);
  // b answers the old ping 1 at 6.1 ms (after the new a's pings of 2.05.. ms arrived); the new
  // a's own first answer leaves b at 7.15 ms.
  std::vector<Nanos> answers;
  for (const Seen& s : sim.probe.of(a, Did::kResponse)) answers.push_back(s.at);
  EXPECT_EQ(answers, (std::vector<Nanos>{7 * kMs + 50 * kUs + 2 * kLatency}));
}

// Builds b (echo) and a (pinging b every ms), starts both, applies `fault` at 3.05 ms (while
// ping 3 is in flight) and runs to 10.5 ms.
template <typename Fault>
void ping_through_fault(Sim& sim, NodeId& a, NodeId& b, Fault fault) {
  b = sim.world.add_node("b", factory<Echo>(sim.probe));
  a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, kMs));
  sim.world.start(b);
  sim.world.start(a);
  sim.world.schedule(3 * kMs + 50 * kUs, "fault", [&sim, a, b, fault] { fault(sim.world, a, b); });
  sim.world.run_until(10 * kMs + 500 * kUs);
}

TEST(WorldLifecycle, SenderIsToldWhenItsPeerCrashed) {
  Sim sim(1, fixed_latency(true));
  NodeId a, b;
  ping_through_fault(sim, a, b, [](World& w, NodeId, NodeId peer) { w.crash(peer); });
  // The crash at 3.05 ms resets a's connection (told one hop later; ping 3, in flight on it,
  // adds nothing). Each later ping is a new attempt, refused at k.1 ms and told at k.2 ms.
  std::vector<Nanos> expected{3 * kMs + 50 * kUs + kLatency};
  for (Nanos k = 4; k <= 10; ++k) expected.push_back(k * kMs + 2 * kLatency);
  EXPECT_EQ(sim.probe.times(a, Did::kDisconnect), expected);
  for (const Seen& s : sim.probe.of(a, Did::kDisconnect)) EXPECT_EQ(s.value, b.value());
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDisconnect, a.value()), expected.size());
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, b.value()), 8u);  // pings 3..10
}

// A client has one connection per peer: what it sends while that connection's reset is on its
// way goes on the broken connection and is lost with it, even if the peer has restarted
// meanwhile; the reset still arrives, and only then does a new connection reach the new
// process. (Before, the send reached the new process and the reset was dropped as an old
// connection's: a Fetch lost just before a broker restarted waited out request.timeout.ms.)
TEST(WorldLifecycle, ARequestSentBeforeTheResetArrivesIsLostWithTheOldConnection) {
  Sim sim(1, fixed_latency(true));
  const NodeId b = sim.world.add_node("b", factory<Echo>(sim.probe));
  const NodeId a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, 150 * kUs));
  sim.world.start(b);
  sim.world.start(a);
  // Pings leave every 0.15 ms and arrive 0.1 ms later. b crashes at 0.98 ms (a is told at
  // 1.08 ms) and is back at 1.02 ms; ping 7 leaves at 1.05 ms, before a has heard the reset.
  sim.world.schedule(980 * kUs, "crash b", [&] { sim.world.crash(b); });
  sim.world.schedule(1020 * kUs, "restart b", [&] { sim.world.restart(b); });
  sim.world.run_until(1500 * kUs);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 8, 9}));
  EXPECT_EQ(sim.probe.times(a, Did::kDisconnect), (std::vector<Nanos>{980 * kUs + kLatency}));
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, b.value()), 2u);  // pings 6 and 7
}

TEST(WorldLifecycle, SenderIsNotToldWhenItsPeerLostPower) {
  Sim sim(1, fixed_latency(true));
  NodeId a, b;
  ping_through_fault(sim, a, b, [](World& w, NodeId, NodeId peer) { w.power_loss(peer); });
  EXPECT_EQ(sim.world.state(b), NodeState::kCrashed);
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, b.value()), 8u);  // pings 3..10
  EXPECT_TRUE(sim.probe.of(a, Did::kDisconnect).empty());
}

TEST(WorldLifecycle, SenderIsNotToldAcrossAPartition) {
  Sim sim(1, fixed_latency(true));
  NodeId a, b;
  ping_through_fault(sim, a, b, [](World& w, NodeId sender, NodeId peer) {
    w.network_fault("partition", [=](Network& n) { n.partition({{sender}, {peer}}); });
    w.crash(peer);
  });
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, b.value()), 1u);  // ping 3, in flight
  EXPECT_TRUE(sim.probe.of(a, Did::kDisconnect).empty());
}

TEST(WorldLifecycle, SenderIsNotToldWhenOnlyTheReturnPathIsCut) {
  Sim sim(1, fixed_latency(true));
  NodeId a, b;
  ping_through_fault(sim, a, b, [](World& w, NodeId sender, NodeId peer) {
    w.network_fault("cut b->a", [=](Network& n) { n.cut_one_way(peer, sender); });
    w.crash(peer);
  });
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, b.value()), 8u);  // a->b still carries
  EXPECT_TRUE(sim.probe.of(a, Did::kDisconnect).empty());
}

TEST(WorldLifecycle, RestartAfterACrashSeesThePageCache) {
  Sim sim;
  const NodeId n = sim.world.add_node("n", factory<Writer>(sim.probe));
  sim.world.start(n);
  sim.world.run_until(100 * kMs);
  ASSERT_EQ(sim.probe.values(n, Did::kFsync), (std::vector<std::int64_t>{1}));
  sim.world.crash(n);
  sim.world.restart(n);
  EXPECT_EQ(sim.probe.disk_at_start, (std::vector<std::string>{"", "su"}));
}

TEST(WorldLifecycle, RestartAfterAPowerLossSeesOnlyFsyncedData) {
  Sim sim;
  const NodeId n = sim.world.add_node("n", factory<Writer>(sim.probe));
  sim.world.start(n);
  sim.world.run_until(100 * kMs);
  ASSERT_EQ(sim.probe.values(n, Did::kFsync), (std::vector<std::int64_t>{1}));
  ASSERT_EQ(sim.world.disk(n).read(Writer::kFile, 0, 10), "su");
  sim.world.power_loss(n);
  EXPECT_EQ(sim.probe.destroyed, 1);
  EXPECT_EQ(sim.world.state(n), NodeState::kCrashed);
  sim.world.restart(n);
  EXPECT_EQ(sim.probe.disk_at_start, (std::vector<std::string>{"", "s"}));
}

TEST(WorldLifecycle, StopRunsOnStopBeforeDestructionAndDeliversItsLastMessage) {
  Sim sim(1, fixed_latency(true));
  const NodeId b = sim.world.add_node("b", factory<Echo>(sim.probe));
  const NodeId a = sim.world.add_node("a", factory<Stopper>(sim.probe, b));
  sim.world.start(b);
  sim.world.start(a);
  sim.world.schedule(kMs, "stop a", [&] {
    sim.world.stop(a);
    EXPECT_EQ(sim.world.state(a), NodeState::kDown);
    EXPECT_EQ(sim.world.node(a), nullptr);
    // a's record: start, stop, destroy, in that order and nothing else.
    std::vector<Did> order;
    for (const Seen& s : sim.probe.seen) {
      if (s.node == a.value()) order.push_back(s.did);
    }
    EXPECT_EQ(order, (std::vector<Did>{Did::kStart, Did::kStop, Did::kDestroy}));
  });
  sim.world.run_until(10 * kMs);
  EXPECT_EQ(sim.probe.destroyed, 1);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{999}));
  EXPECT_EQ(sim.probe.times(b, Did::kRequest), (std::vector<Nanos>{kMs + kLatency}));
  EXPECT_TRUE(sim.probe.of(a, Did::kTimer).empty());  // armed in on_stop: never fires
  // b's answer finds a's process gone: dropped, and b hears of the reset.
  EXPECT_EQ(count_kind(sim.world.trace(), TraceKind::kDrop, a.value()), 1u);
  EXPECT_EQ(sim.probe.values(b, Did::kDisconnect), (std::vector<std::int64_t>{a.value()}));
}

// ---------------------------------------------------------------------------------------------
// Pause and resume.

TEST(WorldPause, HeldEventsRunAtResumeInArrivalOrder) {
  Sim sim(1, fixed_latency());
  const NodeId b = sim.world.add_node(
      "b", factory<OneShots>(sim.probe, std::vector<TimerPlan>{{5 * kMs, 77}}, std::vector<CancelPlan>{}));
  const NodeId a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, kMs));
  sim.world.start(b);
  sim.world.start(a);
  sim.world.schedule(2 * kMs + 500 * kUs, "pause b", [&] { sim.world.pause(b); });
  sim.world.schedule(8 * kMs + 500 * kUs, "resume b", [&] { sim.world.resume(b); });
  sim.world.run_until(8 * kMs + 400 * kUs);
  EXPECT_EQ(sim.world.state(b), NodeState::kPaused);
  EXPECT_EQ(sim.world.node(b), nullptr);
  EXPECT_EQ(sim.probe.values(b, Did::kRequest), (std::vector<std::int64_t>{1, 2}));
  EXPECT_TRUE(sim.probe.of(b, Did::kTimer).empty());

  sim.world.run_until(9 * kMs + 500 * kUs);
  // Arrivals during the pause: pings 3..8 at k ms + 0.1 ms and the timer at 5 ms.
  std::vector<std::pair<Did, std::int64_t>> at_resume;
  for (const Seen& s : sim.probe.seen) {
    if (s.node != b.value() || s.at != 8 * kMs + 500 * kUs) continue;
    at_resume.emplace_back(s.did, s.value);
    EXPECT_EQ(s.local, 8 * kMs + 500 * kUs);
  }
  const std::vector<std::pair<Did, std::int64_t>> expected{
      {Did::kRequest, 3}, {Did::kRequest, 4}, {Did::kTimer, 77}, {Did::kRequest, 5},
      {Did::kRequest, 6}, {Did::kRequest, 7}, {Did::kRequest, 8}};
  EXPECT_EQ(at_resume, expected);
  EXPECT_EQ(sim.probe.times(b, Did::kRequest).back(), 9 * kMs + kLatency);  // ping 9: on time
}

TEST(WorldPause, LocalTimersAreLateByThePause) {
  Sim sim;
  const NodeId n = sim.world.add_node("n", factory<Ticker>(sim.probe, kMs));
  sim.world.start(n);
  sim.world.schedule(2 * kMs + 500 * kUs, "pause", [&] { sim.world.pause(n); });
  sim.world.schedule(6 * kMs + 200 * kUs, "resume", [&] { sim.world.resume(n); });
  sim.world.run_until(8 * kMs + 500 * kUs);
  // The tick due at 3 ms runs at resume; the next is armed from there.
  EXPECT_EQ(sim.probe.times(n, Did::kTimer),
            (std::vector<Nanos>{kMs, 2 * kMs, 6 * kMs + 200 * kUs, 7 * kMs + 200 * kUs, 8 * kMs + 200 * kUs}));
}

TEST(WorldPause, TimerCancelledBeforeItsHeldEventRunsNeverFires) {
  // b arms a timer for 5 ms and cancels it when any message arrives. Without a pause the ping
  // at 3.1 ms cancels it in time; with b paused from 1 ms to 6 ms, the ping and the timer are
  // both held and replayed in arrival order, so the ping's handler still cancels the timer
  // before it runs. Env::cancel_timer: a cancelled timer's on_timer never runs.
  std::uint64_t events[2] = {0, 0};
  for (const bool paused : {false, true}) {
    SCOPED_TRACE(paused ? "paused" : "not paused");
    Sim sim(1, fixed_latency());
    const NodeId b = sim.world.add_node(
        "b", factory<OneShots>(sim.probe, std::vector<TimerPlan>{{5 * kMs, 7}},
                               std::vector<CancelPlan>{{kOnMessage, 7}}));
    const NodeId a = sim.world.add_node("a", factory<Pinger>(sim.probe, b, 3 * kMs));
    sim.world.start(b);
    sim.world.start(a);
    if (paused) {
      sim.world.schedule(kMs, "pause", [&] { sim.world.pause(b); });
      sim.world.schedule(6 * kMs, "resume", [&] { sim.world.resume(b); });
    }
    sim.world.run_until(20 * kMs);
    ASSERT_FALSE(sim.probe.of(b, Did::kRequest).empty());
    EXPECT_TRUE(sim.probe.of(b, Did::kTimer).empty());
    events[paused ? 1 : 0] = sim.world.events_run();
  }
  // Nor does its event run again: the cancel after the resume removes the event pushed again.
  // The pause adds four events: its two actions, and the ping and the timer each held once.
  EXPECT_EQ(events[1], events[0] + 4);
}

TEST(WorldPause, DiskDurabilityIsNotDelayedByAPausedProcess) {
  // SimDisk's FsyncSink contract: the simulator calls `complete` `delay` after the fsync.
  // A paused process does not stop the disk: the data is durable on time, and only the node's
  // on_fsync waits for the resume.
  Sim sim;
  const NodeId n = sim.world.add_node("n", factory<Writer>(sim.probe));
  sim.world.start(n);  // appends "s" and fsyncs it
  sim.world.pause(n);
  sim.world.run_until(100 * kMs);  // far beyond any fsync latency of the default disk
  EXPECT_TRUE(sim.probe.of(n, Did::kFsync).empty());
  EXPECT_EQ(sim.world.disk(n).durable_size(Writer::kFile), std::optional<std::uint64_t>(1));
  sim.world.power_loss(n);
  sim.world.restart(n);
  EXPECT_EQ(sim.probe.disk_at_start, (std::vector<std::string>{"", "s"}));
}

}  // namespace
}  // namespace logsim::sim
