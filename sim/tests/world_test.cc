// Tests of the World: timers and the run loop, node lifecycle (crash, power loss, stop,
// restart, pause), clock skew, network faults, the trace and its hash.
//
// Small test nodes write what they see into a Probe that the test owns, so the record outlives
// the node objects the World destroys at crashes and stops. Links have a fixed latency unless a
// test needs randomness, so every expected time below can be computed by hand.
#include "sim/world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/base/assert.h"
#include "engine/env/env.h"
#include "engine/protocol/messages.h"

namespace logsim::sim {
namespace {

constexpr Nanos kUs = kNanosPerMicro;
constexpr Nanos kMs = kNanosPerMilli;
constexpr Nanos kLatency = 100 * kUs;  // of every link in the fixed-latency worlds


// ---------------------------------------------------------------------------------------------
// What the test nodes did.

enum class Did : std::uint8_t { kStart, kTimer, kRequest, kResponse, kFsync, kDisconnect, kStop, kDestroy };

struct Seen {
  Did did;
  std::int32_t node;
  int object;          // which node object (1 = the first built in this probe)
  Nanos at;            // true time (-1 for kDestroy: the world may be going away)
  Nanos local;         // the node's Env::now()
  std::int64_t value;  // timer tag, correlation id, fsync token or peer id
};

struct Probe {
  const World* world = nullptr;
  int built = 0;
  int destroyed = 0;
  std::vector<Seen> seen;
  std::vector<std::string> disk_at_start;  // the node's "log" file at each on_start

  std::vector<Seen> of(NodeId node, Did did) const {
    std::vector<Seen> out;
    for (const Seen& s : seen) {
      if (s.node == node.value() && s.did == did) out.push_back(s);
    }
    return out;
  }
  std::vector<std::int64_t> values(NodeId node, Did did) const {
    std::vector<std::int64_t> out;
    for (const Seen& s : of(node, did)) out.push_back(s.value);
    return out;
  }
  std::vector<Nanos> times(NodeId node, Did did) const {
    std::vector<Nanos> out;
    for (const Seen& s : of(node, did)) out.push_back(s.at);
    return out;
  }
};

// A world and the probe its nodes write to. The probe is declared first so that it outlives
// the node objects the world destroys last.
struct Sim {
  Probe probe;
  World world;
  explicit Sim(std::uint64_t seed = 1, WorldOptions options = {}) : world(seed, options) {
    probe.world = &world;
  }
};

// Links with exactly kLatency and no randomness in their timing.
WorldOptions fixed_latency(bool record_trace = false) {
  WorldOptions o;
  o.network.latency_min_ns = kLatency;
  o.network.latency_mean_ns = 0;
  o.network.tail_probability = 0.0;
  o.record_trace = record_trace;
  return o;
}

// ---------------------------------------------------------------------------------------------
// Test nodes.

// Records every callback (and its destruction) into the probe.
class TestNode : public Node {
 public:
  TestNode(Env& env, Probe& probe) : env_(env), probe_(probe), self_(env.self()), object_(++probe.built) {}
  ~TestNode() override {
    ++probe_.destroyed;
    probe_.seen.push_back(Seen{Did::kDestroy, self_.value(), object_, -1, -1, 0});
  }
  void on_start() override { note(Did::kStart, 0); }
  void on_message(NodeId /*from*/, const Message& msg) override {
    if (const auto* req = std::get_if<MetadataRequest>(&msg)) note(Did::kRequest, req->correlation_id);
    if (const auto* resp = std::get_if<MetadataResponse>(&msg)) note(Did::kResponse, resp->correlation_id);
  }
  void on_timer(TimerId /*id*/, std::uint64_t tag) override { note(Did::kTimer, static_cast<std::int64_t>(tag)); }
  void on_fsync(std::uint64_t token) override { note(Did::kFsync, static_cast<std::int64_t>(token)); }
  void on_disconnect(NodeId peer) override { note(Did::kDisconnect, peer.value()); }
  void on_stop() override { note(Did::kStop, 0); }

