// Replication: the leader's side (follower progress, ISR changes, the high watermark,
// completing acks=all produces) and the follower's side (truncation by leader epoch, fetching).
#include <algorithm>

#include "engine/broker/broker.h"
#include "engine/base/assert.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {
namespace {

// Notes the batches a follower appended in its producer state; a control batch's marker is
// read from its bytes.
void record_producers(Partition& p, const SharedBytes& bytes, const std::vector<BatchHeader>& headers) {
  std::uint64_t pos = 0;
  std::string batch;
  for (const BatchHeader& h : headers) {
    std::optional<TxnMarker> marker;
    if (h.control()) {
      batch.resize(static_cast<std::size_t>(h.size_bytes()));
      LOGSIM_ASSERT(bytes.copy_out(pos, batch.size(), batch.data()), "a fetched batch is cut short");
      marker = parse_control_batch(batch);
    }
    if (!h.control() || marker) p.producers.record(h, marker);
    pos += h.size_bytes();
  }
}

bool contains(const std::vector<NodeId>& v, NodeId x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TopicPartitionView key_of(const Partition& p) { return {p.state.topic, p.state.partition}; }

// Answers the produces the high watermark now covers: with success, or with `error` (only the
// error-after-append plant answers written records with an error).
void complete_produces(BrokerState& b, TopicPartitionView key, const Partition& p, ErrorCode error = ErrorCode::NONE) {
  auto it = b.pending_produces.find(key);
  if (it == b.pending_produces.end()) return;
  auto& pending = it->second;
  std::vector<std::function<void(ErrorCode)>> done;  // run after the loop: they may append
  for (auto w = pending.begin(); w != pending.end();) {
    if (w->required > p.high_watermark) {
      ++w;
      continue;
    }
    b.timers.cancel(w->timer);
    if (w->done) {
      done.push_back(std::move(w->done));
    } else {
      if (error != ErrorCode::NONE) {
        w->response.error = error;
        w->response.base_offset = Offset(-1);
      }
      b.env.send(w->from, w->response);
    }
    w = pending.erase(w);
  }
  for (auto& fn : done) fn(ErrorCode::NONE);
}

// Asks the controller to change the ISR; one change in flight per partition.
void propose_isr(BrokerState& b, Partition& p, std::vector<NodeId> isr) {
  if (!b.config.controller) return;
  const Nanos timeout = millis(b.config.request_timeout_ms);
  if (p.isr_change_in_flight && b.env.now() - p.isr_change_sent < timeout) return;
  p.isr_change_in_flight = true;
  p.isr_change_sent = b.env.now();
  b.env.send(*b.config.controller,
             AlterPartitionRequest{++b.next_correlation, b.env.self(), p.state.topic, p.state.partition,
                                   p.state.leader_epoch, p.state.partition_epoch, std::move(isr)});
}

void arm_follower_timer(BrokerState& b, Partition& p, Nanos after) {
  p.timer = b.timers.set(after, BrokerTimer::kFollower);
  b.follower_timers[p.timer] = &p;
}

void forget_follower_request(BrokerState& b, Partition& p) {
  b.follower_requests.erase(p.in_flight);
  p.in_flight = 0;
  b.timers.cancel(p.timer);
  b.follower_timers.erase(p.timer);
  p.timer = 0;
}

// Sends the follower's next request to its leader: OffsetsForLeaderEpoch while truncating,
// else a Fetch from the log end offset.
void send_next(BrokerState& b, Partition& p) {
  forget_follower_request(b, p);
  const NodeId leader = p.state.leader;
  if (leader.value() < 0 || p.phase == FollowerPhase::kIdle) return;
  p.in_flight = ++b.next_correlation;
  b.follower_requests[p.in_flight] = &p;
  if (p.phase == FollowerPhase::kTruncating) {
    b.env.send(leader, OffsetsForLeaderEpochRequest{p.in_flight, p.state.topic, p.state.partition,
                                                    p.state.leader_epoch, p.log->latest_epoch()});
  } else {
    FetchRequest req{p.in_flight, p.state.topic, p.state.partition, std::max(p.log->log_end_offset(), p.fetch_floor),
                     b.config.replica_fetch_max_records, b.config.replica_fetch_wait_max_ms, b.env.self(),
                     p.state.leader_epoch};
    b.env.send(leader, std::move(req));
  }
  arm_follower_timer(b, p, millis(b.config.request_timeout_ms + b.config.replica_fetch_wait_max_ms));
}

void back_off(BrokerState& b, Partition& p) {
  forget_follower_request(b, p);
  arm_follower_timer(b, p, millis(b.config.replica_fetch_backoff_ms));
}

// The follower's partition a response answers, if it is still awaited.
Partition* awaited(BrokerState& b, CorrelationId id) {
  Partition* const* found = b.follower_requests.find(id);
  if (found == nullptr) return nullptr;
  LOGSIM_ASSERT((*found)->in_flight == id, "a follower request's entry names the replica awaiting it");
  return *found;
}

}  // namespace

void note_follower_fetch(BrokerState& b, Partition& p, NodeId follower, Offset fetch_offset) {
  auto it = p.followers.find(follower);
  if (it == p.followers.end() || fetch_offset > p.log->log_end_offset()) return;
  it->second.log_end_offset = fetch_offset;
  if (fetch_offset >= p.log->log_end_offset()) it->second.last_caught_up = b.env.now();
  // A follower that reached the high watermark rejoins the ISR.
  if (!contains(p.state.isr, follower) && fetch_offset >= p.high_watermark) {
    std::vector<NodeId> isr = p.state.isr;
    isr.push_back(follower);
    propose_isr(b, p, std::move(isr));
  }
  maybe_advance_high_watermark(b, p);
}

void maybe_advance_high_watermark(BrokerState& b, Partition& p, ErrorCode answer) {
  if (!p.led_by(b.env.self())) return;
  // The rule: min log end offset over the ISR, never while the ISR is below min.insync.replicas.
  if (static_cast<std::int32_t>(p.state.isr.size()) < p.state.min_insync_replicas) return;
  Offset hw = p.log->log_end_offset();
  // PLANTED BUG (advance-hw-without-isr): the leader's own log end is taken as committed, so
  // acks=all is answered before any follower has the records.
  const bool wait_for_isr = !b.config.plants.has(Plant::kAdvanceHwWithoutIsr);
  for (NodeId r : p.state.isr) {
    if (r == b.env.self() || !wait_for_isr) continue;
    auto it = p.followers.find(r);
    if (it == p.followers.end() || it->second.log_end_offset.value() < 0) return;  // not yet known
    hw = std::min(hw, it->second.log_end_offset);
  }
  const TopicPartitionView key = key_of(p);
  if (hw > p.high_watermark) {
    p.high_watermark = hw;
    p.producers.forget_replicated(hw);
    wake_fetches(b, key);
  }
  complete_produces(b, key, p, answer);
}

void fail_pending_produces(BrokerState& b, TopicPartitionView key, ErrorCode error) {
  auto it = b.pending_produces.find(key);
  if (it == b.pending_produces.end()) return;
  std::vector<PendingProduce> failed = std::move(it->second);
  b.pending_produces.erase(it);
  for (auto& w : failed) {
    b.timers.cancel(w.timer);
    if (w.done) {
      w.done(error);
      continue;
    }
    w.response.error = error;
    w.response.base_offset = Offset(-1);
    b.env.send(w.from, w.response);
  }
}

void shrink_isrs(BrokerState& b) {
  const Nanos lag = millis(b.config.replica_lag_time_max_ms);
  for (auto& [key, p] : b.partitions) {
    if (!p.led_by(b.env.self())) continue;
    std::vector<NodeId> isr;
    for (NodeId r : p.state.isr) {
      auto it = p.followers.find(r);
      const bool lagging = r != b.env.self() && it != p.followers.end() && b.env.now() - it->second.last_caught_up > lag;
      if (!lagging) isr.push_back(r);
    }
    if (isr.size() < p.state.isr.size()) propose_isr(b, p, std::move(isr));
  }
}

void on_alter_partition_response(BrokerState& b, const AlterPartitionResponse& resp) {
  Partition* p = b.find(resp.state.topic, resp.state.partition);
  if (p == nullptr) return;
  p->isr_change_in_flight = false;
  if (resp.error != ErrorCode::NONE || !p->led_by(b.env.self()) || resp.state.leader_epoch != p->state.leader_epoch ||
      resp.state.partition_epoch <= p->state.partition_epoch) {
    return;  // stale or refused: the controller's LeaderAndIsr brings the truth
  }
  const bool shrank = resp.state.isr.size() < p->state.isr.size();
  p->state = resp.state;
  b.cluster[TopicPartition{p->state.topic, p->state.partition}] = resp.state;
  if (static_cast<std::int32_t>(p->state.isr.size()) < p->state.min_insync_replicas) {
    fail_pending_produces(b, key_of(*p), ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND);
  }
  // PLANTED BUG (error-after-append): what the smaller ISR completes is answered as not written.
  const bool planted = shrank && b.config.plants.has(Plant::kErrorAfterAppend);
  maybe_advance_high_watermark(b, *p, planted ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::NONE);
}

void start_following(BrokerState& b, const TopicPartition& key) {
  Partition& p = b.partitions.at(key);
  p.followers.clear();
  if (b.config.plants.has(Plant::kTruncateToHighWatermark)) {
    // PLANTED BUG (KAFKA-1211, before KIP-101): truncate to our own high watermark, which may
    // lag the leader's, instead of asking the leader where our latest epoch ends; committed
    // records above it are gone from this replica until it fetches them again.
    PartitionLog& log = *p.log;
    if (p.high_watermark < log.log_end_offset()) {
      log.truncate_to(std::max(p.high_watermark, log.log_start_offset()));
      p.producers.rebuild(log);
    }
    p.phase = FollowerPhase::kFetching;
    send_next(b, p);
    return;
  }
  p.phase = p.log->log_end_offset() > p.log->log_start_offset() ? FollowerPhase::kTruncating : FollowerPhase::kFetching;
  send_next(b, p);
}

void on_offsets_for_leader_epoch_response(BrokerState& b, const OffsetsForLeaderEpochResponse& resp) {
  Partition* p = awaited(b, resp.correlation_id);
  if (p == nullptr || p->phase != FollowerPhase::kTruncating) return;
  if (resp.error != ErrorCode::NONE) return back_off(b, *p);
  PartitionLog& log = *p->log;
  Offset end = resp.end_offset;
  if (resp.leader_epoch.value() < 0) {
    end = std::min(p->high_watermark, log.log_end_offset());  // the leader knows no such epoch
  } else if (resp.leader_epoch != log.latest_epoch()) {
    // KIP-279: the leader's last common epoch ends at `end`; our own records of later epochs
    // start where that epoch ends in our log, which may be earlier.
    if (auto ours = log.end_offset_for_epoch(resp.leader_epoch)) end = std::min(end, ours->second);
  }
  if (end < log.log_end_offset()) {
    log.truncate_to(std::max(end, log.log_start_offset()));
    p->producers.rebuild(log);  // the truncated records' sequences are gone too
  }
  p->high_watermark = std::min(p->high_watermark, log.log_end_offset());
  p->producers.forget_replicated(p->high_watermark);
  p->phase = FollowerPhase::kFetching;
  send_next(b, *p);
}

void on_replica_fetch_response(BrokerState& b, const FetchResponse& resp) {
  Partition* p = awaited(b, resp.correlation_id);
  if (p == nullptr || p->phase != FollowerPhase::kFetching) return;
  if (resp.error == ErrorCode::OFFSET_OUT_OF_RANGE) {
    if (resp.log_start_offset > p->log->log_end_offset()) {
      // Retention on the leader deleted what we lack: continue from its log start.
      p->fetch_floor = resp.log_start_offset;
      return send_next(b, *p);
    }
    p->phase = FollowerPhase::kTruncating;  // we are ahead of the leader: find the divergence
    return back_off(b, *p);
  }
  if (resp.error != ErrorCode::NONE) return back_off(b, *p);
  PartitionLog& log = *p->log;
  if (!resp.records.empty()) {
    const BatchScan scan = scan_batch_headers(resp.records);
    LOGSIM_ASSERT(scan.complete, "a malformed batch fetched from the leader of " + log.dir());
    const Offset first = scan.batches.front().base_offset;
    if (first < log.log_end_offset() && scan.batches.front().last_offset() >= log.log_end_offset()) {
      // Our log ends inside one of the leader's batches (after a truncation to a high
      // watermark that fell inside one: an unclean election's divergence). Our records from
      // the batch's base on are not that batch: cut them and take the leader's.
      log.truncate_to(std::max(first, log.log_start_offset()));
      p->producers.rebuild(log);
      p->high_watermark = std::min(p->high_watermark, log.log_end_offset());
      return send_next(b, *p);
    }
    if (first >= log.log_end_offset()) {
      log.append_as_follower(resp.records, scan.batches, to_millis(b.env.now()));
      record_producers(*p, resp.records, scan.batches);
      flush_if_due(b, *p);
    }
  }
  p->high_watermark = std::max(p->high_watermark, std::min(resp.high_watermark, log.log_end_offset()));
  p->producers.forget_replicated(p->high_watermark);
  send_next(b, *p);
}

void on_follower_timer(BrokerState& b, TimerId id) {
  const std::optional<Partition*> found = b.follower_timers.take(id);
  if (!found) return;
  Partition* p = *found;
  LOGSIM_ASSERT(p->timer == id, "a follower timer's entry names the replica that armed it");
  p->timer = 0;
  send_next(b, *p);  // a timeout forgets the request in flight; a backoff ends
}

void on_leader_disconnect(BrokerState& b, NodeId leader) {
  for (auto& [key, p] : b.partitions) {
    if (p.in_flight != 0 && p.state.leader == leader) back_off(b, p);
  }
}

void on_controller_disconnect(BrokerState& b) {
  // The AlterPartition requests in flight will get no answer on that connection: as Kafka's
  // AlterPartitionManager retries a disconnected request, let the next ISR change go out now
  // (from the leader's next follower fetch or ISR check) instead of after request.timeout.ms.
  for (auto& [key, p] : b.partitions) p.isr_change_in_flight = false;
}

void run_deferred(BrokerState& b, TimerId id) {
  auto it = b.deferred.find(id);
  if (it == b.deferred.end()) return;
  auto fn = std::move(it->second);
  b.deferred.erase(it);
  fn();
}

void end_fetch_wait(BrokerState& b, TimerId id) {
  for (auto& [key, waiting] : b.parked) {
    for (auto w = waiting.begin(); w != waiting.end(); ++w) {
      if (w->timer != id) continue;
      ParkedFetch done = std::move(*w);
      waiting.erase(w);
      b.env.send(done.from, read_for_fetch(b, done.request));
      return;
    }
  }
}

void end_produce_wait(BrokerState& b, TimerId id) {
  for (auto& [key, pending] : b.pending_produces) {
    for (auto w = pending.begin(); w != pending.end(); ++w) {
      if (w->timer != id) continue;
      PendingProduce timed_out = std::move(*w);
      pending.erase(w);
      if (timed_out.done) {
        timed_out.done(ErrorCode::REQUEST_TIMED_OUT);
        return;
      }
      timed_out.response.error = ErrorCode::REQUEST_TIMED_OUT;
      timed_out.response.base_offset = Offset(-1);
      b.env.send(timed_out.from, timed_out.response);
      return;
    }
  }
}

}  // namespace logsim::engine
