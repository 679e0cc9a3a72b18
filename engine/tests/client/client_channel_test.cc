// The client channel (client_channel.h) and the metadata refresh built on it (metadata.h):
// correlation ids, bootstrap servers, a request table's timeouts, waits, late answers and
// disconnects, and a refresh's pacing, timeouts and broken connections.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/base/assert.h"
#include "engine/client/client_channel.h"
#include "engine/client/metadata.h"
#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine {
namespace {

using clienttest::FakeEnv;
using clienttest::metadata_response;

const NodeId kB1(1);
const NodeId kB2(2);
const NodeId kB3(3);

enum class TestTimer : std::uint64_t { kTimeout = 7, kWait = 8 };

ChannelConfig config() {
  ChannelConfig c;
  c.bootstrap_servers = {kB1, kB2, kB3};
  c.request_timeout_ms = 1000;
  c.retry_backoff_ms = 100;
  return c;
}

// A client of one kind of request, keyed by a number, as AdminClient and GroupAdmin use the
// table: a timed-out attempt and a wait's end come back to it through its Timers.
struct Client {
  FakeEnv env;
  TimerMux mux{env};
  ClientChannel channel{env, config(), 500};
  Timers<TestTimer> timers{mux, [this](TimerId id, TestTimer) { on_timer(id); }};
  RequestTable<int, TestTimer> table{channel, timers, TestTimer::kTimeout, TestTimer::kWait};
  std::map<int, RequestSlot> slots;
  std::vector<int> timed_out;
  std::vector<int> waited;

