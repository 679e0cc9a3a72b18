// Fixtures the World tests share: a Probe that test nodes write what they see into (it
// outlives the node objects the World destroys at crashes and stops), the test nodes, a Sim
// (a world and its probe) and fixed-latency options, so every expected time in the tests can
// be computed by hand.
#pragma once

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
#include "sim/world.h"

namespace logsim::sim::world_fixtures {

inline constexpr Nanos kUs = kNanosPerMicro;
inline constexpr Nanos kMs = kNanosPerMilli;
inline constexpr Nanos kLatency = 100 * kUs;  // of every link in the fixed-latency worlds

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
inline WorldOptions fixed_latency(bool record_trace = false) {
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

// Answers every MetadataRequest `delay` after it arrived (as a broker holds a long-poll fetch
// or a JoinGroup), with the same correlation id.
class SlowEcho : public TestNode {
 public:
  SlowEcho(Env& env, Probe& probe, Nanos delay) : TestNode(env, probe), delay_(delay) {}
  void on_message(NodeId from, const Message& msg) override {
    TestNode::on_message(from, msg);
    if (const auto* req = std::get_if<MetadataRequest>(&msg)) {
      held_.push_back({from, req->correlation_id});
      env_.set_timer(delay_, 0);
    }
  }
  void on_timer(TimerId id, std::uint64_t tag) override {
    TestNode::on_timer(id, tag);
    const auto [to, correlation] = held_.front();
    held_.erase(held_.begin());
    env_.send(to, MetadataResponse{correlation, {}, {}});
  }

 private:
  Nanos delay_;
  std::vector<std::pair<NodeId, CorrelationId>> held_;  // in arrival order; timers fire in it
};

// Sends a ping (correlation ids 1, 2, ...) to `peer` every `period`, starting one period after
// start, and answers pings like Echo.
class Pinger : public Echo {
 public:
  Pinger(Env& env, Probe& probe, NodeId peer, Nanos period, CorrelationId last_id = 0)
      : Echo(env, probe), peer_(peer), period_(period), sent_(last_id) {}
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

// A Pinger whose ids start afresh in each incarnation, as a real client's do
// (fresh_correlation_base): from 1000 times the number of the node object, plus 1.
class FreshPinger : public Pinger {
 public:
  FreshPinger(Env& env, Probe& probe, NodeId peer, Nanos period)
      : Pinger(env, probe, peer, period, static_cast<CorrelationId>(1000 * (probe.built + 1))) {}
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

inline std::size_t count_kind(const Trace& trace, TraceKind kind, std::int32_t node = -2) {
  std::size_t n = 0;
  for (const TraceEntry& e : trace.entries()) {
    if (e.kind == kind && (node == -2 || e.node == node)) ++n;
  }
  return n;
}

}  // namespace logsim::sim::world_fixtures
