// The consumer's group membership: Kafka's ConsumerCoordinator over the classic protocol.
// (The behaviour is summarised at the top of consumer.h.)
#include <algorithm>

#include "engine/client/consumer.h"
#include "engine/client/consumer_protocol.h"
#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

bool coordinator_error(ErrorCode e) {
  return e == ErrorCode::NOT_COORDINATOR || e == ErrorCode::COORDINATOR_NOT_AVAILABLE ||
         e == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS || e == ErrorCode::NETWORK_EXCEPTION ||
         e == ErrorCode::REQUEST_TIMED_OUT;
}

bool fatal_group_error(ErrorCode e) {
  return e == ErrorCode::FENCED_INSTANCE_ID || e == ErrorCode::INCONSISTENT_GROUP_PROTOCOL ||
         e == ErrorCode::INVALID_SESSION_TIMEOUT || e == ErrorCode::GROUP_MAX_SIZE_REACHED ||
         e == ErrorCode::INVALID_GROUP_ID;
}

std::vector<TopicPartition> minus(const std::vector<TopicPartition>& a, const std::vector<TopicPartition>& b) {
  std::vector<TopicPartition> out;
  for (const auto& tp : a) {
    if (std::find(b.begin(), b.end(), tp) == b.end()) out.push_back(tp);
  }
  return out;
}

}  // namespace

void Consumer::subscribe(std::vector<std::string> topics, RebalanceListener* listener) {
  LOGSIM_ASSERT(!config_.group_id.empty(), "subscribe() needs group.id");
  LOGSIM_ASSERT(assignment_.empty() || group_.subscribed, "subscribe() on a consumer with a manual assignment");
  group_.subscribed = true;
  group_.topics = std::move(topics);
  group_.listener = listener;
  group_.assignors.clear();
  bool all_cooperative = true;
  for (const auto& name : config_.partition_assignment_strategy) {
    auto a = assignor_by_name(name);
    LOGSIM_ASSERT(a.has_value(), "unknown partition.assignment.strategy " + name);
    group_.assignors.push_back(*a);
    all_cooperative = all_cooperative && a->protocol == RebalanceProtocol::kCooperative;
  }
  LOGSIM_ASSERT(!group_.assignors.empty(), "partition.assignment.strategy is empty");
  // Kafka's consumer runs the protocol every configured assignor supports.
  group_.protocol = all_cooperative ? RebalanceProtocol::kCooperative : RebalanceProtocol::kEager;
  group_.rejoin_needed = true;
  group_.last_poll = env_.now();
  group_.next_auto_commit = env_.now() + millis(config_.auto_commit_interval_ms);
  request_metadata();
  find_coordinator();
}

std::map<TopicPartition, Offset> Consumer::consumed() const {
  std::map<TopicPartition, Offset> out;
  for (const auto& tp : assignment_) {
    const auto& st = partitions_.at(tp);
    if (st.position && !st.awaiting_committed) out[tp] = *st.position;
  }
  return out;
}

// ---- The poll-time part: what the application thread does in Kafka.

void Consumer::drive_group() {
  group_.last_poll = env_.now();
  group_timers_.cancel(group_.poll_timer);
  group_.poll_timer = 0;
  if (group_.state == MemberState::kFatal) return;
  if (group_.state == MemberState::kStable || group_.state == MemberState::kSyncing) {
    group_.poll_timer = group_timers_.set(millis(config_.max_poll_interval_ms), ConsumerGroupTimer::kPollTimeout);
  }
  if (group_.pending_assignment) apply_assignment();
  // Auto-commit what earlier polls returned (the positions before this poll hands out more).
  if (config_.enable_auto_commit && group_.state == MemberState::kStable && env_.now() >= group_.next_auto_commit) {
    group_.next_auto_commit = env_.now() + millis(config_.auto_commit_interval_ms);
    auto offsets = consumed();
    if (!offsets.empty()) send_commit(add_commit(std::move(offsets), false, true, {}));
  }
  group_.in_poll = true;
  // The pre-rebalance commit finished since the last poll: the revocation happens now.
  if (group_.state == MemberState::kPreparing && group_.prepare_commit == 0 && !group_.prepare_revoked) continue_prepare();
  if (group_.rejoin_needed && group_.state == MemberState::kUnjoined) start_prepare();
  if (group_.rejoin_needed && group_.state == MemberState::kStable) start_prepare();
  group_.in_poll = false;
}