  Nanos local_now() const { return env_.now(); }

 protected:
  void note(Did did, std::int64_t value) {
    probe_.seen.push_back(Seen{did, self_.value(), object_, probe_.world->now(), env_.now(), value});
  }
  Env& env_;
  Probe& probe_;

 private:
  NodeId self_;
  int object_;
};

// Answers every MetadataRequest with a MetadataResponse of the same correlation id.
class Echo : public TestNode {
 public:
  using TestNode::TestNode;
  void on_message(NodeId from, const Message& msg) override {
    TestNode::on_message(from, msg);
    if (const auto* req = std::get_if<MetadataRequest>(&msg)) {
      env_.send(from, MetadataResponse{req->correlation_id, {}, {}});
    }
  }
};

// Sends a ping (correlation ids 1, 2, ...) to `peer` every `period`, starting one period after
// start, and answers pings like Echo.
class Pinger : public Echo {
 public:
  Pinger(Env& env, Probe& probe, NodeId peer, Nanos period) : Echo(env, probe), peer_(peer), period_(period) {}
  void on_start() override {
    Echo::on_start();
    env_.set_timer(period_, kPing);
  }
  void on_timer(TimerId id, std::uint64_t tag) override {
    Echo::on_timer(id, tag);
    env_.send(peer_, MetadataRequest{++sent_, {}});
    env_.set_timer(period_, kPing);
  }

 private:
  static constexpr std::uint64_t kPing = 1;
  NodeId peer_;
  Nanos period_;
  CorrelationId sent_ = 0;
};

// A timer every `period`, forever.
class Ticker : public TestNode {
 public:
  Ticker(Env& env, Probe& probe, Nanos period) : TestNode(env, probe), period_(period) {}
  void on_start() override {
    TestNode::on_start();
    env_.set_timer(period_, 1);
  }
  void on_timer(TimerId id, std::uint64_t tag) override {
    TestNode::on_timer(id, tag);
    env_.set_timer(period_, 1);
  }

 private:
  Nanos period_;
};

struct TimerPlan {
  Nanos delay;
  std::uint64_t tag;
};
// When `trigger` happens, cancel the timer tagged `victim`. Triggers: a timer tag, kAtStart,
// or kOnMessage (any message).
struct CancelPlan {
  std::uint64_t trigger;
  std::uint64_t victim;
};
constexpr std::uint64_t kAtStart = 1000;
constexpr std::uint64_t kOnMessage = 1001;

// Arms one-shot timers at start and cancels some of them on cue.
class OneShots : public TestNode {
 public:
  OneShots(Env& env, Probe& probe, std::vector<TimerPlan> timers, std::vector<CancelPlan> cancels)
      : TestNode(env, probe), timers_(std::move(timers)), cancels_(std::move(cancels)) {}
  void on_start() override {
    TestNode::on_start();
    for (const TimerPlan& t : timers_) ids_.push_back(env_.set_timer(t.delay, t.tag));
    cancel_for(kAtStart);
  }
  void on_timer(TimerId id, std::uint64_t tag) override {
    TestNode::on_timer(id, tag);
    cancel_for(tag);
  }
  void on_message(NodeId from, const Message& msg) override {
    TestNode::on_message(from, msg);
    cancel_for(kOnMessage);
  }

