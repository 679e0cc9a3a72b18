// The consumer's commits (OffsetCommit: commitSync, commitAsync, auto-commit) and the
// committed offsets of newly assigned partitions (OffsetFetch): the offset half of Kafka's
// ConsumerCoordinator (consumer_coordinator.h). A commit is sent only inside a stable
// generation, with its generation and member id; commitSync retries retriable errors until
// default.api.timeout.ms, commitAsync gets one request; a commit the coordinator fences
// (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION) makes the member rejoin.
#include <algorithm>

#include "engine/client/consumer.h"
#include "engine/client/consumer_coordinator.h"

namespace logsim::engine {

void ConsumerCoordinator::commit(std::map<TopicPartition, Offset> offsets, bool sync, CommitCallback done) {
  send_commit(add_commit(std::move(offsets), sync, false, std::move(done)));
}

std::uint64_t ConsumerCoordinator::add_commit(std::map<TopicPartition, Offset> offsets, bool sync, bool automatic, CommitCallback done) {
  const std::uint64_t id = ++group_.next_commit_id;
  PendingCommit& c = group_.commits[id];
  c.id = id;
  c.offsets = std::move(offsets);
  c.sync = sync;
  c.automatic = automatic;
  // commitSync retries until default.api.timeout.ms; commitAsync gets one request.
  c.deadline = env_.now() + millis(sync ? config_.default_api_timeout_ms : config_.request_timeout_ms);
  c.done = std::move(done);
  c.deadline_timer = timers_.set(c.deadline - env_.now(), ConsumerGroupTimer::kCommit);
  return id;
}

// Sends (or resends) a commit; may finish it at once (which erases it).
void ConsumerCoordinator::send_commit(std::uint64_t id) {
  auto it = group_.commits.find(id);
  if (it == group_.commits.end()) return;
  PendingCommit& c = it->second;
  c.generation = group_.generation;
  c.member_id = group_.member_id;
  if (!c.announced) {
    c.announced = true;
    if (group_.listener != nullptr) {
      group_.listener->on_commit(CommitEvent{CommitEvent::Phase::kRequested, c.id, c.offsets, c.generation, c.member_id,
                                             c.automatic, ErrorCode::NONE});
    }
  }
  // Kafka's client refuses to commit outside a stable generation (CommitFailedException).
  const bool rebalancing = group_.state == MemberState::kJoining || group_.state == MemberState::kSyncing ||
                           group_.state == MemberState::kAssigning;
  if (group_.generation < 0 || rebalancing) {
    finish_commit(id, rebalancing ? ErrorCode::REBALANCE_IN_PROGRESS : ErrorCode::ILLEGAL_GENERATION);
    return;
  }
  if (group_.coordinator.value() < 0) {
    find_coordinator();  // sent when it is found
    return;
  }
  OffsetCommitRequest req{0, config_.group_id, c.generation, c.member_id, config_.group_instance_id, {}};
  for (const auto& [tp, offset] : c.offsets) req.partitions.push_back({tp.topic, tp.partition, offset, {}});
  c.sent = env_.now();
  c.in_flight = host_.channel().send(group_.coordinator, std::move(req));
  timers_.cancel(c.request_timer);
  c.request_timer = timers_.set(millis(config_.request_timeout_ms), ConsumerGroupTimer::kCommit);
}

void ConsumerCoordinator::finish_commit(std::uint64_t id, ErrorCode error) {
  auto it = group_.commits.find(id);
  if (it == group_.commits.end()) return;
  PendingCommit c = std::move(it->second);
  group_.commits.erase(it);
  timers_.cancel(c.deadline_timer);
  timers_.cancel(c.request_timer);
  if (group_.listener != nullptr) {
    group_.listener->on_commit(CommitEvent{CommitEvent::Phase::kCompleted, c.id, c.offsets, c.generation, c.member_id,
                                           c.automatic, error});
  }
  if (c.done) c.done(error);
  if (group_.state == MemberState::kPreparing) {
    if (group_.prepare_commit == id) group_.prepare_commit = 0;  // failure is only logged, as in Kafka
    continue_prepare();
  }
}

void ConsumerCoordinator::on_offset_commit(const OffsetCommitResponse& resp) {
  auto it = std::find_if(group_.commits.begin(), group_.commits.end(),
                         [&](const auto& kv) { return kv.second.in_flight == resp.correlation_id; });
  if (it == group_.commits.end()) return;
  PendingCommit& c = it->second;
  c.in_flight = 0;
  ErrorCode error = ErrorCode::NONE;
  for (const auto& p : resp.partitions) {
    if (p.error != ErrorCode::NONE) {
      error = p.error;
      break;
    }
  }
  if (error == ErrorCode::UNKNOWN_MEMBER_ID || error == ErrorCode::ILLEGAL_GENERATION) {
    // Fenced: this member's generation is gone (a zombie); rejoin.
    if (group_.generation == c.generation) {
      reset_generation(error == ErrorCode::ILLEGAL_GENERATION);
      if (group_.state == MemberState::kStable) group_.state = MemberState::kUnjoined;
      group_.rejoin_needed = true;
    }
  } else if (error == ErrorCode::REBALANCE_IN_PROGRESS) {
    if (group_.state == MemberState::kStable) group_.rejoin_needed = true;
  } else if (coordinator_error(error)) {
    // commitSync is resent when the coordinator is found; commitAsync ends here. (Finish it
    // before coordinator_lost, which ends the other async commits: `c` may not outlive it.)
    const std::uint64_t id = it->first;
    if (!c.sync || env_.now() >= c.deadline) finish_commit(id, error);
    coordinator_lost();
    return;
  }
  finish_commit(it->first, error);
}

void ConsumerCoordinator::on_offset_fetch(const OffsetFetchResponse& resp) {
  if (resp.correlation_id != group_.offset_fetch_in_flight) return;
  group_.offset_fetch_in_flight = 0;
  if (resp.error != ErrorCode::NONE) {
    if (coordinator_error(resp.error)) coordinator_lost();
    return;
  }
  // KIP-447: a transaction's offsets are still pending on some partition. As Kafka's client
  // (UnstableOffsetCommitException, retriable), none is taken: the fetch is asked again after
  // retry.backoff.ms, and those partitions are not fetched until then.
  const bool unstable = std::any_of(resp.partitions.begin(), resp.partitions.end(), [](const OffsetFetchPartition& p) {
    return p.error == ErrorCode::UNSTABLE_OFFSET_COMMIT;
  });
  if (unstable) {
    if (group_.offset_fetch_timer == 0) {
      group_.offset_fetch_timer = timers_.set(millis(config_.retry_backoff_ms), ConsumerGroupTimer::kOffsetFetch);
    }
    return;
  }
  for (const auto& p : resp.partitions) {
    // No commit (or an error): auto.offset.reset decides.
    const bool found = p.error == ErrorCode::NONE && p.committed_offset.value() >= 0;
    host_.committed(TopicPartition{p.topic, p.partition}, found ? std::optional<Offset>(p.committed_offset) : std::nullopt);
  }
  fetch_committed();  // partitions assigned meanwhile
}

// Commits past their time fail; a request unanswered for request.timeout.ms is sent again
// (commitSync) or fails (commitAsync).
void ConsumerCoordinator::on_commit_timer(TimerId id) {
  const Nanos now = env_.now();
  std::vector<std::uint64_t> expired;
  std::vector<std::uint64_t> resend;
  for (auto& [cid, c] : group_.commits) {
    const bool unanswered = c.in_flight != 0 && now - c.sent >= millis(config_.request_timeout_ms);
    if (now >= c.deadline || (unanswered && !c.sync)) {
      expired.push_back(cid);
    } else if (unanswered) {
      c.in_flight = 0;
      resend.push_back(cid);
    } else {
      // One of its own timers fired before its time on the local clock (the clock was
      // stepped back after the timer was armed): armed again for what is left, so every
      // pending commit keeps a timer for its deadline and for its request in flight.
      if (c.deadline_timer == id) c.deadline_timer = timers_.set(c.deadline - now, ConsumerGroupTimer::kCommit);
      if (c.request_timer == id && c.in_flight != 0) {
        c.request_timer = timers_.set(c.sent + millis(config_.request_timeout_ms) - now, ConsumerGroupTimer::kCommit);
      }
    }
  }
  for (auto cid : expired) finish_commit(cid, ErrorCode::REQUEST_TIMED_OUT);
  for (auto cid : resend) send_commit(cid);
}

// ---- The committed offsets of newly assigned partitions.

void ConsumerCoordinator::fetch_committed() {
  if (!group_.subscribed || group_.offset_fetch_in_flight != 0 || group_.offset_fetch_timer != 0) return;
  if (group_.coordinator.value() < 0) {
    find_coordinator();  // fetched again once the coordinator is known
    return;
  }
  std::vector<OffsetFetchPartitionRef> wanted;
  for (const auto& tp : host_.awaiting_committed()) wanted.push_back({tp.topic, tp.partition});
  if (wanted.empty()) return;
  OffsetFetchRequest req{0, config_.group_id, std::move(wanted)};
  req.require_stable = config_.isolation_level == IsolationLevel::kReadCommitted;
  group_.offset_fetch_in_flight = host_.channel().send(group_.coordinator, std::move(req));
}

}  // namespace logsim::engine