// onJoinPrepare: commit (auto-commit), then give up partitions, then JoinGroup.
void Consumer::start_prepare() {
  group_.join_started = true;
  if (group_.coordinator.value() < 0) {
    find_coordinator();
    return;
  }
  group_.state = MemberState::kPreparing;
  group_.prepare_commit = 0;
  group_.prepare_revoked = false;
  if (config_.enable_auto_commit && group_.generation >= 0) {
    auto offsets = consumed();
    if (config_.plants.has(Plant::kAutoCommitFetchedOnRebalance)) {
      // PLANTED BUG (KAFKA-14196): commit past what was fetched but never returned by poll().
      for (auto& [tp, offset] : offsets) {
        const auto& buffer = partitions_.at(tp).buffer;
        if (!buffer.empty()) offset = buffer.back().offset + 1;
      }
    }
    if (!offsets.empty()) {
      group_.prepare_commit = add_commit(std::move(offsets), true, true, {});
      send_commit(group_.prepare_commit);
      return;
    }
  }
  continue_prepare();
}

void Consumer::continue_prepare() {
  if (group_.state != MemberState::kPreparing || group_.prepare_commit != 0) return;
  // The revoke (or lost) callback runs on the application's thread, inside poll(), as in
  // Kafka: never while the application is still processing what an earlier poll returned.
  // When the pre-rebalance commit ends between polls, the next poll goes on from here (found
  // by logsim fuzz as double-ownership: a member processed a record after its revocation).
  if (!group_.prepare_revoked && !group_.in_poll) return;
  if (!group_.prepare_revoked) {
    group_.prepare_revoked = true;
    std::vector<TopicPartition> give_up;
    const bool lost = group_.generation < 0;
    if (lost || group_.protocol == RebalanceProtocol::kEager) {
      give_up = group_.owned;
    } else {
      // COOPERATIVE keeps its partitions, but for topics it no longer subscribes to.
      for (const auto& tp : group_.owned) {
        if (std::find(group_.topics.begin(), group_.topics.end(), tp.topic) == group_.topics.end()) give_up.push_back(tp);
      }
    }
    if (!give_up.empty()) {
      group_.owned = minus(group_.owned, give_up);
      set_assignment(group_.owned, true);
      if (group_.listener != nullptr) {
        if (lost) {
          group_.listener->on_partitions_lost(give_up);
        } else {
          group_.listener->on_partitions_revoked(give_up);
        }
      }
    }
  }
  // Commits the revocation callback made (commitSync in onPartitionsRevoked) go first.
  for (const auto& [id, c] : group_.commits) {
    if (c.sync && !c.automatic) return;  // finish_commit continues
  }
  if (group_.coordinator.value() < 0) {
    find_coordinator();  // continues when it is found
    return;
  }
  send_join();
}

void Consumer::send_join() {
  group_.state = MemberState::kJoining;
  group_.rejoin_needed = false;
  group_.join_started = false;
  JoinGroupRequest req;
  req.correlation_id = ++next_correlation_;
  req.group_id = config_.group_id;
  req.session_timeout_ms = config_.session_timeout_ms;
  req.rebalance_timeout_ms = config_.max_poll_interval_ms;
  req.member_id = group_.member_id;
  req.group_instance_id = config_.group_instance_id;
  req.client_id = config_.client_id;
  // COOPERATIVE reports what it still owns; EAGER owns nothing by now and reports its last
  // assignment, which only the sticky assignor reads (its userData).
  ConsumerSubscription sub = group_.protocol == RebalanceProtocol::kCooperative
                                 ? ConsumerSubscription{group_.topics, group_.owned, group_.generation}
                                 : ConsumerSubscription{group_.topics, group_.last_assignment, group_.last_assignment_generation};
  const std::string metadata = encode_subscription(sub);
  for (const auto& a : group_.assignors) req.protocols.push_back({std::string(a.name), metadata});
  group_.join_in_flight = req.correlation_id;
  group_.join_sent = env_.now();
  env_.send(group_.coordinator, std::move(req));
  group_timers_.cancel(group_.retry_timer);
  // Kafka's JoinGroup timeout: the rebalance timeout plus 5 s.
  group_.retry_timer = group_timers_.set(millis(config_.max_poll_interval_ms) + seconds(5), ConsumerGroupTimer::kGroupRetry);
}

