// A client's way to the brokers: what the producer, the consumer (both halves) and the admin
// clients share about sending requests and waiting for their answers.
//
// - Correlation ids (ClientChannel::next_correlation): one sequence per client incarnation,
//   going on from the number the client starts it at: fresh_correlation_base for a client that
//   a node restarts (an answer meant for the previous incarnation then matches nothing in
//   flight), or a fixed number that keeps one client's ids apart from another's on its node.
// - Bootstrap servers: any_bootstrap() draws one from the node's random stream (the producer's
//   and consumer's way); next_bootstrap() takes them round robin (the group admin's).
// - Requests (RequestTable): each request a client keeps (a batch, a partition's fetch, an admin
//   call) has a RequestSlot: the attempt in flight, with its correlation id, its broker and its
//   request timeout (request.timeout.ms), or the wait before the next attempt (retry.backoff.ms).
//   The table finds a request by the correlation id of an answer and by a fired timer. An answer
//   to an attempt that ended (timed out, broke, given up on) finds nothing: it is ignored.
// - Disconnects: a broken connection fails the attempts in flight to that broker
//   (RequestTable::in_flight_to). What follows (the next attempt after a wait, or the end of the
//   request) is the client's to decide, as Kafka's clients differ in it.
//
// Order: each operation makes exactly the Env calls it names, when the client calls it, so a
// client's sends, timers and random draws stay in the order it chose: they are in the trace.
// Not thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "engine/base/assert.h"
#include "engine/env/env.h"
#include "engine/env/rng.h"
#include "engine/timer_mux.h"

namespace logsim::engine {

// Where a client incarnation starts its correlation ids. Kafka matches a response to its
// request on one connection, and a restarted client opens new connections, so it never sees
// what a broker answers its previous incarnation. Here a broker answers a node id; the worlds
// (sim/, live/) route each answer back to the incarnation that asked (engine/env/answer_routes.h),
// and a restarted client (same node id) also starts at a fresh random base, so that an answer
// meant for its previous incarnation would match nothing it has in flight even in a world
// that did not.
inline CorrelationId fresh_correlation_base(Rng& rng) { return static_cast<CorrelationId>(rng.uniform_u64(CorrelationId{1} << 30)); }

// Puts `id` into a request's correlation_id.
void set_correlation(Message& request, CorrelationId id);

struct ChannelConfig {
  std::vector<NodeId> bootstrap_servers;    // bootstrap.servers (unused by a client that names its broker)
  std::int32_t request_timeout_ms = 30000;  // request.timeout.ms: one attempt
  std::int32_t retry_backoff_ms = 100;      // retry.backoff.ms: the wait before the next attempt
};

// The channel's part of a client's configuration.
template <typename ClientConfig>
ChannelConfig channel_config(const ClientConfig& c) {
  return ChannelConfig{c.bootstrap_servers, c.request_timeout_ms, c.retry_backoff_ms};
}

class ClientChannel {
 public:
  // The first request gets correlation id `last_correlation` + 1.
  ClientChannel(Env& env, ChannelConfig config, CorrelationId last_correlation)
      : env_(env), config_(std::move(config)), last_correlation_(last_correlation) {}
  ClientChannel(const ClientChannel&) = delete;
  ClientChannel& operator=(const ClientChannel&) = delete;

  Env& env() const { return env_; }
  Nanos request_timeout() const { return millis(config_.request_timeout_ms); }
  Nanos retry_backoff() const { return millis(config_.retry_backoff_ms); }

  CorrelationId next_correlation() { return ++last_correlation_; }
  // A bootstrap server drawn from the node's random stream (one draw).
  NodeId any_bootstrap();
  // The bootstrap servers in turn (no draw).
  NodeId next_bootstrap();
  // Sends `request` with the next correlation id; returns that id.
  CorrelationId send(NodeId to, Message request);