  void on_timer(TimerId id) {
    const auto key = table.fired(id);
    ASSERT_TRUE(key.has_value());
    RequestSlot& slot = slots.at(*key);
    slot.timer = 0;
    (slot.in_flight() ? timed_out : waited).push_back(*key);
  }
  CorrelationId send(int key, NodeId to) { return table.send(key, slots[key], to, ListGroupsRequest{0}); }
  void advance_to(Nanos t) {
    while (auto timer = env.pop_due(t)) {
      env.set_now(timer->deadline);
      mux.on_timer(timer->id, timer->tag);
    }
    env.set_now(t);
  }
  std::size_t live_timers() const {
    std::size_t n = 0;
    for (const auto& t : env.timers) n += t.cancelled ? 0 : 1;
    return n;
  }
};

CorrelationId correlation_of(const Message& msg) {
  return std::visit([](const auto& m) -> CorrelationId {
    if constexpr (requires { m.correlation_id; }) return m.correlation_id;
    else return -1;
  }, msg);
}

TEST(ClientChannel, NumbersRequestsFromItsStartAndPicksBootstrapServers) {
  FakeEnv env;
  ClientChannel channel(env, config(), 41);
  EXPECT_EQ(channel.send(kB2, ListGroupsRequest{0}), 42);
  EXPECT_EQ(channel.next_correlation(), 43);
  EXPECT_EQ(channel.send(kB3, HeartbeatRequest{}), 44);
  ASSERT_EQ(env.sent.size(), 2u);
  EXPECT_EQ(env.sent[0].to, kB2);
  EXPECT_EQ(correlation_of(env.sent[0].msg), 42);
  EXPECT_EQ(env.sent[1].to, kB3);
  EXPECT_EQ(correlation_of(env.sent[1].msg), 44);
  // Round robin draws nothing; any_bootstrap draws from the node's stream, one draw a pick.
  EXPECT_EQ(channel.next_bootstrap(), kB1);
  EXPECT_EQ(channel.next_bootstrap(), kB2);
  EXPECT_EQ(channel.next_bootstrap(), kB3);
  EXPECT_EQ(channel.next_bootstrap(), kB1);
  Rng same(42);  // FakeEnv's seed
  for (int i = 0; i < 20; ++i) {
    const std::vector<NodeId> servers = config().bootstrap_servers;
    EXPECT_EQ(channel.any_bootstrap(), servers[same.uniform_u64(servers.size())]);
  }
}

TEST(ClientChannel, FreshCorrelationBasesDifferPerDraw) {
  Rng rng(7);
  const CorrelationId a = fresh_correlation_base(rng);
  const CorrelationId b = fresh_correlation_base(rng);
  EXPECT_NE(a, b);
  EXPECT_GE(a, 0);
  EXPECT_LT(a, CorrelationId{1} << 30);
}

TEST(RequestTable, AnAnswerFindsItsAttemptAndALateOneFindsNothing) {
  Client c;
  const CorrelationId first = c.send(1, kB1);
  EXPECT_EQ(first, 501);
  EXPECT_EQ(c.table.find(first), 1);
  EXPECT_EQ(c.table.find(first + 1), std::nullopt);
  EXPECT_TRUE(c.slots[1].in_flight());
  EXPECT_EQ(c.slots[1].target, kB1);
  // The answer ends the attempt: its timeout is disarmed, and a second copy of it is late.
  c.table.end(c.slots[1]);
  EXPECT_TRUE(c.slots[1].idle());
  EXPECT_EQ(c.table.find(first), std::nullopt);
  EXPECT_EQ(c.live_timers(), 0u);
  c.advance_to(seconds(10));
  EXPECT_TRUE(c.timed_out.empty());
}

TEST(RequestTable, AnAttemptTimesOutAfterTheRequestTimeoutAndTheNextHasANewId) {
  Client c;
  const CorrelationId first = c.send(3, kB2);
  ASSERT_EQ(c.env.timers.size(), 1u);
  EXPECT_EQ(c.env.timers[0].tag, static_cast<std::uint64_t>(TestTimer::kTimeout));
  c.advance_to(millis(999));
  EXPECT_TRUE(c.timed_out.empty());
  c.advance_to(millis(1000));
  EXPECT_EQ(c.timed_out, std::vector<int>{3});
  // The client gives the attempt up and sends the next: the first attempt's answer is late.
  c.table.end(c.slots[3]);
  const CorrelationId second = c.send(3, kB3);
  EXPECT_NE(second, first);
  EXPECT_EQ(c.table.find(first), std::nullopt);
  EXPECT_EQ(c.table.find(second), 3);
  EXPECT_EQ(c.env.sent.size(), 2u);
  EXPECT_EQ(c.env.sent.back().to, kB3);
}

TEST(RequestTable, AnAttemptMayHaveATimeoutOfItsOwn) {
  Client c;
  c.table.send(5, c.slots[5], kB1, ListGroupsRequest{0}, millis(250));
  c.advance_to(millis(249));
  EXPECT_TRUE(c.timed_out.empty());
  c.advance_to(millis(250));
  EXPECT_EQ(c.timed_out, std::vector<int>{5});
}

TEST(RequestTable, AWaitLastsTheRetryBackoff) {
  Client c;
  c.send(2, kB1);
  c.table.end(c.slots[2]);  // say, a retriable error
  c.table.wait(2, c.slots[2]);
  EXPECT_FALSE(c.slots[2].idle());
  EXPECT_FALSE(c.slots[2].in_flight());
  EXPECT_EQ(c.env.timers.back().tag, static_cast<std::uint64_t>(TestTimer::kWait));
  c.advance_to(millis(99));
  EXPECT_TRUE(c.waited.empty());
  c.advance_to(millis(100));
  EXPECT_EQ(c.waited, std::vector<int>{2});
  EXPECT_TRUE(c.timed_out.empty());
  EXPECT_TRUE(c.slots[2].idle());
  // A wait of another length, and a wait ended early (the request was given up) never fires.
  c.table.wait(2, c.slots[2], millis(30));
  c.table.end(c.slots[2]);
  c.advance_to(seconds(5));
  EXPECT_EQ(c.waited, std::vector<int>{2});
}

TEST(RequestTable, ADisconnectNamesTheAttemptsInFlightToThatBrokerInKeyOrder) {
  Client c;
  c.send(9, kB1);
  c.send(4, kB2);
  c.send(6, kB1);
  c.send(1, kB1);
  c.table.end(c.slots[1]);
  c.table.wait(1, c.slots[1]);  // waiting: nothing in flight to kB1
  EXPECT_EQ(c.table.in_flight_to(kB1), (std::vector<int>{6, 9}));
  EXPECT_EQ(c.table.in_flight_to(kB2), std::vector<int>{4});
  EXPECT_TRUE(c.table.in_flight_to(kB3).empty());
  EXPECT_EQ(c.table.in_flight(), 3u);
}

TEST(RequestTable, RefusesASecondAttemptWhileOneIsInFlightOrWaitedFor) {
  Client c;
  c.send(1, kB1);
  EXPECT_THROW(c.send(1, kB2), InvariantError);
  EXPECT_THROW(c.table.wait(1, c.slots[1]), InvariantError);
  c.table.end(c.slots[1]);
  c.table.wait(1, c.slots[1]);
  EXPECT_THROW(c.send(1, kB2), InvariantError);
}

// ---- The metadata refresh.

struct Refresh {
  FakeEnv env;
  TimerMux mux{env};
  ClientChannel channel{env, config(), 0};
  std::vector<std::string> topics{"t"};
  MetadataRefresh refresh{channel, mux, [this] { return topics; }};