// The leader computes every member's assignment (once it has metadata for their topics).
void Consumer::try_assign() {
  const JoinGroupResponse& join = group_.leader_join;
  GroupSubscription input;
  bool missing = false;
  for (const auto& m : join.members) {
    auto sub = decode_subscription(m.metadata);
    MemberSubscription ms{m.member_id, m.group_instance_id, {}, {}, std::nullopt};
    if (sub) {
      ms.topics = sub->topics;
      ms.owned = sub->owned_partitions;
      if (sub->generation_id >= 0) ms.generation = GenerationId(sub->generation_id);
      for (const auto& t : sub->topics) {
        if (metadata_.knows(t)) {
          input.partitions_per_topic[t] = metadata_.partition_count(t);
        } else {
          missing = true;
        }
      }
    }
    input.members.push_back(std::move(ms));
  }
  if (missing && group_.state != MemberState::kAssigning) {
    group_.state = MemberState::kAssigning;  // on_message calls again when metadata arrives
    request_metadata();
    return;
  }
  auto assignor = std::find_if(group_.assignors.begin(), group_.assignors.end(),
                               [&](const PartitionAssignor& a) { return a.name == join.protocol_name; });
  if (assignor == group_.assignors.end()) {
    group_.state = MemberState::kFatal;
    if (group_.listener != nullptr) group_.listener->on_fatal(ErrorCode::INCONSISTENT_GROUP_PROTOCOL);
    return;
  }
  // The planted cooperative-double-ownership bug lives in the cooperative-sticky assignor.
  const GroupAssignment result = assignor->name == "cooperative-sticky" && !config_.plants.empty()
                                     ? cooperative_sticky_assign(input, config_.plants)
                                     : assignor->assign(input);
  std::vector<SyncGroupAssignment> assignments;
  for (const auto& [member, partitions] : result) assignments.push_back({member, encode_assignment({partitions})});
  send_sync(std::move(assignments));
}

void Consumer::send_sync(std::vector<SyncGroupAssignment> assignments) {
  group_.state = MemberState::kSyncing;
  SyncGroupRequest req{++next_correlation_, config_.group_id, group_.generation, group_.member_id,
                       config_.group_instance_id, std::move(assignments)};
  group_.join_in_flight = req.correlation_id;
  env_.send(group_.coordinator, std::move(req));
  group_timers_.cancel(group_.retry_timer);
  group_.retry_timer = group_timers_.set(millis(config_.request_timeout_ms), ConsumerGroupTimer::kGroupRetry);
  arm_heartbeat();  // heartbeats run from the JoinGroup answer on
}

// onJoinComplete, at poll: COOPERATIVE revokes what moved away (and rejoins), then assigns.
void Consumer::apply_assignment() {
  std::vector<TopicPartition> assigned;
  for (auto& tp : *group_.pending_assignment) {
    if (std::find(group_.topics.begin(), group_.topics.end(), tp.topic) != group_.topics.end()) assigned.push_back(tp);
  }
  group_.pending_assignment.reset();
  const std::vector<TopicPartition> revoked = minus(group_.owned, assigned);
  const std::vector<TopicPartition> added = minus(assigned, group_.owned);
  group_.owned = assigned;
  group_.last_assignment = assigned;
  group_.last_assignment_generation = group_.generation;
  set_assignment(assigned, true);
  if (group_.listener != nullptr && !revoked.empty()) group_.listener->on_partitions_revoked(revoked);
  if (!revoked.empty() && group_.protocol == RebalanceProtocol::kCooperative) request_rejoin();
  if (group_.listener != nullptr) group_.listener->on_partitions_assigned(added);
}

void Consumer::fetch_committed() {
  if (!group_.subscribed || group_.offset_fetch_in_flight != 0) return;
  if (group_.coordinator.value() < 0) {
    find_coordinator();  // fetched again once the coordinator is known
    return;
  }
  std::vector<OffsetFetchPartitionRef> wanted;
  for (const auto& [tp, st] : partitions_) {
    if (st.awaiting_committed) wanted.push_back({tp.topic, tp.partition});
  }
  if (wanted.empty()) return;
  group_.offset_fetch_in_flight = ++next_correlation_;
  env_.send(group_.coordinator, OffsetFetchRequest{group_.offset_fetch_in_flight, config_.group_id, std::move(wanted)});
}