 private:
  void cancel_for(std::uint64_t trigger) {
    for (const CancelPlan& c : cancels_) {
      if (c.trigger != trigger) continue;
      for (std::size_t i = 0; i < timers_.size(); ++i) {
        if (timers_[i].tag == c.victim) env_.cancel_timer(ids_[i]);
      }
    }
  }
  std::vector<TimerPlan> timers_;
  std::vector<CancelPlan> cancels_;
  std::vector<TimerId> ids_;
};

// At start: records its "log" file, appends "s" and fsyncs it (token 1). When that fsync
// completes, appends "u" and does not fsync it.
class Writer : public TestNode {
 public:
  using TestNode::TestNode;
  void on_start() override {
    TestNode::on_start();
    Disk& d = env_.disk();
    probe_.disk_at_start.push_back(d.read(kFile, 0, d.size(kFile)));
    d.append(kFile, "s");
    d.fsync(kFile, 1);
  }
  void on_fsync(std::uint64_t token) override {
    TestNode::on_fsync(token);
    if (token == 1) env_.disk().append(kFile, "u");
  }
  static constexpr const char* kFile = "log";
};

// On a graceful stop: sends a last request (correlation id 999) to `peer` and arms a timer
// (tag 42) that must never fire.
class Stopper : public TestNode {
 public:
  Stopper(Env& env, Probe& probe, NodeId peer) : TestNode(env, probe), peer_(peer) {}
  void on_stop() override {
    TestNode::on_stop();
    env_.send(peer_, MetadataRequest{999, {}});
    env_.set_timer(kMs, 42);
  }

 private:
  NodeId peer_;
};

// Arms a chain of timers: delays[0] at start, each next one when the previous fires. Each
// firing is recorded with value = the local deadline (local time at arming + delay).
class LocalTimers : public TestNode {
 public:
  LocalTimers(Env& env, Probe& probe, std::vector<Nanos> delays)
      : TestNode(env, probe), delays_(std::move(delays)) {}
  void on_start() override { arm(); }
  void on_timer(TimerId /*id*/, std::uint64_t /*tag*/) override {
    note(Did::kTimer, deadline_);
    arm();
  }