  void advance_to(Nanos t) {
    while (auto timer = env.pop_due(t)) {
      env.set_now(timer->deadline);
      mux.on_timer(timer->id, timer->tag);
    }
    env.set_now(t);
  }
  const MetadataRequest& last() {
    const auto* m = std::get_if<MetadataRequest>(&env.sent.back().msg);
    EXPECT_NE(m, nullptr);
    return *m;
  }
};

TEST(MetadataRefresh, AsksOnceAndTakesOnlyTheAnswerToItsRequest) {
  Refresh r;
  r.refresh.request();
  ASSERT_EQ(r.env.sent.size(), 1u);
  const MetadataRequest req = r.last();
  EXPECT_EQ(req.topics, std::vector<std::string>{"t"});
  EXPECT_EQ(r.env.timers.back().tag, static_cast<std::uint64_t>(MetadataTimer::kRetry));
  r.refresh.request();  // in flight: nothing more
  EXPECT_EQ(r.env.sent.size(), 1u);
  EXPECT_FALSE(r.refresh.on_response(metadata_response(req.correlation_id + 1, "t", {kB2}, {kB1, kB2})));
  EXPECT_FALSE(r.refresh.cache().knows("t"));
  EXPECT_TRUE(r.refresh.on_response(metadata_response(req.correlation_id, "t", {kB2}, {kB1, kB2})));
  EXPECT_EQ(r.refresh.cache().leader("t", PartitionId(0)), kB2);
  // A duplicate of the answer is no longer this refresh's, and its timeout never fires.
  EXPECT_FALSE(r.refresh.on_response(metadata_response(req.correlation_id, "t", {kB3}, {kB1, kB3})));
  EXPECT_EQ(r.refresh.cache().leader("t", PartitionId(0)), kB2);
  r.advance_to(seconds(10));
  EXPECT_EQ(r.env.sent.size(), 1u);
}

TEST(MetadataRefresh, AsksNoMoreOftenThanTheRetryBackoff) {
  Refresh r;
  r.refresh.request();
  r.env.set_now(millis(30));
  ASSERT_TRUE(r.refresh.on_response(metadata_response(r.last().correlation_id, "t", {kB1}, {kB1})));
  r.refresh.request();  // 30 ms after the last: waits until 100 ms
  EXPECT_EQ(r.env.sent.size(), 1u);
  r.refresh.request();
  r.advance_to(millis(99));
  EXPECT_EQ(r.env.sent.size(), 1u);
  r.advance_to(millis(100));
  ASSERT_EQ(r.env.sent.size(), 2u);
  EXPECT_EQ(r.env.sent.back().at, millis(100));
}

TEST(MetadataRefresh, AsksAgainWhenTheRequestTimesOutAndIgnoresTheLateAnswer) {
  Refresh r;
  r.refresh.request();
  const CorrelationId first = r.last().correlation_id;
  r.advance_to(millis(999));
  EXPECT_EQ(r.env.sent.size(), 1u);
  r.topics = {"t", "u"};
  r.advance_to(millis(1000));
  ASSERT_EQ(r.env.sent.size(), 2u);
  EXPECT_EQ(r.last().topics, (std::vector<std::string>{"t", "u"}));  // asked when sent
  EXPECT_NE(r.last().correlation_id, first);
  EXPECT_FALSE(r.refresh.on_response(metadata_response(first, "t", {kB1}, {kB1})));
  EXPECT_FALSE(r.refresh.cache().knows("t"));
  EXPECT_TRUE(r.refresh.on_response(metadata_response(r.last().correlation_id, "t", {kB1}, {kB1})));
}

TEST(MetadataRefresh, ABrokenConnectionAsksAgainAfterTheBackoff) {
  Refresh r;
  r.refresh.request();
  const NodeId target = r.env.sent.back().to;
  const NodeId other = target == kB1 ? kB2 : kB1;
  r.refresh.on_disconnect(other);  // not where the request went: it stays in flight
  r.env.set_now(millis(400));
  r.refresh.on_disconnect(target);
  r.refresh.request();  // waiting: nothing now
  EXPECT_EQ(r.env.sent.size(), 1u);
  r.advance_to(millis(499));
  EXPECT_EQ(r.env.sent.size(), 1u);
  r.advance_to(millis(500));
  ASSERT_EQ(r.env.sent.size(), 2u);
  // The broken attempt's answer (had it come) is late; the timeout of the first never fires.
  r.advance_to(millis(1400));
  EXPECT_EQ(r.env.sent.size(), 2u);
}

}  // namespace
}  // namespace logsim::engine