// ---- The background part: what Kafka's heartbeat thread and network client do.

void Consumer::find_coordinator() {
  if (group_.find_in_flight != 0 || group_.coordinator.value() >= 0) return;
  if (env_.now() < group_.find_backoff_until) {
    if (group_.retry_timer == 0) group_.retry_timer = group_timers_.set(group_.find_backoff_until - env_.now(), ConsumerGroupTimer::kGroupRetry);
    return;
  }
  const auto& servers = config_.bootstrap_servers;
  const NodeId target = servers[env_.rng().uniform_u64(servers.size())];
  group_.find_in_flight = ++next_correlation_;
  group_.find_target = target;
  env_.send(target, FindCoordinatorRequest{group_.find_in_flight, config_.group_id, CoordinatorKeyType::kGroup});
  group_timers_.cancel(group_.retry_timer);
  group_.retry_timer = group_timers_.set(millis(config_.request_timeout_ms), ConsumerGroupTimer::kGroupRetry);
}

// markCoordinatorUnknown: requests in flight to it are abandoned and retried elsewhere.
void Consumer::coordinator_lost() {
  group_.coordinator = NodeId(-1);
  group_.heartbeat_in_flight = 0;
  group_.offset_fetch_in_flight = 0;
  if (group_.state == MemberState::kJoining || group_.state == MemberState::kSyncing ||
      group_.state == MemberState::kAssigning) {
    group_.join_in_flight = 0;
    group_.state = MemberState::kUnjoined;
    group_.rejoin_needed = true;
  }
  for (auto& [id, c] : group_.commits) c.in_flight = 0;  // resent (sync) or failed at their timers
  std::vector<std::uint64_t> failed;
  for (const auto& [id, c] : group_.commits) {
    if (!c.sync) failed.push_back(id);
  }
  for (auto id : failed) finish_commit(id, ErrorCode::COORDINATOR_NOT_AVAILABLE);
  group_.find_backoff_until = env_.now() + millis(config_.retry_backoff_ms);
  find_coordinator();
}

void Consumer::send_heartbeat() {
  if (group_.state != MemberState::kStable && group_.state != MemberState::kSyncing) return;
  if (group_.coordinator.value() < 0) return;
  // No answer to heartbeats for a whole session: the coordinator is gone (client side).
  if (env_.now() - group_.last_heartbeat_ok > millis(config_.session_timeout_ms)) {
    coordinator_lost();
    return;
  }
  if (group_.heartbeat_in_flight == 0) {
    group_.heartbeat_in_flight = ++next_correlation_;
    env_.send(group_.coordinator, HeartbeatRequest{group_.heartbeat_in_flight, config_.group_id, group_.generation,
                                                   group_.member_id, config_.group_instance_id});
  }
  arm_heartbeat();
}

void Consumer::arm_heartbeat() {
  group_timers_.cancel(group_.heartbeat_timer);
  group_.heartbeat_timer = group_timers_.set(millis(config_.heartbeat_interval_ms), ConsumerGroupTimer::kHeartbeat);
}

void Consumer::reset_generation(bool keep_member_id) {
  group_.generation = -1;
  if (!keep_member_id) group_.member_id.clear();
  group_.protocol_name.clear();
  group_timers_.cancel(group_.heartbeat_timer);
  group_.heartbeat_timer = 0;
  group_.heartbeat_in_flight = 0;
}

void Consumer::request_rejoin() {
  group_.rejoin_needed = true;
  if (group_.state != MemberState::kStable && group_.state != MemberState::kFatal &&
      group_.state != MemberState::kPreparing) {
    group_.state = MemberState::kUnjoined;
    group_.join_in_flight = 0;
  }
}

void Consumer::group_retry_later() {
  group_timers_.cancel(group_.retry_timer);
  group_.retry_timer = group_timers_.set(millis(config_.retry_backoff_ms), ConsumerGroupTimer::kGroupRetry);
}