 private:
  Env& env_;
  ChannelConfig config_;
  CorrelationId last_correlation_;
  std::size_t next_bootstrap_ = 0;
};

// One request's state: the attempt in flight, or the wait before the next one, or nothing.
// The client keeps it with the request (in its batch, its partition, its call); its
// RequestTable arms and disarms the timer and indexes it.
struct RequestSlot {
  CorrelationId correlation = 0;  // of the attempt in flight; 0: none
  NodeId target{-1};              // where the latest attempt went (kept after it ends)
  TimerId timer = 0;              // the attempt's request timeout, or the wait; 0: none
  bool in_flight() const { return correlation != 0; }
  bool idle() const { return correlation == 0 && timer == 0; }
};

// A client's requests of one kind, by `Key`: their attempts by correlation id and their timers
// by id, armed on the client's own Timers with the client's tags (a request timeout's, and a
// wait's: the trace records them). Invariants: a slot's correlation id is in the table exactly
// while its attempt is in flight, and its timer exactly while it is armed; every slot of the
// table has its own key.
template <typename Key, typename Tag>
class RequestTable {
 public:
  RequestTable(ClientChannel& channel, Timers<Tag>& timers, Tag timeout_tag, Tag wait_tag)
      : channel_(channel), timers_(timers), timeout_tag_(timeout_tag), wait_tag_(wait_tag) {}
  RequestTable(const RequestTable&) = delete;
  RequestTable& operator=(const RequestTable&) = delete;

  // The next attempt of `key`: `request` goes to `to` with the next correlation id, then its
  // request timeout (`timeout`, else request.timeout.ms) is armed. Returns the id.
  CorrelationId send(const Key& key, RequestSlot& slot, NodeId to, Message request, std::optional<Nanos> timeout = std::nullopt) {
    LOGSIM_ASSERT(slot.idle(), "a request's next attempt while its last is in flight or waited for");
    const CorrelationId id = channel_.send(to, std::move(request));
    track(key, slot, id, to, timeout.value_or(channel_.request_timeout()));
    return id;
  }
  // For an attempt the client sends itself: records it as in flight with `correlation` to `to`
  // and arms its request timeout.
  void track(const Key& key, RequestSlot& slot, CorrelationId correlation, NodeId to, Nanos timeout) {
    LOGSIM_ASSERT(slot.idle(), "a request's next attempt while its last is in flight or waited for");
    slot.correlation = correlation;
    slot.target = to;
    by_correlation_.insert_or_assign(correlation, Attempt{key, to});
    arm(key, slot, timeout, timeout_tag_);
  }
  // Waits `delay` (retry.backoff.ms, by default) before the next attempt of `key`.
  void wait(const Key& key, RequestSlot& slot, std::optional<Nanos> delay = std::nullopt) {
    LOGSIM_ASSERT(slot.idle(), "a wait while an attempt is in flight or waited for");
    arm(key, slot, delay.value_or(channel_.retry_backoff()), wait_tag_);
  }
  // Ends what the slot has: the attempt in flight is forgotten (a late answer to it finds
  // nothing) and the timer disarmed.
  void end(RequestSlot& slot) {
    if (slot.correlation != 0) by_correlation_.erase(slot.correlation);
    slot.correlation = 0;
    if (slot.timer != 0) {
      timers_.cancel(slot.timer);
      by_timer_.erase(slot.timer);
    }
    slot.timer = 0;
  }

  // The request whose attempt in flight has this correlation id; nothing for a late answer.
  std::optional<Key> find(CorrelationId id) const {
    auto it = by_correlation_.find(id);
    if (it == by_correlation_.end()) return std::nullopt;
    return it->second.key;
  }
  // The request whose timer fired, now forgotten by the table; the client clears the slot's
  // `timer` when it finds the slot. A timeout when the slot is still in flight, else the wait's
  // end. Nothing for a timer that is not this table's.
  std::optional<Key> fired(TimerId id) {
    auto it = by_timer_.find(id);
    if (it == by_timer_.end()) return std::nullopt;
    Key key = std::move(it->second);
    by_timer_.erase(it);
    return key;
  }
  // The requests with an attempt in flight to `peer`, in key order: what a disconnect from it
  // fails.
  std::vector<Key> in_flight_to(NodeId peer) const {
    std::vector<Key> keys;
    for (const auto& [id, attempt] : by_correlation_) {
      if (attempt.target == peer) keys.push_back(attempt.key);
    }
    std::sort(keys.begin(), keys.end());
    return keys;
  }
  // Attempts in flight.
  std::size_t in_flight() const { return by_correlation_.size(); }

 private:
  struct Attempt {
    Key key;
    NodeId target;
  };

  void arm(const Key& key, RequestSlot& slot, Nanos delay, Tag tag) {
    slot.timer = timers_.set(delay, tag);
    by_timer_.insert_or_assign(slot.timer, key);
  }

  ClientChannel& channel_;
  Timers<Tag>& timers_;
  Tag timeout_tag_;
  Tag wait_tag_;
  std::map<CorrelationId, Attempt> by_correlation_;
  std::map<TimerId, Key> by_timer_;
};

}  // namespace logsim::engine