 private:
  void arm() {
    if (next_ >= delays_.size()) return;
    deadline_ = env_.now() + delays_[next_];
    env_.set_timer(delays_[next_], next_);
    ++next_;
  }
  std::vector<Nanos> delays_;
  std::size_t next_ = 0;
  Nanos deadline_ = 0;
};

template <typename N, typename... Args>
NodeFactory factory(Probe& probe, Args... args) {
  return [&probe, args...](Env& env) -> std::unique_ptr<Node> {
    return std::make_unique<N>(env, probe, args...);
  };
}

std::size_t count_kind(const Trace& trace, TraceKind kind, std::int32_t node = -2) {
  std::size_t n = 0;
  for (const TraceEntry& e : trace.entries()) {
    if (e.kind == kind && (node == -2 || e.node == node)) ++n;
  }
  return n;
}

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

// ---------------------------------------------------------------------------------------------
// The trace and its hash.

// Three nodes pinging round a ring over links with random latency, with a crash, a restart and
// a partition on the way, so the trace holds every kind of entry.
struct Ring {
  Probe probe;
  std::unique_ptr<World> world;
};

std::unique_ptr<Ring> run_ring(std::uint64_t seed, bool record) {
  auto ring = std::make_unique<Ring>();
  WorldOptions o;
  o.record_trace = record;
  o.network.tail_probability = 0.05;
  ring->world = std::make_unique<World>(seed, o);
  World& w = *ring->world;
  ring->probe.world = &w;
  const std::vector<NodeId> ids{NodeId(0), NodeId(1), NodeId(2)};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    w.add_node("n" + std::to_string(i), factory<Pinger>(ring->probe, ids[(i + 1) % ids.size()], kMs));
    w.start(ids[i]);
  }
  w.schedule(20 * kMs, "crash n1", [&w] { w.crash(NodeId(1)); });
  w.schedule(30 * kMs, "restart n1", [&w] { w.restart(NodeId(1)); });
  w.schedule(40 * kMs, "cut n2", [&w] { w.network_fault("isolate n2", [](Network& n) { n.isolate(NodeId(2)); }); });
  w.schedule(50 * kMs, "heal", [&w] { w.network_fault("heal", [](Network& n) { n.heal(); }); });
  w.run_until(100 * kMs);
  return ring;
}

bool same_entry(const TraceEntry& x, const TraceEntry& y) {
  return x.index == y.index && x.at == y.at && x.kind == y.kind && x.node == y.node && x.peer == y.peer &&
         x.detail == y.detail && x.text == y.text;
}

TEST(WorldTrace, SameSeedSameHashAndEntries) {
  const auto one = run_ring(7, true);
  const auto two = run_ring(7, true);
  const Trace& x = one->world->trace();
  const Trace& y = two->world->trace();
  EXPECT_EQ(x.hash(), y.hash());
  ASSERT_EQ(x.size(), y.size());
  ASSERT_EQ(x.entries().size(), y.entries().size());
  for (std::size_t i = 0; i < x.entries().size(); ++i) {
    ASSERT_TRUE(same_entry(x.entries()[i], y.entries()[i])) << format_entry(x.entries()[i]) << "\n vs "
                                                             << format_entry(y.entries()[i]);
  }
  EXPECT_EQ(first_divergence(x, y), std::nullopt);
  // Every kind of entry was exercised.
  for (const TraceKind k : {TraceKind::kDeliver, TraceKind::kDrop, TraceKind::kTimer, TraceKind::kDisconnect,
                            TraceKind::kFault, TraceKind::kAction}) {
    EXPECT_GT(count_kind(x, k), 0u) << trace_kind_name(k);
  }
}

TEST(WorldTrace, RecordedEntriesMatchSizeInOrder) {
  const auto ring = run_ring(7, true);
  const Trace& t = ring->world->trace();
  ASSERT_GT(t.size(), 300u);
  ASSERT_EQ(t.entries().size(), t.size());
  for (std::size_t i = 0; i < t.entries().size(); ++i) {
    ASSERT_EQ(t.entries()[i].index, i);
    if (i > 0) {
      ASSERT_GE(t.entries()[i].at, t.entries()[i - 1].at);
    }
  }
  EXPECT_EQ(format_entry(t.entries()[0]).rfind("#0 t=0.000000000s fault node=0", 0), 0u)
      << format_entry(t.entries()[0]);
}

TEST(WorldTrace, HashIsTheSameWhetherRecordingOrNot) {
  const auto recorded = run_ring(7, true);
  const auto bare = run_ring(7, false);
  EXPECT_EQ(recorded->world->trace().hash(), bare->world->trace().hash());
  EXPECT_EQ(recorded->world->trace().size(), bare->world->trace().size());
  EXPECT_TRUE(bare->world->trace().entries().empty());
  EXPECT_FALSE(bare->world->trace().recording());
}

TEST(WorldTrace, DifferentSeedsDivergeAndFirstDivergenceNamesWhere) {
  const auto one = run_ring(7, true);
  const auto two = run_ring(8, true);
  const Trace& x = one->world->trace();
  const Trace& y = two->world->trace();
  EXPECT_NE(x.hash(), y.hash());
  const std::optional<std::uint64_t> at = first_divergence(x, y);
  ASSERT_TRUE(at.has_value());
  // Independently: the first index where the hashed fields differ (or the shorter length).
  const std::size_t n = std::min(x.entries().size(), y.entries().size());
  std::size_t expected = n;
  for (std::size_t i = 0; i < n; ++i) {
    const TraceEntry& p = x.entries()[i];
    const TraceEntry& q = y.entries()[i];
    if (p.at != q.at || p.kind != q.kind || p.node != q.node || p.peer != q.peer || p.detail != q.detail) {
      expected = i;
      break;
    }
  }
  EXPECT_EQ(*at, expected);
  EXPECT_GT(*at, 0u);  // the starts are scripted, so the runs agree at first
  EXPECT_EQ(first_divergence(y, x), at);
}

}  // namespace
}  // namespace logsim::sim