void Consumer::on_poll_timeout() {
  group_.poll_timer = 0;
  if (group_.state != MemberState::kStable && group_.state != MemberState::kSyncing) return;
  // maybeLeaveGroup("consumer poll timeout has expired"): a static member only drops its
  // generation and lets the session time out.
  if (!config_.group_instance_id) {
    env_.send(group_.coordinator,
              LeaveGroupRequest{++next_correlation_, config_.group_id,
                                {LeaveGroupMember{group_.member_id, std::nullopt, "consumer poll timeout has expired"}}});
  }
  reset_generation(false);
  group_.state = MemberState::kUnjoined;
  group_.join_in_flight = 0;
  group_.rejoin_needed = true;
}

void Consumer::close() {
  if (!group_.subscribed || group_.state == MemberState::kFatal) return;
  if (group_.generation >= 0 && config_.enable_auto_commit) {
    auto offsets = consumed();
    if (!offsets.empty()) send_commit(add_commit(std::move(offsets), true, true, {}));
  }
  if (group_.listener != nullptr && !group_.owned.empty()) {
    if (group_.generation >= 0) {
      group_.listener->on_partitions_revoked(group_.owned);
    } else {
      group_.listener->on_partitions_lost(group_.owned);
    }
  }
  if (!config_.group_instance_id && !group_.member_id.empty() && group_.coordinator.value() >= 0) {
    // Sent after the commit on the same connection, so it arrives after it.
    env_.send(group_.coordinator, LeaveGroupRequest{++next_correlation_, config_.group_id,
                                                    {LeaveGroupMember{group_.member_id, std::nullopt, "the consumer is being closed"}}});
  }
  group_.owned.clear();
  reset_generation(false);
  group_.state = MemberState::kFatal;  // closed: nothing more
}

// ---- Commits.

void Consumer::commit(std::map<TopicPartition, Offset> offsets, bool sync, CommitCallback done) {
  send_commit(add_commit(std::move(offsets), sync, false, std::move(done)));
}

std::uint64_t Consumer::add_commit(std::map<TopicPartition, Offset> offsets, bool sync, bool automatic, CommitCallback done) {
  const std::uint64_t id = ++group_.next_commit_id;
  PendingCommit& c = group_.commits[id];
  c.id = id;
  c.offsets = std::move(offsets);
  c.sync = sync;
  c.automatic = automatic;
  // commitSync retries until default.api.timeout.ms; commitAsync gets one request.
  c.deadline = env_.now() + millis(sync ? config_.default_api_timeout_ms : config_.request_timeout_ms);
  c.done = std::move(done);
  c.deadline_timer = group_timers_.set(c.deadline - env_.now(), ConsumerGroupTimer::kCommit);
  return id;
}

// Sends (or resends) a commit; may finish it at once (which erases it).
void Consumer::send_commit(std::uint64_t id) {
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
  OffsetCommitRequest req{++next_correlation_, config_.group_id, c.generation, c.member_id, config_.group_instance_id, {}};
  for (const auto& [tp, offset] : c.offsets) req.partitions.push_back({tp.topic, tp.partition, offset, {}});
  c.in_flight = req.correlation_id;
  c.sent = env_.now();
  env_.send(group_.coordinator, std::move(req));
  group_timers_.cancel(c.request_timer);
  c.request_timer = group_timers_.set(millis(config_.request_timeout_ms), ConsumerGroupTimer::kCommit);
}

