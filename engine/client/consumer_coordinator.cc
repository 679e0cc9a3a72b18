// The consumer's group membership: Kafka's ConsumerCoordinator over the classic protocol.
// (The behaviour is summarised at the top of consumer_coordinator.h.)
#include "engine/client/consumer_coordinator.h"

#include <algorithm>

#include "engine/client/consumer.h"
#include "engine/client/consumer_protocol.h"
#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

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

bool ConsumerCoordinator::coordinator_error(ErrorCode e) {
  return is_coordinator_error(e) || e == ErrorCode::NETWORK_EXCEPTION || e == ErrorCode::REQUEST_TIMED_OUT;
}

ConsumerCoordinator::ConsumerCoordinator(Env& env, TimerMux& timers, const ConsumerConfig& config, GroupHost& host)
    : env_(env), config_(config), host_(host), timers_(timers, [this](TimerId id, ConsumerGroupTimer tag) { on_timer(id, tag); }) {}

void ConsumerCoordinator::subscribe(std::vector<std::string> topics, RebalanceListener* listener) {
  LOGSIM_ASSERT(!config_.group_id.empty(), "subscribe() needs group.id");
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
  host_.refresh_metadata();
  find_coordinator();
}

// ---- The poll-time part: what the application thread does in Kafka.

void ConsumerCoordinator::on_poll() {
  group_.last_poll = env_.now();
  timers_.cancel(group_.poll_timer);
  group_.poll_timer = 0;
  if (group_.state == MemberState::kFatal) return;
  if (group_.state == MemberState::kStable || group_.state == MemberState::kSyncing) {
    group_.poll_timer = timers_.set(millis(config_.max_poll_interval_ms), ConsumerGroupTimer::kPollTimeout);
  }
  if (group_.pending_assignment) apply_assignment();
  // Auto-commit what earlier polls returned (the positions before this poll hands out more).
  if (config_.enable_auto_commit && group_.state == MemberState::kStable && env_.now() >= group_.next_auto_commit) {
    group_.next_auto_commit = env_.now() + millis(config_.auto_commit_interval_ms);
    auto offsets = host_.consumed();
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
void ConsumerCoordinator::start_prepare() {
  group_.join_started = true;
  if (group_.coordinator.value() < 0) {
    find_coordinator();
    return;
  }
  group_.state = MemberState::kPreparing;
  group_.prepare_commit = 0;
  group_.prepare_revoked = false;
  if (config_.enable_auto_commit && group_.generation >= 0) {
    auto offsets = host_.consumed();
    if (config_.plants.has(Plant::kAutoCommitFetchedOnRebalance)) {
      // PLANTED BUG (KAFKA-14196): commit past what was fetched but never returned by poll().
      for (const auto& [tp, end] : host_.fetched_ends()) {
        if (auto it = offsets.find(tp); it != offsets.end()) it->second = end;
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

void ConsumerCoordinator::continue_prepare() {
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
      host_.assign_from_group(group_.owned);
      fetch_committed();
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

void ConsumerCoordinator::send_join() {
  group_.state = MemberState::kJoining;
  group_.assigned_counts.clear();  // set again if this member leads the next assignment
  group_.rejoin_needed = false;
  group_.join_started = false;
  JoinGroupRequest req;  // (the channel numbers it)
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
  group_.join_sent = env_.now();
  group_.join_in_flight = host_.channel().send(group_.coordinator, std::move(req));
  timers_.cancel(group_.retry_timer);
  // Kafka's JoinGroup timeout: the rebalance timeout plus 5 s.
  group_.retry_timer = timers_.set(millis(config_.max_poll_interval_ms) + seconds(5), ConsumerGroupTimer::kGroupRetry);
}

// The leader computes every member's assignment (once it has metadata for their topics).
void ConsumerCoordinator::try_assign() {
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
        if (host_.metadata().knows(t)) {
          input.partitions_per_topic[t] = host_.metadata().partition_count(t);
        } else {
          missing = true;
        }
      }
    }
    input.members.push_back(std::move(ms));
  }
  if (missing && group_.state != MemberState::kAssigning) {
    group_.state = MemberState::kAssigning;  // on_metadata calls again when metadata arrives
    host_.refresh_metadata();
    return;
  }
  auto assignor = std::find_if(group_.assignors.begin(), group_.assignors.end(),
                               [&](const PartitionAssignor& a) { return a.name == join.protocol_name; });
  if (assignor == group_.assignors.end()) {
    fail(ErrorCode::INCONSISTENT_GROUP_PROTOCOL);
    return;
  }
  // The planted cooperative-double-ownership bug lives in the cooperative-sticky assignor.
  group_.assigned_counts = input.partitions_per_topic;
  const GroupAssignment result = assignor->name == "cooperative-sticky" && !config_.plants.empty()
                                     ? cooperative_sticky_assign(input, config_.plants)
                                     : assignor->assign(input);
  std::vector<SyncGroupAssignment> assignments;
  for (const auto& [member, partitions] : result) assignments.push_back({member, encode_assignment({partitions})});
  send_sync(std::move(assignments));
}

void ConsumerCoordinator::send_sync(std::vector<SyncGroupAssignment> assignments) {
  group_.state = MemberState::kSyncing;
  group_.join_in_flight = host_.channel().send(group_.coordinator, SyncGroupRequest{0, config_.group_id, group_.generation, group_.member_id,
                                                                                   config_.group_instance_id, std::move(assignments)});
  timers_.cancel(group_.retry_timer);
  group_.retry_timer = timers_.set(millis(config_.request_timeout_ms), ConsumerGroupTimer::kGroupRetry);
  arm_heartbeat();  // heartbeats run from the JoinGroup answer on
}

// onJoinComplete, at poll: COOPERATIVE revokes what moved away (and rejoins), then assigns.
void ConsumerCoordinator::apply_assignment() {
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
  host_.assign_from_group(assigned);
  fetch_committed();
  if (group_.listener != nullptr && !revoked.empty()) group_.listener->on_partitions_revoked(revoked);
  if (!revoked.empty() && group_.protocol == RebalanceProtocol::kCooperative) request_rejoin();
  if (group_.listener != nullptr) group_.listener->on_partitions_assigned(added);
}

// ---- The background part: what Kafka's heartbeat thread and network client do.

void ConsumerCoordinator::find_coordinator() {
  if (group_.find_in_flight != 0 || group_.coordinator.value() >= 0) return;
  if (env_.now() < group_.find_backoff_until) {
    if (group_.retry_timer == 0) group_.retry_timer = timers_.set(group_.find_backoff_until - env_.now(), ConsumerGroupTimer::kGroupRetry);
    return;
  }
  group_.find_target = host_.channel().any_bootstrap();
  group_.find_in_flight = host_.channel().send(group_.find_target, FindCoordinatorRequest{0, config_.group_id, CoordinatorKeyType::kGroup});
  timers_.cancel(group_.retry_timer);
  group_.retry_timer = timers_.set(millis(config_.request_timeout_ms), ConsumerGroupTimer::kGroupRetry);
}

// markCoordinatorUnknown: requests in flight to it are abandoned and retried elsewhere.
void ConsumerCoordinator::coordinator_lost() {
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

void ConsumerCoordinator::send_heartbeat() {
  if (group_.state != MemberState::kStable && group_.state != MemberState::kSyncing) return;
  if (group_.coordinator.value() < 0) return;
  // No answer to heartbeats for a whole session: the coordinator is gone (client side).
  if (env_.now() - group_.last_heartbeat_ok > millis(config_.session_timeout_ms)) {
    coordinator_lost();
    return;
  }
  if (group_.heartbeat_in_flight == 0) {
    group_.heartbeat_in_flight = host_.channel().send(
        group_.coordinator, HeartbeatRequest{0, config_.group_id, group_.generation, group_.member_id, config_.group_instance_id});
  }
  arm_heartbeat();
}

void ConsumerCoordinator::arm_heartbeat() {
  timers_.cancel(group_.heartbeat_timer);
  group_.heartbeat_timer = timers_.set(millis(config_.heartbeat_interval_ms), ConsumerGroupTimer::kHeartbeat);
}

void ConsumerCoordinator::reset_generation(bool keep_member_id) {
  group_.generation = -1;
  group_.assigned_counts.clear();
  if (!keep_member_id) group_.member_id.clear();
  group_.protocol_name.clear();
  timers_.cancel(group_.heartbeat_timer);
  group_.heartbeat_timer = 0;
  group_.heartbeat_in_flight = 0;
}

void ConsumerCoordinator::request_rejoin() {
  group_.rejoin_needed = true;
  if (group_.state != MemberState::kStable && group_.state != MemberState::kFatal &&
      group_.state != MemberState::kPreparing) {
    group_.state = MemberState::kUnjoined;
    group_.join_in_flight = 0;
  }
}

void ConsumerCoordinator::group_retry_later() {
  timers_.cancel(group_.retry_timer);
  group_.retry_timer = timers_.set(millis(config_.retry_backoff_ms), ConsumerGroupTimer::kGroupRetry);
}

void ConsumerCoordinator::on_poll_timeout() {
  group_.poll_timer = 0;
  if (group_.state != MemberState::kStable && group_.state != MemberState::kSyncing) return;
  // maybeLeaveGroup("consumer poll timeout has expired"): a static member only drops its
  // generation and lets the session time out.
  if (!config_.group_instance_id) {
    host_.channel().send(group_.coordinator,
                         LeaveGroupRequest{0, config_.group_id,
                                           {LeaveGroupMember{group_.member_id, std::nullopt, "consumer poll timeout has expired"}}});
  }
  reset_generation(false);
  group_.state = MemberState::kUnjoined;
  group_.join_in_flight = 0;
  group_.rejoin_needed = true;
}

void ConsumerCoordinator::close() {
  if (!group_.subscribed || group_.state == MemberState::kFatal) return;
  if (group_.generation >= 0 && config_.enable_auto_commit) {
    auto offsets = host_.consumed();
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
    host_.channel().send(group_.coordinator, LeaveGroupRequest{0, config_.group_id,
                                                               {LeaveGroupMember{group_.member_id, std::nullopt, "the consumer is being closed"}}});
  }
  group_.owned.clear();
  reset_generation(false);
  group_.state = MemberState::kFatal;  // closed: nothing more
}

// ---- Responses and timers.

bool ConsumerCoordinator::on_message(const Message& msg) {
  return std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, FindCoordinatorResponse>) {
          if (m.correlation_id != group_.find_in_flight) return false;  // another client's on this node
          on_find_coordinator(m);
        } else if constexpr (std::is_same_v<M, JoinGroupResponse>) {
          on_join(m);
        } else if constexpr (std::is_same_v<M, SyncGroupResponse>) {
          on_sync(m);
        } else if constexpr (std::is_same_v<M, HeartbeatResponse>) {
          on_heartbeat(m);
        } else if constexpr (std::is_same_v<M, OffsetCommitResponse>) {
          on_offset_commit(m);
        } else if constexpr (std::is_same_v<M, OffsetFetchResponse>) {
          on_offset_fetch(m);
        } else if constexpr (!std::is_same_v<M, LeaveGroupResponse>) {
          return false;
        }
        return true;
      },
      msg);
}

void ConsumerCoordinator::fail(ErrorCode error) {
  group_.state = MemberState::kFatal;
  if (group_.listener != nullptr) group_.listener->on_fatal(error);
}

// A JoinGroup or SyncGroup that failed: out of the group, and in again after a backoff (or
// once the coordinator is found again).
void ConsumerCoordinator::rejoin_after(ErrorCode error) {
  group_.state = MemberState::kUnjoined;
  group_.rejoin_needed = true;
  if (coordinator_error(error)) {
    coordinator_lost();
  } else {
    group_retry_later();
  }
}

void ConsumerCoordinator::on_find_coordinator(const FindCoordinatorResponse& resp) {
  if (resp.correlation_id != group_.find_in_flight) return;
  group_.find_in_flight = 0;
  timers_.cancel(group_.retry_timer);
  group_.retry_timer = 0;
  if (resp.error != ErrorCode::NONE) {
    group_.find_backoff_until = env_.now() + millis(config_.retry_backoff_ms);
    find_coordinator();
    return;
  }
  group_.coordinator = resp.node_id;
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
}

void ConsumerCoordinator::on_join(const JoinGroupResponse& resp) {
  if (resp.correlation_id != group_.join_in_flight || group_.state != MemberState::kJoining) return;
  group_.join_in_flight = 0;
  timers_.cancel(group_.retry_timer);
  group_.retry_timer = 0;
  switch (resp.error) {
    case ErrorCode::NONE:
      group_.member_id = resp.member_id;
      group_.generation = resp.generation_id;
      group_.protocol_name = resp.protocol_name;
      group_.last_heartbeat_ok = env_.now();
      if (resp.leader == resp.member_id) {
        group_.leader_join = resp;
        try_assign();
      } else {
        group_.leader_join = {};
        send_sync({});
      }
      return;
    case ErrorCode::MEMBER_ID_REQUIRED:
      group_.member_id = resp.member_id;
      send_join();
      return;
    case ErrorCode::UNKNOWN_MEMBER_ID:
    case ErrorCode::ILLEGAL_GENERATION:
      reset_generation(resp.error == ErrorCode::ILLEGAL_GENERATION);
      break;
    default:
      if (fatal_group_error(resp.error)) {
        fail(resp.error);
        return;
      }
      break;  // REBALANCE_IN_PROGRESS, the coordinator's errors and the rest: join again
  }
  rejoin_after(resp.error);
}

void ConsumerCoordinator::on_sync(const SyncGroupResponse& resp) {
  if (resp.correlation_id != group_.join_in_flight || group_.state != MemberState::kSyncing) return;
  group_.join_in_flight = 0;
  timers_.cancel(group_.retry_timer);
  group_.retry_timer = 0;
  if (resp.error == ErrorCode::NONE) {
    auto a = resp.assignment.empty() ? std::optional<ConsumerAssignment>(ConsumerAssignment{})
                                     : decode_assignment(resp.assignment);
    group_.pending_assignment = a ? a->partitions : std::vector<TopicPartition>{};
    group_.state = MemberState::kStable;
    group_.leader_join = {};
    timers_.cancel(group_.poll_timer);
    group_.poll_timer = timers_.set(millis(config_.max_poll_interval_ms) - (env_.now() - group_.last_poll), ConsumerGroupTimer::kPollTimeout);
    return;
  }
  if (fatal_group_error(resp.error)) {
    fail(resp.error);
    return;
  }
  if (resp.error == ErrorCode::UNKNOWN_MEMBER_ID || resp.error == ErrorCode::ILLEGAL_GENERATION) {
    reset_generation(resp.error == ErrorCode::ILLEGAL_GENERATION);
  }
  rejoin_after(resp.error);
}

void ConsumerCoordinator::on_heartbeat(const HeartbeatResponse& resp) {
  if (resp.correlation_id != group_.heartbeat_in_flight) return;
  group_.heartbeat_in_flight = 0;
  switch (resp.error) {
    case ErrorCode::NONE:
      group_.last_heartbeat_ok = env_.now();
      return;
    case ErrorCode::REBALANCE_IN_PROGRESS:
      group_.last_heartbeat_ok = env_.now();
      if (group_.state == MemberState::kStable) group_.rejoin_needed = true;
      return;
    case ErrorCode::FENCED_INSTANCE_ID:
      fail(resp.error);
      return;
    case ErrorCode::ILLEGAL_GENERATION:
    case ErrorCode::UNKNOWN_MEMBER_ID:
      reset_generation(resp.error == ErrorCode::ILLEGAL_GENERATION);
      group_.state = MemberState::kUnjoined;
      group_.join_in_flight = 0;
      group_.rejoin_needed = true;
      return;
    default:
      if (coordinator_error(resp.error)) coordinator_lost();
      return;
  }
}

void ConsumerCoordinator::on_timer(TimerId id, ConsumerGroupTimer tag) {
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
    case ConsumerGroupTimer::kCommit:
      on_commit_timer(id);
      return;
    case ConsumerGroupTimer::kOffsetFetch:
      if (id != group_.offset_fetch_timer) return;
      group_.offset_fetch_timer = 0;
      fetch_committed();
      return;
  }
}

// ---- The consumer's other duties toward the group.

void ConsumerCoordinator::add_metadata_topics(const std::function<void(const std::string&)>& add) const {
  for (const auto& t : group_.topics) add(t);
  // The leader assigns every member's topics.
  for (const auto& m : group_.leader_join.members) {
    if (auto sub = decode_subscription(m.metadata)) {
      for (const auto& t : sub->topics) add(t);
    }
  }
}

void ConsumerCoordinator::on_metadata() {
  if (group_.state == MemberState::kAssigning) try_assign();
  if (group_.state != MemberState::kStable || group_.assigned_counts.empty()) return;
  for (const auto& [topic, count] : group_.assigned_counts) {
    const std::int32_t now = host_.metadata().partition_count(topic);
    if (now > 0 && now != count) {
      // Kafka: "the metadata has changed since the assignment": the leader rejoins.
      group_.assigned_counts.clear();
      request_rejoin();
      return;
    }
  }
}

void ConsumerCoordinator::on_disconnect(NodeId peer) {
  if (!group_.subscribed) return;
  if (peer == group_.coordinator) coordinator_lost();
  if (group_.find_in_flight != 0 && peer == group_.find_target) {
    // FindCoordinator went to a broker that is down: ask another after a backoff.
    group_.find_in_flight = 0;
    group_.find_backoff_until = env_.now() + millis(config_.retry_backoff_ms);
    timers_.cancel(group_.retry_timer);
    group_.retry_timer = 0;
    find_coordinator();
  }
}

}  // namespace logsim::engine
