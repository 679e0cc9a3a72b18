// The group coordinator (see group_coordinator.h): Kafka's GroupCoordinator and
// GroupMetadataManager for the classic protocol, over the Group model of group.h.
//
// Lifetimes. Groups live in `groups` (an ordered map, so every iteration is deterministic)
// and are erased only when a partition is unloaded or a deletion completes. Nothing that
// outlives one call holds a pointer into it: timers are looked up in `timers` by id, and
// append callbacks carry an AppendContext (group id, the Group's incarnation, the partition's
// load epoch) and look the group up again when they run. A callback that finds the partition
// unloaded (or reloaded since) answers NOT_COORDINATOR; one that finds another incarnation of
// the group leaves it alone.
//
// Timers. Every armed timer is in `timers` until it fires or is disarmed; members, pending
// members and the delayed join keep the ids of theirs, so removing a member always disarms
// its timer. A member's session timer restarts whenever it is answered (join, sync, heartbeat,
// commit); when it fires, the member is removed unless the coordinator holds a request of it.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>

#include "engine/coordinator/group_coordinator_impl.h"
#include "engine/base/assert.h"

namespace logsim::engine {

std::int32_t GroupCoordinator::Impl::partition_of(std::string_view group_id) const {
  return partition_for(group_id, num_partitions).value();
}

bool GroupCoordinator::Impl::leads(std::string_view group_id) const {
  return num_partitions > 0 && led.count(partition_of(group_id)) > 0;
}

// The error every group API answers before looking at the group, or NONE.
ErrorCode GroupCoordinator::Impl::check_group_request(std::string_view group_id) const {
  if (group_id.empty()) return ErrorCode::INVALID_GROUP_ID;
  if (!leads(group_id)) return ErrorCode::NOT_COORDINATOR;
  return ErrorCode::NONE;
}

Group* GroupCoordinator::Impl::find_group(std::string_view group_id) {
  auto it = groups.find(std::string(group_id));
  return it == groups.end() ? nullptr : &it->second;
}

Group& GroupCoordinator::Impl::create_group(const std::string& group_id) {
  auto [it, inserted] = groups.emplace(group_id, Group(group_id, next_incarnation++));
  LOGSIM_ASSERT(inserted, "group created twice");
  it->second.set_empty_since_ms(now_ms());
  return it->second;
}

GroupCoordinator::Impl::AppendContext GroupCoordinator::Impl::context_of(const Group& g) const {
  const std::int32_t p = partition_of(g.group_id());
  return {g.group_id(), g.incarnation(), p, led.at(p)};
}

bool GroupCoordinator::Impl::still_loaded(const AppendContext& ctx) const {
  auto it = led.find(ctx.partition);
  return it != led.end() && it->second == ctx.load_epoch;
}

// The group an append was made for, if it is still loaded and the same incarnation.
Group* GroupCoordinator::Impl::group_of(const AppendContext& ctx) {
  if (!still_loaded(ctx)) return nullptr;
  Group* g = find_group(ctx.group_id);
  return g != nullptr && g->incarnation() == ctx.incarnation ? g : nullptr;
}

void GroupCoordinator::Impl::append(const Group& g, std::vector<Record> records,
                                    std::function<void(const AppendContext&, ErrorCode)> done) {
  host.append(PartitionId(partition_of(g.group_id())), std::move(records), config.offsets_commit_timeout_ms,
              appended(g, std::move(done)));
}

void GroupCoordinator::Impl::append_transactional(const Group& g, std::vector<Record> records, TxnWriter writer,
                                                  std::function<void(const AppendContext&, ErrorCode)> done) {
  host.append_transactional(PartitionId(partition_of(g.group_id())), std::move(records), writer,
                            config.offsets_commit_timeout_ms, appended(g, std::move(done)));
}

InternalTopicHost::AppendDone GroupCoordinator::Impl::appended(const Group& g,
                                                               std::function<void(const AppendContext&, ErrorCode)> done) {
  return [weak = std::weak_ptr<bool>(alive), ctx = context_of(g), done = std::move(done)](ErrorCode e, Offset base) mutable {
    if (weak.expired()) return;
    ctx.base_offset = base;
    done(ctx, e);
  };
}

TimerId GroupCoordinator::Impl::arm(std::int32_t delay_ms, TimerPurpose purpose) {
  const TimerId id = timer_handle.set(millis(delay_ms), purpose.kind);
  timers.emplace(id, std::move(purpose));
  return id;
}

void GroupCoordinator::Impl::disarm(std::optional<TimerId>& timer) {
  if (!timer) return;
  timer_handle.cancel(*timer);
  timers.erase(*timer);
  timer.reset();
}

void GroupCoordinator::Impl::disarm(TimerId timer) {
  std::optional<TimerId> t = timer;
  disarm(t);
}

void GroupCoordinator::Impl::restart_session(Group& g, Member& m) {
  disarm(m.session_timer);
  m.session_timer = arm(m.session_timeout_ms, {CoordinatorTimer::kSession, g.group_id(), g.incarnation(), m.member_id});
}

void GroupCoordinator::Impl::on_timer(TimerId id) {
  auto it = timers.find(id);
  if (it == timers.end()) return;  // disarmed, or from before an unload
  const TimerPurpose purpose = std::move(it->second);
  timers.erase(it);
  if (purpose.kind == CoordinatorTimer::kOffsetsRetention) return on_retention_check();
  Group* g = find_group(purpose.group_id);
  if (g == nullptr || g->incarnation() != purpose.incarnation) return;
  switch (purpose.kind) {
    case CoordinatorTimer::kSession: on_session_expired(*g, purpose.member_id, id); break;
    case CoordinatorTimer::kPendingMember: on_pending_member_expired(*g, purpose.member_id, id); break;
    case CoordinatorTimer::kJoin: on_join_timer(*g, id); break;
    case CoordinatorTimer::kOffsetsRetention: break;  // handled above: no group of its own
  }
}

void GroupCoordinator::Impl::on_session_expired(Group& g, const std::string& member_id, TimerId id) {
  Member* m = g.find(member_id);
  if (m == nullptr || m->session_timer != id) return;
  m->session_timer.reset();
  // A member waiting on us is alive; its timer restarts when we answer it.
  if (m->awaiting_join || m->awaiting_sync) return;
  remove_member_and_update_group(g, member_id);
}

void GroupCoordinator::Impl::on_pending_member_expired(Group& g, const std::string& member_id, TimerId id) {
  auto it = g.pending_members().find(member_id);
  if (it == g.pending_members().end() || it->second != id) return;
  g.pending_members().erase(it);
  maybe_complete_join(g);
}

JoinGroupResponse GroupCoordinator::Impl::join_response(const Group& g, const Member& m,
                                                        CorrelationId correlation_id) const {
  JoinGroupResponse r;
  r.correlation_id = correlation_id;
  r.generation_id = g.generation();
  r.protocol_name = g.protocol_name().value_or("");
  r.leader = g.leader();
  r.member_id = m.member_id;
  if (g.is_leader(m.member_id)) r.members = g.current_member_metadata();
  return r;
}

void GroupCoordinator::Impl::send_join_error(NodeId to, CorrelationId correlation_id, ErrorCode error,
                                             std::string member_id) {
  JoinGroupResponse r;
  r.correlation_id = correlation_id;
  r.error = error;
  r.member_id = std::move(member_id);
  send(to, std::move(r));
}

void GroupCoordinator::Impl::send_sync(NodeId to, CorrelationId correlation_id, ErrorCode error, const Group* g,
                                       std::string assignment) {
  SyncGroupResponse r;
  r.correlation_id = correlation_id;
  r.error = error;
  if (g != nullptr && error == ErrorCode::NONE) r.protocol_name = g->protocol_name().value_or("");
  r.assignment = std::move(assignment);
  send(to, std::move(r));
}

// Answers a member's held JoinGroup and SyncGroup with an error (it is being removed,
// fenced, or the coordinator is unloading).
void GroupCoordinator::Impl::fail_held_requests(Member& m, ErrorCode error) {
  if (m.awaiting_join) send_join_error(m.awaiting_join->from, m.awaiting_join->correlation_id, error, m.member_id);
  if (m.awaiting_sync) send_sync(m.awaiting_sync->from, m.awaiting_sync->correlation_id, error, nullptr, "");
  m.awaiting_join.reset();
  m.awaiting_sync.reset();
}

// Holds a JoinGroup; one held before from the same member is answered REBALANCE_IN_PROGRESS.
void GroupCoordinator::Impl::hold_join(Member& m, NodeId from, CorrelationId correlation_id) {
  if (m.awaiting_join) {
    send_join_error(m.awaiting_join->from, m.awaiting_join->correlation_id, ErrorCode::REBALANCE_IN_PROGRESS,
                    m.member_id);
  }
  m.awaiting_join = HeldRequest{from, correlation_id};
}

void GroupCoordinator::Impl::hold_sync(Member& m, NodeId from, CorrelationId correlation_id) {
  if (m.awaiting_sync) {
    send_sync(m.awaiting_sync->from, m.awaiting_sync->correlation_id, ErrorCode::REBALANCE_IN_PROGRESS, nullptr, "");
  }
  m.awaiting_sync = HeldRequest{from, correlation_id};
}

void GroupCoordinator::Impl::maybe_prepare_rebalance(Group& g) {
  if (g.is(GroupState::kStable) || g.is(GroupState::kCompletingRebalance) || g.is(GroupState::kEmpty)) {
    prepare_rebalance(g);
  }
}

// Kafka's prepareRebalance: held SyncGroups are answered REBALANCE_IN_PROGRESS, and the join
// phase starts with its delayed completion (the initial delay for a group that was Empty).
void GroupCoordinator::Impl::prepare_rebalance(Group& g) {
  if (g.is(GroupState::kCompletingRebalance)) reset_and_propagate_assignment_error(g, ErrorCode::REBALANCE_IN_PROGRESS);
  const bool initial = g.is(GroupState::kEmpty);
  g.transition_to(GroupState::kPreparingRebalance);
  DelayedJoin& dj = g.delayed_join();
  disarm(dj.timer);
  dj.initial = initial;
  dj.new_member_added = false;
  const std::int32_t delay_ms = initial ? config.group_initial_rebalance_delay_ms : g.rebalance_timeout_ms();
  dj.remaining_ms = initial ? std::max(g.rebalance_timeout_ms() - delay_ms, 0) : 0;
  dj.timer = arm(delay_ms, {CoordinatorTimer::kJoin, g.group_id(), g.incarnation(), ""});
}

void GroupCoordinator::Impl::reset_and_propagate_assignment_error(Group& g, ErrorCode error) {
  for (Member& m : g.members()) {
    m.assignment.clear();
    if (!m.awaiting_sync) continue;
    send_sync(m.awaiting_sync->from, m.awaiting_sync->correlation_id, error, nullptr, "");
    m.awaiting_sync.reset();
    restart_session(g, m);
  }
}

// The join phase ends early once everyone is in, except during the initial delay, which
// only its timer ends (Kafka's InitialDelayedJoin never completes early).
void GroupCoordinator::Impl::maybe_complete_join(Group& g) {
  if (g.is(GroupState::kPreparingRebalance) && !g.delayed_join().initial && g.has_all_members_joined()) {
    complete_join(g);
  }
}

void GroupCoordinator::Impl::on_join_timer(Group& g, TimerId id) {
  DelayedJoin& dj = g.delayed_join();
  if (dj.timer != id) return;
  dj.timer.reset();
  if (!g.is(GroupState::kPreparingRebalance)) return;
  if (dj.initial && dj.new_member_added && dj.remaining_ms > 0) {
    // A member joined during the delay: wait once more, never past the rebalance timeout.
    const std::int32_t delay_ms = std::min(config.group_initial_rebalance_delay_ms, dj.remaining_ms);
    dj.remaining_ms = std::max(dj.remaining_ms - delay_ms, 0);
    dj.new_member_added = false;
    dj.timer = arm(delay_ms, {CoordinatorTimer::kJoin, g.group_id(), g.incarnation(), ""});
    return;
  }
  complete_join(g);
}

// Kafka's onCompleteJoin: members that did not rejoin are dropped, the next generation
// starts, and every held JoinGroup is answered (the leader with every member).
void GroupCoordinator::Impl::complete_join(Group& g) {
  LOGSIM_ASSERT(g.is(GroupState::kPreparingRebalance), "completing a join outside PreparingRebalance");
  DelayedJoin& dj = g.delayed_join();
  disarm(dj.timer);
  dj.initial = false;
  std::vector<std::string> not_rejoined;
  for (const Member& m : g.members()) {
    if (!m.awaiting_join) not_rejoined.push_back(m.member_id);
  }
  for (const std::string& id : not_rejoined) {
    disarm(g.find(id)->session_timer);
    g.remove(id);
  }
  for (auto& [id, timer] : g.pending_members()) disarm(timer);
  g.pending_members().clear();
  g.init_next_generation();
  if (g.is(GroupState::kEmpty)) {
    g.set_empty_since_ms(now_ms());
    store_group(g, [](const AppendContext&, ErrorCode) {});
    return;
  }
  for (Member& m : g.members()) {
    send(m.awaiting_join->from, join_response(g, m, m.awaiting_join->correlation_id));
    m.awaiting_join.reset();
    restart_session(g, m);
  }
}

// A member leaves or its session ends.
void GroupCoordinator::Impl::remove_member_and_update_group(Group& g, const std::string& member_id) {
  Member* m = g.find(member_id);
  LOGSIM_ASSERT(m != nullptr, "removing an unknown member");
  fail_held_requests(*m, ErrorCode::UNKNOWN_MEMBER_ID);
  disarm(m->session_timer);
  g.remove(member_id);
  switch (g.state()) {
    case GroupState::kStable:
    case GroupState::kCompletingRebalance:
      prepare_rebalance(g);
      maybe_complete_join(g);
      break;
    case GroupState::kPreparingRebalance: maybe_complete_join(g); break;
    case GroupState::kEmpty:
    case GroupState::kDead: break;
  }
}

void GroupCoordinator::Impl::store_group(const Group& g, std::function<void(const AppendContext&, ErrorCode)> done) {
  store_group_value(g, g.to_stored(), std::move(done));
}

void GroupCoordinator::Impl::store_group_value(const Group& g, const GroupMetadataValue& value,
                                               std::function<void(const AppendContext&, ErrorCode)> done) {
  std::vector<Record> records;
  records.push_back(group_metadata_record(GroupMetadataKey{g.group_id()}, value, now_ms()));
  append(g, std::move(records), std::move(done));
}

// ------------------------------------------------------------------ GroupCoordinator

GroupCoordinator::GroupCoordinator(Env& env, TimerMux& timers, GroupCoordinatorConfig config, InternalTopicHost& host)
    : impl_(std::make_unique<Impl>(env, timers, config, host)) {}

GroupCoordinator::~GroupCoordinator() = default;

PartitionId GroupCoordinator::partition_for(std::string_view group_id, std::int32_t partitions) {
  LOGSIM_ASSERT(partitions > 0, "partition_for needs a positive partition count");
  // Java's String.hashCode, each byte taken as a char, with int32 wrap-around.
  std::uint32_t h = 0;
  for (char c : group_id) h = 31u * h + static_cast<unsigned char>(c);
  const auto hash = static_cast<std::int32_t>(h);
  // Kafka's Utils.abs: abs(Integer.MIN_VALUE) is 0.
  const std::int32_t abs = hash == std::numeric_limits<std::int32_t>::min() ? 0 : std::abs(hash);
  return PartitionId(abs % partitions);
}

void GroupCoordinator::on_leadership(const std::set<std::int32_t>& led, std::int32_t num_partitions) {
  impl_->on_leadership(led, num_partitions);
}

void GroupCoordinator::handle(NodeId from, const JoinGroupRequest& req) { impl_->handle_join(from, req); }
void GroupCoordinator::handle(NodeId from, const SyncGroupRequest& req) { impl_->handle_sync(from, req); }
void GroupCoordinator::handle(NodeId from, const HeartbeatRequest& req) { impl_->handle_heartbeat(from, req); }
void GroupCoordinator::handle(NodeId from, const LeaveGroupRequest& req) { impl_->handle_leave(from, req); }
void GroupCoordinator::handle(NodeId from, const OffsetCommitRequest& req) { impl_->handle_commit(from, req); }
void GroupCoordinator::handle(NodeId from, const OffsetFetchRequest& req) { impl_->handle_fetch(from, req); }
void GroupCoordinator::handle(NodeId from, const ListGroupsRequest& req) { impl_->handle_list(from, req); }
void GroupCoordinator::handle(NodeId from, const DescribeGroupsRequest& req) { impl_->handle_describe(from, req); }
void GroupCoordinator::handle(NodeId from, const DeleteGroupsRequest& req) { impl_->handle_delete(from, req); }
void GroupCoordinator::handle(NodeId from, const OffsetDeleteRequest& req) { impl_->handle_offset_delete(from, req); }
void GroupCoordinator::handle(NodeId from, const TxnOffsetCommitRequest& req) { impl_->handle_txn_commit(from, req); }

void GroupCoordinator::on_txn_completed(ProducerId producer_id, PartitionId partition, bool commit) {
  impl_->on_txn_completed(producer_id, partition.value(), commit);
}

std::string GroupCoordinator::group_state(std::string_view group_id) const {
  const Group* g = impl_->find_group(group_id);
  return std::string(group_state_name(g == nullptr ? GroupState::kDead : g->state()));
}

std::int32_t GroupCoordinator::group_generation(std::string_view group_id) const {
  const Group* g = impl_->find_group(group_id);
  return g == nullptr ? -1 : g->generation();
}

}  // namespace logsim::engine