void Consumer::finish_commit(std::uint64_t id, ErrorCode error) {
  auto it = group_.commits.find(id);
  if (it == group_.commits.end()) return;
  PendingCommit c = std::move(it->second);
  group_.commits.erase(it);
  group_timers_.cancel(c.deadline_timer);
  group_timers_.cancel(c.request_timer);
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

// ---- Responses and timers.

bool Consumer::on_group_message(const Message& msg) {
  if (const auto* find = std::get_if<FindCoordinatorResponse>(&msg)) {
    if (find->correlation_id != group_.find_in_flight) return true;
    group_.find_in_flight = 0;
    group_timers_.cancel(group_.retry_timer);
    group_.retry_timer = 0;
    if (find->error != ErrorCode::NONE) {
      group_.find_backoff_until = env_.now() + millis(config_.retry_backoff_ms);
      find_coordinator();
      return true;
    }
    group_.coordinator = find->node_id;
    group_.last_heartbeat_ok = env_.now();
    fetch_committed();
    std::vector<std::uint64_t> waiting;
    for (const auto& [id, c] : group_.commits) {
      if (c.in_flight == 0) waiting.push_back(id);
    }
    for (auto id : waiting) send_commit(id);
    if (group_.state == MemberState::kStable || group_.state == MemberState::kSyncing) arm_heartbeat();
    if (group_.state == MemberState::kPreparing) continue_prepare();
    // A join a poll began goes on; otherwise the next poll starts it, as in Kafka.
    if (group_.state == MemberState::kUnjoined && group_.rejoin_needed && group_.join_started) start_prepare();
    return true;
  }
  if (const auto* join = std::get_if<JoinGroupResponse>(&msg)) {
    if (join->correlation_id != group_.join_in_flight || group_.state != MemberState::kJoining) return true;
    group_.join_in_flight = 0;
    group_timers_.cancel(group_.retry_timer);
    group_.retry_timer = 0;
    switch (join->error) {
      case ErrorCode::NONE:
        group_.member_id = join->member_id;
        group_.generation = join->generation_id;
        group_.protocol_name = join->protocol_name;
        group_.last_heartbeat_ok = env_.now();
        if (join->leader == join->member_id) {
          group_.leader_join = *join;
          try_assign();
        } else {
          group_.leader_join = {};
          send_sync({});
        }
        return true;
      case ErrorCode::MEMBER_ID_REQUIRED:
        group_.member_id = join->member_id;
        send_join();
        return true;
      case ErrorCode::UNKNOWN_MEMBER_ID:
      case ErrorCode::ILLEGAL_GENERATION:
        reset_generation(join->error == ErrorCode::ILLEGAL_GENERATION);
        break;
      default:
        if (fatal_group_error(join->error)) {
          group_.state = MemberState::kFatal;
          if (group_.listener != nullptr) group_.listener->on_fatal(join->error);
          return true;
        }
        if (coordinator_error(join->error)) {
          group_.state = MemberState::kUnjoined;
          group_.rejoin_needed = true;
          coordinator_lost();
          return true;
        }
        break;  // REBALANCE_IN_PROGRESS and the rest: join again
    }
    group_.state = MemberState::kUnjoined;
    group_.rejoin_needed = true;
    group_retry_later();
    return true;
  }
  if (const auto* sync = std::get_if<SyncGroupResponse>(&msg)) {
    if (sync->correlation_id != group_.join_in_flight || group_.state != MemberState::kSyncing) return true;
    group_.join_in_flight = 0;
    group_timers_.cancel(group_.retry_timer);
    group_.retry_timer = 0;
    if (sync->error == ErrorCode::NONE) {
      auto a = sync->assignment.empty() ? std::optional<ConsumerAssignment>(ConsumerAssignment{})
                                        : decode_assignment(sync->assignment);
      group_.pending_assignment = a ? a->partitions : std::vector<TopicPartition>{};
      group_.state = MemberState::kStable;
      group_.leader_join = {};
      group_timers_.cancel(group_.poll_timer);
      group_.poll_timer = group_timers_.set(millis(config_.max_poll_interval_ms) - (env_.now() - group_.last_poll), ConsumerGroupTimer::kPollTimeout);
      return true;
    }
    if (fatal_group_error(sync->error)) {
      group_.state = MemberState::kFatal;
      if (group_.listener != nullptr) group_.listener->on_fatal(sync->error);
      return true;
    }
    if (sync->error == ErrorCode::UNKNOWN_MEMBER_ID || sync->error == ErrorCode::ILLEGAL_GENERATION) {
      reset_generation(sync->error == ErrorCode::ILLEGAL_GENERATION);
    }
    group_.state = MemberState::kUnjoined;
    group_.rejoin_needed = true;
    if (coordinator_error(sync->error)) {
      coordinator_lost();
    } else {
      group_retry_later();
    }
    return true;
  }
  if (const auto* hb = std::get_if<HeartbeatResponse>(&msg)) {
    if (hb->correlation_id != group_.heartbeat_in_flight) return true;
    group_.heartbeat_in_flight = 0;
    switch (hb->error) {
      case ErrorCode::NONE:
        group_.last_heartbeat_ok = env_.now();
        break;
      case ErrorCode::REBALANCE_IN_PROGRESS:
        group_.last_heartbeat_ok = env_.now();
        if (group_.state == MemberState::kStable) group_.rejoin_needed = true;
        break;
      case ErrorCode::ILLEGAL_GENERATION:
      case ErrorCode::UNKNOWN_MEMBER_ID:
      case ErrorCode::FENCED_INSTANCE_ID:
        if (hb->error == ErrorCode::FENCED_INSTANCE_ID) {
          group_.state = MemberState::kFatal;
          if (group_.listener != nullptr) group_.listener->on_fatal(hb->error);
          return true;
        }
        reset_generation(hb->error == ErrorCode::ILLEGAL_GENERATION);
        group_.state = MemberState::kUnjoined;
        group_.join_in_flight = 0;
        group_.rejoin_needed = true;
        break;
      default:
        if (coordinator_error(hb->error)) coordinator_lost();
        break;
    }
    return true;
  }
  if (const auto* commit = std::get_if<OffsetCommitResponse>(&msg)) {
    auto it = std::find_if(group_.commits.begin(), group_.commits.end(),
                           [&](const auto& kv) { return kv.second.in_flight == commit->correlation_id; });
    if (it == group_.commits.end()) return true;
    PendingCommit& c = it->second;
    c.in_flight = 0;
    ErrorCode error = ErrorCode::NONE;
    for (const auto& p : commit->partitions) {
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
      return true;
    }
    finish_commit(it->first, error);
    return true;
  }
  if (const auto* fetched = std::get_if<OffsetFetchResponse>(&msg)) {
    if (fetched->correlation_id != group_.offset_fetch_in_flight) return true;
    group_.offset_fetch_in_flight = 0;
    if (fetched->error != ErrorCode::NONE) {
      if (coordinator_error(fetched->error)) coordinator_lost();
      return true;
    }
    for (const auto& p : fetched->partitions) {
      auto st = partitions_.find(TopicPartition{p.topic, p.partition});
      if (st == partitions_.end() || !st->second.awaiting_committed) continue;
      st->second.awaiting_committed = false;
      if (p.error == ErrorCode::NONE && p.committed_offset.value() >= 0) st->second.position = p.committed_offset;
      pump(st->first);  // no commit: auto.offset.reset decides
    }
    fetch_committed();  // partitions assigned meanwhile
    return true;
  }
  return std::holds_alternative<LeaveGroupResponse>(msg);
}

void Consumer::on_group_timer(TimerId id, ConsumerGroupTimer tag) {
  switch (tag) {
    case ConsumerGroupTimer::kHeartbeat:
      if (id == group_.heartbeat_timer) {
        group_.heartbeat_timer = 0;
        send_heartbeat();
      }
      return;
    case ConsumerGroupTimer::kPollTimeout:
      if (id == group_.poll_timer) on_poll_timeout();
      return;
    case ConsumerGroupTimer::kGroupRetry:
      if (id != group_.retry_timer) return;
      group_.retry_timer = 0;
      if (group_.find_in_flight != 0) {  // FindCoordinator timed out
        group_.find_in_flight = 0;
        find_coordinator();
      } else if (group_.coordinator.value() < 0) {
        find_coordinator();
      } else if (group_.join_in_flight != 0) {  // JoinGroup or SyncGroup timed out
        coordinator_lost();
      } else if (group_.rejoin_needed && group_.state == MemberState::kUnjoined) {
        start_prepare();
      }
      return;
    case ConsumerGroupTimer::kCommit: {
      // Commits past their time fail; a request unanswered for request.timeout.ms is sent
      // again (commitSync) or fails (commitAsync).
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
          if (c.deadline_timer == id) c.deadline_timer = group_timers_.set(c.deadline - now, ConsumerGroupTimer::kCommit);
          if (c.request_timer == id && c.in_flight != 0) {
            c.request_timer = group_timers_.set(c.sent + millis(config_.request_timeout_ms) - now, ConsumerGroupTimer::kCommit);
          }
        }
      }
      for (auto cid : expired) finish_commit(cid, ErrorCode::REQUEST_TIMED_OUT);
      for (auto cid : resend) send_commit(cid);
      return;
    }
  }
}

}  // namespace logsim::engine
