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
#include "engine/coordinator/group_coordinator.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "engine/coordinator/group.h"
#include "engine/coordinator/offsets_records.h"
#include "engine/env/assert.h"

namespace logsim::engine {
namespace {

// Kafka's mapping of a failed offset-commit append (GroupMetadataManager.storeOffsets).
ErrorCode map_commit_error(ErrorCode e) {
  switch (e) {
    case ErrorCode::NONE: return ErrorCode::NONE;
    case ErrorCode::NOT_LEADER_OR_FOLLOWER: return ErrorCode::NOT_COORDINATOR;
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::NOT_ENOUGH_REPLICAS:
    case ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode::REQUEST_TIMED_OUT: return ErrorCode::COORDINATOR_NOT_AVAILABLE;
    case ErrorCode::MESSAGE_TOO_LARGE: return ErrorCode::INVALID_COMMIT_OFFSET_SIZE;
    default: return ErrorCode::UNKNOWN_SERVER_ERROR;
  }
}

// Kafka's mapping of a failed group-metadata append (GroupMetadataManager.storeGroup): a
// timeout asks the members to rebalance again.
ErrorCode map_store_group_error(ErrorCode e) {
  switch (e) {
    case ErrorCode::NONE: return ErrorCode::NONE;
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::NOT_ENOUGH_REPLICAS:
    case ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND: return ErrorCode::COORDINATOR_NOT_AVAILABLE;
    case ErrorCode::NOT_LEADER_OR_FOLLOWER: return ErrorCode::NOT_COORDINATOR;
    case ErrorCode::REQUEST_TIMED_OUT: return ErrorCode::REBALANCE_IN_PROGRESS;
    default: return ErrorCode::UNKNOWN_SERVER_ERROR;
  }
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace

struct GroupCoordinator::Impl {
  enum class TimerKind : std::uint64_t { kSession = 0, kPendingMember = 1, kJoin = 2 };
  struct TimerPurpose {
    TimerKind kind;
    std::string group_id;
    std::uint64_t incarnation;
    std::string member_id;  // "" for kJoin
  };
  // What an append's callback needs to find its group again.
  struct AppendContext {
    std::string group_id;
    std::uint64_t incarnation;
    std::int32_t partition;
    std::uint64_t load_epoch;
  };

  Env& env;
  GroupCoordinatorConfig config;
  OffsetsTopicHost& host;
  // Append callbacks may outlive the coordinator (the host completes them later); they hold a
  // weak reference to this and do nothing once it is gone.
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);
  std::int32_t num_partitions = 0;
  std::map<std::int32_t, std::uint64_t> led;  // __consumer_offsets partition -> load epoch
  std::uint64_t next_load_epoch = 1;
  std::uint64_t next_incarnation = 1;
  std::uint64_t member_id_counter = 0;
  std::map<std::string, Group> groups;
  std::map<TimerId, TimerPurpose> timers;

  Impl(Env& e, GroupCoordinatorConfig c, OffsetsTopicHost& h) : env(e), config(c), host(h) {}

  // ---------------------------------------------------------------- lookups and plumbing

  std::int32_t partition_of(std::string_view group_id) const {
    return partition_for(group_id, num_partitions).value();
  }
  bool leads(std::string_view group_id) const {
    return num_partitions > 0 && led.count(partition_of(group_id)) > 0;
  }
  // The error every group API answers before looking at the group, or NONE.
  ErrorCode check_group_request(std::string_view group_id) const {
    if (group_id.empty()) return ErrorCode::INVALID_GROUP_ID;
    if (!leads(group_id)) return ErrorCode::NOT_COORDINATOR;
    return ErrorCode::NONE;
  }
  Group* find_group(std::string_view group_id) {
    auto it = groups.find(std::string(group_id));
    return it == groups.end() ? nullptr : &it->second;
  }
  Group& create_group(const std::string& group_id) {
    auto [it, inserted] = groups.emplace(group_id, Group(group_id, next_incarnation++));
    LOGSIM_ASSERT(inserted, "group created twice");
    return it->second;
  }
  AppendContext context_of(const Group& g) const {
    const std::int32_t p = partition_of(g.group_id());
    return {g.group_id(), g.incarnation(), p, led.at(p)};
  }
  bool still_loaded(const AppendContext& ctx) const {
    auto it = led.find(ctx.partition);
    return it != led.end() && it->second == ctx.load_epoch;
  }
  // The group an append was made for, if it is still loaded and the same incarnation.
  Group* group_of(const AppendContext& ctx) {
    if (!still_loaded(ctx)) return nullptr;
    Group* g = find_group(ctx.group_id);
    return g != nullptr && g->incarnation() == ctx.incarnation ? g : nullptr;
  }
  void append(const Group& g, std::vector<Record> records, std::function<void(const AppendContext&, ErrorCode)> done) {
    AppendContext ctx = context_of(g);
    std::weak_ptr<bool> weak = alive;
    const PartitionId partition(ctx.partition);
    host.append(partition, std::move(records), config.offsets_commit_timeout_ms,
                [weak, ctx = std::move(ctx), done = std::move(done)](ErrorCode e) {
                  if (weak.expired()) return;
                  done(ctx, e);
                });
  }
  std::int64_t now_ms() const { return to_millis(env.now()); }
  template <typename Response>
  void send(NodeId to, Response response) {
    env.send(to, Message(std::move(response)));
  }

  // ---------------------------------------------------------------- timers

  TimerId arm(std::int32_t delay_ms, TimerPurpose purpose) {
    const std::uint64_t tag = kCoordinatorTagBase + static_cast<std::uint64_t>(purpose.kind);
    const TimerId id = env.set_timer(millis(delay_ms), tag);
    timers.emplace(id, std::move(purpose));
    return id;
  }
  void disarm(std::optional<TimerId>& timer) {
    if (!timer) return;
    env.cancel_timer(*timer);
    timers.erase(*timer);
    timer.reset();
  }
  void disarm(TimerId timer) {
    std::optional<TimerId> t = timer;
    disarm(t);
  }
  void restart_session(Group& g, Member& m) {
    disarm(m.session_timer);
    m.session_timer = arm(m.session_timeout_ms, {TimerKind::kSession, g.group_id(), g.incarnation(), m.member_id});
  }

  bool on_timer(TimerId id, std::uint64_t tag) {
    if (tag < kCoordinatorTagBase) return false;
    auto it = timers.find(id);
    if (it == timers.end()) return true;  // disarmed, or from before an unload
    const TimerPurpose purpose = std::move(it->second);
    timers.erase(it);
    Group* g = find_group(purpose.group_id);
    if (g == nullptr || g->incarnation() != purpose.incarnation) return true;
    switch (purpose.kind) {
      case TimerKind::kSession: on_session_expired(*g, purpose.member_id, id); break;
      case TimerKind::kPendingMember: on_pending_member_expired(*g, purpose.member_id, id); break;
      case TimerKind::kJoin: on_join_timer(*g, id); break;
    }
    return true;
  }

  void on_session_expired(Group& g, const std::string& member_id, TimerId id) {
    Member* m = g.find(member_id);
    if (m == nullptr || m->session_timer != id) return;
    m->session_timer.reset();
    // A member waiting on us is alive; its timer restarts when we answer it.
    if (m->awaiting_join || m->awaiting_sync) return;
    remove_member_and_update_group(g, member_id);
  }

  void on_pending_member_expired(Group& g, const std::string& member_id, TimerId id) {
    auto it = g.pending_members().find(member_id);
    if (it == g.pending_members().end() || it->second != id) return;
    g.pending_members().erase(it);
    maybe_complete_join(g);
  }

  // ---------------------------------------------------------------- answering held requests

  JoinGroupResponse join_response(const Group& g, const Member& m, CorrelationId correlation_id) const {
    JoinGroupResponse r;
    r.correlation_id = correlation_id;
    r.generation_id = g.generation();
    r.protocol_name = g.protocol_name().value_or("");
    r.leader = g.leader();
    r.member_id = m.member_id;
    if (g.is_leader(m.member_id)) r.members = g.current_member_metadata();
    return r;
  }
  void send_join_error(NodeId to, CorrelationId correlation_id, ErrorCode error, std::string member_id) {
    JoinGroupResponse r;
    r.correlation_id = correlation_id;
    r.error = error;
    r.member_id = std::move(member_id);
    send(to, std::move(r));
  }
  void send_sync(NodeId to, CorrelationId correlation_id, ErrorCode error, const Group* g, std::string assignment) {
    SyncGroupResponse r;
    r.correlation_id = correlation_id;
    r.error = error;
    if (g != nullptr && error == ErrorCode::NONE) r.protocol_name = g->protocol_name().value_or("");
    r.assignment = std::move(assignment);
    send(to, std::move(r));
  }
  // Answers a member's held JoinGroup and SyncGroup with an error (it is being removed,
  // fenced, or the coordinator is unloading).
  void fail_held_requests(Member& m, ErrorCode error) {
    if (m.awaiting_join) send_join_error(m.awaiting_join->from, m.awaiting_join->correlation_id, error, m.member_id);
    if (m.awaiting_sync) send_sync(m.awaiting_sync->from, m.awaiting_sync->correlation_id, error, nullptr, "");
    m.awaiting_join.reset();
    m.awaiting_sync.reset();
  }
  // Holds a JoinGroup; one held before from the same member is answered REBALANCE_IN_PROGRESS.
  void hold_join(Member& m, NodeId from, CorrelationId correlation_id) {
    if (m.awaiting_join) {
      send_join_error(m.awaiting_join->from, m.awaiting_join->correlation_id, ErrorCode::REBALANCE_IN_PROGRESS,
                      m.member_id);
    }
    m.awaiting_join = HeldRequest{from, correlation_id};
  }
  void hold_sync(Member& m, NodeId from, CorrelationId correlation_id) {
    if (m.awaiting_sync) {
      send_sync(m.awaiting_sync->from, m.awaiting_sync->correlation_id, ErrorCode::REBALANCE_IN_PROGRESS, nullptr, "");
    }
    m.awaiting_sync = HeldRequest{from, correlation_id};
  }

  // ---------------------------------------------------------------- rebalancing

  void maybe_prepare_rebalance(Group& g) {
    if (g.is(GroupState::kStable) || g.is(GroupState::kCompletingRebalance) || g.is(GroupState::kEmpty)) {
      prepare_rebalance(g);
    }
  }

  // Kafka's prepareRebalance: held SyncGroups are answered REBALANCE_IN_PROGRESS, and the join
  // phase starts with its delayed completion (the initial delay for a group that was Empty).
  void prepare_rebalance(Group& g) {
    if (g.is(GroupState::kCompletingRebalance)) reset_and_propagate_assignment_error(g, ErrorCode::REBALANCE_IN_PROGRESS);
    const bool initial = g.is(GroupState::kEmpty);
    g.transition_to(GroupState::kPreparingRebalance);
    DelayedJoin& dj = g.delayed_join();
    disarm(dj.timer);
    dj.initial = initial;
    dj.new_member_added = false;
    const std::int32_t delay_ms = initial ? config.group_initial_rebalance_delay_ms : g.rebalance_timeout_ms();
    dj.remaining_ms = initial ? std::max(g.rebalance_timeout_ms() - delay_ms, 0) : 0;
    dj.timer = arm(delay_ms, {TimerKind::kJoin, g.group_id(), g.incarnation(), ""});
  }

  void reset_and_propagate_assignment_error(Group& g, ErrorCode error) {
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
  void maybe_complete_join(Group& g) {
    if (g.is(GroupState::kPreparingRebalance) && !g.delayed_join().initial && g.has_all_members_joined()) {
      complete_join(g);
    }
  }

  void on_join_timer(Group& g, TimerId id) {
    DelayedJoin& dj = g.delayed_join();
    if (dj.timer != id) return;
    dj.timer.reset();
    if (!g.is(GroupState::kPreparingRebalance)) return;
    if (dj.initial && dj.new_member_added && dj.remaining_ms > 0) {
      // A member joined during the delay: wait once more, never past the rebalance timeout.
      const std::int32_t delay_ms = std::min(config.group_initial_rebalance_delay_ms, dj.remaining_ms);
      dj.remaining_ms = std::max(dj.remaining_ms - delay_ms, 0);
      dj.new_member_added = false;
      dj.timer = arm(delay_ms, {TimerKind::kJoin, g.group_id(), g.incarnation(), ""});
      return;
    }
    complete_join(g);
  }

  // Kafka's onCompleteJoin: members that did not rejoin are dropped, the next generation
  // starts, and every held JoinGroup is answered (the leader with every member).
  void complete_join(Group& g) {
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
  void remove_member_and_update_group(Group& g, const std::string& member_id) {
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

  void store_group(const Group& g, std::function<void(const AppendContext&, ErrorCode)> done) {
    store_group_value(g, g.to_stored(), std::move(done));
  }
  void store_group_value(const Group& g, const GroupMetadataValue& value,
                         std::function<void(const AppendContext&, ErrorCode)> done) {
    std::vector<Record> records;
    records.push_back(group_metadata_record(GroupMetadataKey{g.group_id()}, value, now_ms()));
    append(g, std::move(records), std::move(done));
  }

  // ---------------------------------------------------------------- JoinGroup

  std::string new_member_id(const Group& g, const std::string& client_id) {
    for (int attempt = 0; attempt < 16; ++attempt) {
      std::string id = client_id + "-" + hex64(env.rng().next_u64()) + "-" + std::to_string(++member_id_counter);
      if (!g.has(id) && !g.is_pending(id)) return id;
    }
    LOGSIM_ASSERT(false, "could not draw a fresh member id");
    return {};
  }

  // group.max.size counts members and pending members; a pending member rejoining does not
  // count against itself.
  bool group_full(const Group& g, std::string_view joining_member_id) const {
    std::size_t size = g.members().size() + g.pending_members().size();
    if (g.is_pending(joining_member_id)) --size;
    return size >= static_cast<std::size_t>(std::max(config.group_max_size, 0));
  }

  void handle_join(NodeId from, const JoinGroupRequest& req) {
    auto fail = [&](ErrorCode e) { send_join_error(from, req.correlation_id, e, req.member_id); };
    if (const ErrorCode e = check_group_request(req.group_id); e != ErrorCode::NONE) return fail(e);
    if (req.session_timeout_ms < config.group_min_session_timeout_ms ||
        req.session_timeout_ms > config.group_max_session_timeout_ms) {
      return fail(ErrorCode::INVALID_SESSION_TIMEOUT);
    }
    Group* g = find_group(req.group_id);
    if (g == nullptr) {
      if (!req.member_id.empty()) return fail(ErrorCode::UNKNOWN_MEMBER_ID);
      g = &create_group(req.group_id);
    }
    if (g->is(GroupState::kDead)) {
      return fail(req.member_id.empty() ? ErrorCode::COORDINATOR_NOT_AVAILABLE : ErrorCode::UNKNOWN_MEMBER_ID);
    }
    if (!g->supports_protocols(req.protocol_type, req.protocols)) return fail(ErrorCode::INCONSISTENT_GROUP_PROTOCOL);
    if (req.member_id.empty()) {
      join_new_member(from, req, *g);
    } else {
      join_known_member(from, req, *g);
    }
  }

  void join_new_member(NodeId from, const JoinGroupRequest& req, Group& g) {
    if (req.group_instance_id) {
      if (const auto old_id = g.static_member_id(*req.group_instance_id)) {
        return rejoin_static_member(from, req, g, *old_id);
      }
    }
    if (group_full(g, "")) {
      return send_join_error(from, req.correlation_id, ErrorCode::GROUP_MAX_SIZE_REACHED, req.member_id);
    }
    std::string member_id = new_member_id(g, req.client_id);
    if (req.group_instance_id) return add_member_and_rebalance(from, req, g, member_id);
    // KIP-394: a dynamic member must come back with its id before it counts as a member.
    g.pending_members()[member_id] =
        arm(req.session_timeout_ms, {TimerKind::kPendingMember, g.group_id(), g.incarnation(), member_id});
    send_join_error(from, req.correlation_id, ErrorCode::MEMBER_ID_REQUIRED, member_id);
  }

  void join_known_member(NodeId from, const JoinGroupRequest& req, Group& g) {
    auto fail = [&](ErrorCode e) { send_join_error(from, req.correlation_id, e, req.member_id); };
    if (g.is_static_member_fenced(req.group_instance_id, req.member_id)) return fail(ErrorCode::FENCED_INSTANCE_ID);
    if (g.is_pending(req.member_id)) {
      if (group_full(g, req.member_id)) return fail(ErrorCode::GROUP_MAX_SIZE_REACHED);
      disarm(g.pending_members().at(req.member_id));
      g.pending_members().erase(req.member_id);
      return add_member_and_rebalance(from, req, g, req.member_id);
    }
    Member* m = g.find(req.member_id);
    if (m == nullptr) return fail(ErrorCode::UNKNOWN_MEMBER_ID);
    switch (g.state()) {
      case GroupState::kPreparingRebalance: return update_member_and_rebalance(from, req, g, *m);
      case GroupState::kCompletingRebalance:
        if (m->protocols != req.protocols) return update_member_and_rebalance(from, req, g, *m);
        return answer_join_now(from, req.correlation_id, g, *m);
      case GroupState::kStable:
        if (g.is_leader(m->member_id) || m->protocols != req.protocols) {
          return update_member_and_rebalance(from, req, g, *m);
        }
        return answer_join_now(from, req.correlation_id, g, *m);
      case GroupState::kEmpty:
      case GroupState::kDead: return fail(ErrorCode::UNKNOWN_MEMBER_ID);
    }
  }

  void answer_join_now(NodeId from, CorrelationId correlation_id, Group& g, Member& m) {
    send(from, join_response(g, m, correlation_id));
    restart_session(g, m);
  }

  static void update_member(Member& m, const JoinGroupRequest& req) {
    m.protocols = req.protocols;
    m.session_timeout_ms = req.session_timeout_ms;
    m.rebalance_timeout_ms = req.rebalance_timeout_ms;
  }

  void add_member_and_rebalance(NodeId from, const JoinGroupRequest& req, Group& g, const std::string& member_id) {
    Member m;
    m.member_id = member_id;
    m.group_instance_id = req.group_instance_id;
    m.client_id = req.client_id;
    update_member(m, req);
    m.awaiting_join = HeldRequest{from, req.correlation_id};
    if (g.is(GroupState::kPreparingRebalance) && g.delayed_join().initial) g.delayed_join().new_member_added = true;
    g.add(std::move(m), req.protocol_type);
    restart_session(g, *g.find(member_id));
    maybe_prepare_rebalance(g);
    maybe_complete_join(g);
  }

  void update_member_and_rebalance(NodeId from, const JoinGroupRequest& req, Group& g, Member& m) {
    update_member(m, req);
    hold_join(m, from, req.correlation_id);
    maybe_prepare_rebalance(g);
    maybe_complete_join(g);
  }

  // KIP-345: a known group.instance.id joins with no member id (a restarted static member).
  // It replaces the old member id, keeping its place and assignment; a Stable group whose
  // protocol would not change needs no rebalance.
  void rejoin_static_member(NodeId from, const JoinGroupRequest& req, Group& g, const std::string& old_id) {
    Member* m = g.find(old_id);
    fail_held_requests(*m, ErrorCode::FENCED_INSTANCE_ID);
    const std::string old_leader = g.leader();
    const std::vector<JoinGroupProtocol> old_protocols = m->protocols;
    const std::string new_id = new_member_id(g, req.client_id);
    update_member(*m, req);
    g.replace_static_member(old_id, new_id);
    m = g.find(new_id);
    restart_session(g, *m);
    switch (g.state()) {
      case GroupState::kStable:
        if (g.protocol_name() == g.select_protocol()) {
          return store_static_member(from, req.correlation_id, g, old_id, new_id, old_leader, old_protocols);
        }
        [[fallthrough]];
      case GroupState::kCompletingRebalance:
      case GroupState::kPreparingRebalance:
        hold_join(*m, from, req.correlation_id);
        maybe_prepare_rebalance(g);
        maybe_complete_join(g);
        return;
      case GroupState::kEmpty:
      case GroupState::kDead: LOGSIM_ASSERT(false, "a static member in a group without members");
    }
  }

  // Persists the replaced member id, then answers with the current generation. The leader id
  // answered is the one from before the replacement, so that a replaced leader does not take
  // itself for the leader and compute an assignment a Stable group would ignore (Kafka does so).
  void store_static_member(NodeId from, CorrelationId correlation_id, Group& g, const std::string& old_id,
                           const std::string& new_id, const std::string& old_leader,
                           const std::vector<JoinGroupProtocol>& old_protocols) {
    store_group(g, [=, this](const AppendContext& ctx, ErrorCode e) {
      Group* group = group_of(ctx);
      Member* m = group != nullptr ? group->find(new_id) : nullptr;
      if (m == nullptr) {
        const ErrorCode error = still_loaded(ctx) ? ErrorCode::UNKNOWN_MEMBER_ID : ErrorCode::NOT_COORDINATOR;
        return send_join_error(from, correlation_id, error, new_id);
      }
      if (e != ErrorCode::NONE) {
        // Undo the replacement: the old member id stays valid, the new one never was.
        m->protocols = old_protocols;
        group->replace_static_member(new_id, old_id);
        restart_session(*group, *group->find(old_id));
        return send_join_error(from, correlation_id, map_store_group_error(e), "");
      }
      JoinGroupResponse r = join_response(*group, *m, correlation_id);
      r.leader = old_leader;
      r.members.clear();
      send(from, std::move(r));
      restart_session(*group, *m);
    });
  }

  // ---------------------------------------------------------------- SyncGroup

  void handle_sync(NodeId from, const SyncGroupRequest& req) {
    auto fail = [&](ErrorCode e) { send_sync(from, req.correlation_id, e, nullptr, ""); };
    if (const ErrorCode e = check_group_request(req.group_id); e != ErrorCode::NONE) return fail(e);
    Group* g = find_group(req.group_id);
    if (g == nullptr) return fail(ErrorCode::UNKNOWN_MEMBER_ID);
    if (g->is_static_member_fenced(req.group_instance_id, req.member_id)) return fail(ErrorCode::FENCED_INSTANCE_ID);
    Member* m = g->find(req.member_id);
    if (m == nullptr) return fail(ErrorCode::UNKNOWN_MEMBER_ID);
    if (req.generation_id != g->generation()) return fail(ErrorCode::ILLEGAL_GENERATION);
    switch (g->state()) {
      case GroupState::kEmpty:
      case GroupState::kDead: return fail(ErrorCode::UNKNOWN_MEMBER_ID);
      case GroupState::kPreparingRebalance: return fail(ErrorCode::REBALANCE_IN_PROGRESS);
      case GroupState::kCompletingRebalance:
        hold_sync(*m, from, req.correlation_id);
        if (g->is_leader(m->member_id)) store_assignment(*g, req.assignments);
        return;
      case GroupState::kStable:
        send_sync(from, req.correlation_id, ErrorCode::NONE, g, m->assignment);
        restart_session(*g, *m);
        return;
    }
  }

  // The leader's assignment is persisted with the group before anyone sees it, so that a new
  // coordinator after a failover resumes the same generation with the same assignment.
  void store_assignment(Group& g, const std::vector<SyncGroupAssignment>& given) {
    std::map<std::string, std::string> assignments;
    for (const Member& m : g.members()) assignments[m.member_id];  // members the leader left out get ""
    for (const SyncGroupAssignment& a : given) {
      auto it = assignments.find(a.member_id);
      if (it != assignments.end()) it->second = a.assignment;
    }
    GroupMetadataValue value = g.to_stored();
    for (StoredGroupMember& s : value.members) s.assignment = assignments[s.member_id];
    const std::int32_t generation = g.generation();
    store_group_value(g, value, [this, generation, assignments](const AppendContext& ctx, ErrorCode e) {
      Group* group = group_of(ctx);
      if (group == nullptr || !group->is(GroupState::kCompletingRebalance) || group->generation() != generation) return;
      if (e != ErrorCode::NONE) {
        reset_and_propagate_assignment_error(*group, map_store_group_error(e));
        maybe_prepare_rebalance(*group);
        maybe_complete_join(*group);
        return;
      }
      set_and_propagate_assignment(*group, assignments);
    });
  }

  void set_and_propagate_assignment(Group& g, const std::map<std::string, std::string>& assignments) {
    for (Member& m : g.members()) {
      auto it = assignments.find(m.member_id);
      m.assignment = it == assignments.end() ? std::string() : it->second;
      if (m.awaiting_sync) {
        send_sync(m.awaiting_sync->from, m.awaiting_sync->correlation_id, ErrorCode::NONE, &g, m.assignment);
        m.awaiting_sync.reset();
      }
      restart_session(g, m);
    }
    g.transition_to(GroupState::kStable);
  }

  // ---------------------------------------------------------------- Heartbeat, LeaveGroup

  void handle_heartbeat(NodeId from, const HeartbeatRequest& req) {
    send(from, HeartbeatResponse{req.correlation_id, heartbeat(req)});
  }

  ErrorCode heartbeat(const HeartbeatRequest& req) {
    if (const ErrorCode e = check_group_request(req.group_id); e != ErrorCode::NONE) return e;
    Group* g = find_group(req.group_id);
    if (g == nullptr || g->is(GroupState::kDead)) return ErrorCode::UNKNOWN_MEMBER_ID;
    if (g->is_static_member_fenced(req.group_instance_id, req.member_id)) return ErrorCode::FENCED_INSTANCE_ID;
    Member* m = g->find(req.member_id);
    if (m == nullptr) return ErrorCode::UNKNOWN_MEMBER_ID;
    if (req.generation_id != g->generation()) return ErrorCode::ILLEGAL_GENERATION;
    switch (g->state()) {
      case GroupState::kEmpty:
      case GroupState::kDead: return ErrorCode::UNKNOWN_MEMBER_ID;
      case GroupState::kPreparingRebalance:
        restart_session(*g, *m);
        return ErrorCode::REBALANCE_IN_PROGRESS;
      case GroupState::kCompletingRebalance:
      case GroupState::kStable:
        restart_session(*g, *m);
        return ErrorCode::NONE;
    }
    return ErrorCode::UNKNOWN_SERVER_ERROR;
  }

  void handle_leave(NodeId from, const LeaveGroupRequest& req) {
    LeaveGroupResponse r;
    r.correlation_id = req.correlation_id;
    r.error = check_group_request(req.group_id);
    Group* g = r.error == ErrorCode::NONE ? find_group(req.group_id) : nullptr;
    if (g != nullptr && g->is(GroupState::kDead)) r.error = ErrorCode::COORDINATOR_NOT_AVAILABLE;
    if (r.error == ErrorCode::NONE) {
      for (const LeaveGroupMember& leaving : req.members) {
        r.member_errors.push_back(g == nullptr ? ErrorCode::UNKNOWN_MEMBER_ID : leave(*g, leaving));
      }
    }
    send(from, std::move(r));
  }

  ErrorCode leave(Group& g, const LeaveGroupMember& leaving) {
    std::string member_id = leaving.member_id;
    if (leaving.group_instance_id) {
      const auto current = g.static_member_id(*leaving.group_instance_id);
      if (!current) return ErrorCode::UNKNOWN_MEMBER_ID;
      if (!member_id.empty() && *current != member_id) return ErrorCode::FENCED_INSTANCE_ID;
      member_id = *current;
    } else if (auto it = g.pending_members().find(member_id); it != g.pending_members().end()) {
      disarm(it->second);
      g.pending_members().erase(it);
      maybe_complete_join(g);
      return ErrorCode::NONE;
    }
    if (!g.has(member_id)) return ErrorCode::UNKNOWN_MEMBER_ID;
    remove_member_and_update_group(g, member_id);
    return ErrorCode::NONE;
  }

  // ---------------------------------------------------------------- OffsetCommit, OffsetFetch

  void answer_commit(NodeId to, CorrelationId correlation_id, const std::vector<OffsetCommitPartition>& partitions,
                     ErrorCode error) {
    OffsetCommitResponse r;
    r.correlation_id = correlation_id;
    for (const OffsetCommitPartition& p : partitions) r.partitions.push_back({p.topic, p.partition, error});
    send(to, std::move(r));
  }

  void handle_commit(NodeId from, const OffsetCommitRequest& req) {
    const ErrorCode e = validate_commit(req);
    if (e != ErrorCode::NONE) return answer_commit(from, req.correlation_id, req.partitions, e);
    Group* g = find_group(req.group_id);
    if (g == nullptr) g = &create_group(req.group_id);  // generation < 0: an admin or manual commit
    commit_offsets(from, req, *g);
  }

  // Kafka's rules for accepting a commit (GroupCoordinator.handleCommitOffsets); a member's
  // accepted commit also counts as a heartbeat.
  ErrorCode validate_commit(const OffsetCommitRequest& req) {
    if (const ErrorCode e = check_group_request(req.group_id); e != ErrorCode::NONE) return e;
    Group* g = find_group(req.group_id);
    if (g == nullptr) return req.generation_id < 0 ? ErrorCode::NONE : ErrorCode::ILLEGAL_GENERATION;
    if (g->is(GroupState::kDead)) return ErrorCode::COORDINATOR_NOT_AVAILABLE;
    if (req.generation_id < 0 && g->is(GroupState::kEmpty)) return ErrorCode::NONE;
    // PLANTED BUG (accept-stale-commit): a commit from an older generation is taken as if current.
    if (config.plants.has(Plant::kAcceptStaleCommit) && req.generation_id >= 0 && req.generation_id < g->generation()) {
      return ErrorCode::NONE;
    }
    if (g->is_static_member_fenced(req.group_instance_id, req.member_id)) return ErrorCode::FENCED_INSTANCE_ID;
    Member* m = g->find(req.member_id);
    if (m == nullptr) return ErrorCode::UNKNOWN_MEMBER_ID;
    if (req.generation_id != g->generation()) return ErrorCode::ILLEGAL_GENERATION;
    switch (g->state()) {
      case GroupState::kCompletingRebalance: return ErrorCode::REBALANCE_IN_PROGRESS;
      case GroupState::kStable:
      case GroupState::kPreparingRebalance:
        restart_session(*g, *m);
        return ErrorCode::NONE;
      case GroupState::kEmpty:
      case GroupState::kDead: return ErrorCode::UNKNOWN_MEMBER_ID;
    }
    return ErrorCode::UNKNOWN_SERVER_ERROR;
  }

  // One append for every partition of the request; the offsets become visible to OffsetFetch
  // only once it completes.
  void commit_offsets(NodeId from, const OffsetCommitRequest& req, Group& g) {
    if (req.partitions.empty()) return answer_commit(from, req.correlation_id, req.partitions, ErrorCode::NONE);
    const std::int64_t timestamp_ms = now_ms();
    std::vector<Record> records;
    for (const OffsetCommitPartition& p : req.partitions) {
      records.push_back(offset_commit_record({g.group_id(), p.topic, p.partition},
                                             OffsetCommitValue{p.committed_offset, p.metadata, timestamp_ms},
                                             timestamp_ms));
      ++g.pending_commits()[{p.topic, p.partition}];
    }
    append(g, std::move(records),
           [this, from, correlation_id = req.correlation_id, partitions = req.partitions, timestamp_ms](
               const AppendContext& ctx, ErrorCode e) {
             on_offsets_appended(from, correlation_id, partitions, timestamp_ms, ctx, e);
           });
  }

  void on_offsets_appended(NodeId from, CorrelationId correlation_id, const std::vector<OffsetCommitPartition>& partitions,
                           std::int64_t timestamp_ms, const AppendContext& ctx, ErrorCode e) {
    Group* g = group_of(ctx);
    if (g != nullptr) {
      for (const OffsetCommitPartition& p : partitions) {
        auto it = g->pending_commits().find({p.topic, p.partition});
        if (it != g->pending_commits().end() && --it->second <= 0) g->pending_commits().erase(it);
        if (e == ErrorCode::NONE && !g->is(GroupState::kDead)) {
          g->offsets()[{p.topic, p.partition}] = CommittedOffset{p.committed_offset, p.metadata, timestamp_ms};
        }
      }
    }
    const ErrorCode error = still_loaded(ctx) ? map_commit_error(e) : ErrorCode::NOT_COORDINATOR;
    answer_commit(from, correlation_id, partitions, error);
  }

  void handle_fetch(NodeId from, const OffsetFetchRequest& req) {
    OffsetFetchResponse r;
    r.correlation_id = req.correlation_id;
    r.error = check_group_request(req.group_id);
    const Group* g = r.error == ErrorCode::NONE ? find_group(req.group_id) : nullptr;
    if (g != nullptr && !req.partitions) {
      for (const auto& [tp, c] : g->offsets()) r.partitions.push_back({tp.topic, tp.partition, c.offset, c.metadata, ErrorCode::NONE});
    } else if (r.error == ErrorCode::NONE && req.partitions) {
      for (const OffsetFetchPartitionRef& ref : *req.partitions) {
        OffsetFetchPartition p{ref.topic, ref.partition, Offset(-1), "", ErrorCode::NONE};
        if (g != nullptr) {
          auto it = g->offsets().find({ref.topic, ref.partition});
          if (it != g->offsets().end()) {
            p.committed_offset = it->second.offset;
            p.metadata = it->second.metadata;
          }
        }
        r.partitions.push_back(std::move(p));
      }
    }
    send(from, std::move(r));
  }

  // ---------------------------------------------------------------- admin APIs

  void handle_list(NodeId from, const ListGroupsRequest& req) {
    ListGroupsResponse r;
    r.correlation_id = req.correlation_id;
    for (const auto& [id, g] : groups) {
      if (g.is(GroupState::kDead) || !leads(id)) continue;
      r.groups.push_back({id, g.protocol_type(), std::string(group_state_name(g.state()))});
    }
    send(from, std::move(r));
  }

  void handle_describe(NodeId from, const DescribeGroupsRequest& req) {
    DescribeGroupsResponse r;
    r.correlation_id = req.correlation_id;
    r.group_id = req.group_id;
    r.state = "Dead";
    r.error = check_group_request(req.group_id);
    const Group* g = r.error == ErrorCode::NONE ? find_group(req.group_id) : nullptr;
    if (g != nullptr && !g->is(GroupState::kDead)) {
      // As Kafka: the protocol, metadata and assignments only for a Stable group.
      const bool stable = g->is(GroupState::kStable);
      r.state = std::string(group_state_name(g->state()));
      r.protocol_type = g->protocol_type();
      r.protocol_name = stable ? g->protocol_name().value_or("") : "";
      r.generation_id = g->generation();
      for (const Member& m : g->members()) {
        r.members.push_back({m.member_id, m.group_instance_id, m.client_id,
                             stable ? m.metadata_for(r.protocol_name) : "", stable ? m.assignment : ""});
      }
    }
    send(from, std::move(r));
  }

  // Deletes an Empty group: tombstones for its group record and every offset (also those
  // still being committed). The group is Dead while they are appended, then forgotten.
  void handle_delete(NodeId from, const DeleteGroupsRequest& req) {
    auto answer = [&](ErrorCode e) { send(from, DeleteGroupsResponse{req.correlation_id, req.group_id, e}); };
    if (const ErrorCode e = check_group_request(req.group_id); e != ErrorCode::NONE) return answer(e);
    Group* g = find_group(req.group_id);
    if (g == nullptr || g->is(GroupState::kDead)) return answer(ErrorCode::GROUP_ID_NOT_FOUND);
    if (!g->is(GroupState::kEmpty)) return answer(ErrorCode::NON_EMPTY_GROUP);
    const std::int64_t ts = now_ms();
    std::vector<Record> records;
    records.push_back(group_metadata_record(GroupMetadataKey{g->group_id()}, std::nullopt, ts));
    std::set<TopicPartition> keys;
    for (const auto& [tp, c] : g->offsets()) keys.insert(tp);
    for (const auto& [tp, n] : g->pending_commits()) keys.insert(tp);
    for (const TopicPartition& tp : keys) {
      records.push_back(offset_commit_record({g->group_id(), tp.topic, tp.partition}, std::nullopt, ts));
    }
    for (auto& [id, timer] : g->pending_members()) disarm(timer);
    g->pending_members().clear();
    g->transition_to(GroupState::kDead);
    append(*g, std::move(records),
           [this, from, correlation_id = req.correlation_id, group_id = req.group_id](const AppendContext& ctx,
                                                                                     ErrorCode e) {
             if (group_of(ctx) != nullptr) groups.erase(ctx.group_id);
             const ErrorCode error = still_loaded(ctx) ? map_commit_error(e) : ErrorCode::NOT_COORDINATOR;
             send(from, DeleteGroupsResponse{correlation_id, group_id, error});
           });
  }

  void handle_offset_delete(NodeId from, const OffsetDeleteRequest& req) {
    OffsetDeleteResponse r;
    r.correlation_id = req.correlation_id;
    r.error = check_group_request(req.group_id);
    Group* g = r.error == ErrorCode::NONE ? find_group(req.group_id) : nullptr;
    if (r.error == ErrorCode::NONE && (g == nullptr || g->is(GroupState::kDead))) r.error = ErrorCode::GROUP_ID_NOT_FOUND;
    if (r.error != ErrorCode::NONE) return send(from, std::move(r));
    // The coordinator cannot read subscriptions (opaque metadata), so a group with members
    // refuses every partition.
    const ErrorCode refused = g->is(GroupState::kEmpty) ? ErrorCode::NONE : ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC;
    for (const OffsetFetchPartitionRef& p : req.partitions) r.partitions.push_back({p.topic, p.partition, refused});
    std::vector<Record> records;
    std::vector<TopicPartition> deleted;
    for (const OffsetFetchPartitionRef& p : req.partitions) {
      TopicPartition tp{p.topic, p.partition};
      if (refused != ErrorCode::NONE || g->offsets().count(tp) == 0) continue;
      if (std::find(deleted.begin(), deleted.end(), tp) != deleted.end()) continue;
      records.push_back(offset_commit_record({g->group_id(), tp.topic, tp.partition}, std::nullopt, now_ms()));
      deleted.push_back(std::move(tp));
    }
    if (records.empty()) return send(from, std::move(r));
    append(*g, std::move(records), [this, from, r = std::move(r), deleted](const AppendContext& ctx, ErrorCode e) mutable {
      Group* group = group_of(ctx);
      if (group != nullptr && e == ErrorCode::NONE) {
        for (const TopicPartition& tp : deleted) group->offsets().erase(tp);
      }
      const ErrorCode error = still_loaded(ctx) ? map_commit_error(e) : ErrorCode::NOT_COORDINATOR;
      for (OffsetCommitPartitionResult& p : r.partitions) p.error = error;
      send(from, std::move(r));
    });
  }

  // ---------------------------------------------------------------- loading and unloading

  void on_leadership(const std::set<std::int32_t>& now_led, std::int32_t partitions) {
    if (partitions != num_partitions) {
      // Groups map to partitions by the count: with a new count, reload everything.
      std::vector<std::int32_t> all;
      for (const auto& [p, epoch] : led) all.push_back(p);
      for (std::int32_t p : all) unload_partition(p);
      num_partitions = partitions;
    }
    std::vector<std::int32_t> lost;
    for (const auto& [p, epoch] : led) {
      if (now_led.count(p) == 0) lost.push_back(p);
    }
    for (std::int32_t p : lost) unload_partition(p);
    for (std::int32_t p : now_led) {
      if (led.count(p) == 0 && p >= 0 && p < num_partitions) load_partition(p);
    }
  }

  void unload_partition(std::int32_t partition) {
    std::vector<std::string> dropped;
    for (const auto& [id, g] : groups) {
      if (partition_of(id) == partition) dropped.push_back(id);
    }
    for (const std::string& id : dropped) {
      drop_group(groups.at(id), ErrorCode::NOT_COORDINATOR);
      groups.erase(id);
    }
    led.erase(partition);
  }

  // Answers what the group holds and disarms its timers, before it is forgotten.
  void drop_group(Group& g, ErrorCode error) {
    for (Member& m : g.members()) {
      fail_held_requests(m, error);
      disarm(m.session_timer);
    }
    for (auto& [id, timer] : g.pending_members()) disarm(timer);
    disarm(g.delayed_join().timer);
  }

  // Replays the partition's log: the last record of each key wins and tombstones delete.
  void load_partition(std::int32_t partition) {
    led[partition] = next_load_epoch++;
    std::vector<StoredRecord> records = host.read_all(PartitionId(partition));
    std::stable_sort(records.begin(), records.end(),
                     [](const StoredRecord& a, const StoredRecord& b) { return a.offset < b.offset; });
    std::map<std::string, GroupMetadataValue> stored_groups;
    std::map<std::string, std::map<TopicPartition, CommittedOffset>> stored_offsets;
    for (const StoredRecord& sr : records) replay(partition, sr.record, stored_groups, stored_offsets);
    for (auto& [id, value] : stored_groups) {
      auto [it, inserted] = groups.emplace(id, Group::from_stored(id, next_incarnation++, value));
      LOGSIM_ASSERT(inserted, "group " + id + " loaded while already in memory");
      Group& g = it->second;
      for (Member& m : g.members()) restart_session(g, m);
    }
    for (auto& [id, offsets] : stored_offsets) {
      if (offsets.empty()) continue;
      Group* g = find_group(id);
      if (g == nullptr) g = &create_group(id);
      g->offsets() = std::move(offsets);
    }
  }

  void replay(std::int32_t partition, const Record& record, std::map<std::string, GroupMetadataValue>& stored_groups,
              std::map<std::string, std::map<TopicPartition, CommittedOffset>>& stored_offsets) const {
    if (!record.key) return;
    const std::optional<OffsetsRecordKey> key = decode_key(*record.key);
    if (!key) return;  // not ours, or malformed: skipped
    if (const auto* k = std::get_if<OffsetCommitKey>(&*key)) {
      if (partition_of(k->group_id) != partition) return;
      auto& offsets = stored_offsets[k->group_id];
      if (!record.value) {
        offsets.erase({k->topic, k->partition});
      } else if (const auto v = decode_offset_commit_value(*record.value)) {
        offsets[{k->topic, k->partition}] = CommittedOffset{v->offset, v->metadata, v->commit_timestamp_ms};
      }
      return;
    }
    const auto& k = std::get<GroupMetadataKey>(*key);
    if (partition_of(k.group_id) != partition) return;
    if (!record.value) {
      stored_groups.erase(k.group_id);
    } else if (auto v = decode_group_metadata_value(*record.value)) {
      stored_groups[k.group_id] = std::move(*v);
    }
  }
};

// ------------------------------------------------------------------ GroupCoordinator

GroupCoordinator::GroupCoordinator(Env& env, GroupCoordinatorConfig config, OffsetsTopicHost& host)
    : impl_(std::make_unique<Impl>(env, config, host)) {}

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

bool GroupCoordinator::on_timer(TimerId id, std::uint64_t tag) { return impl_->on_timer(id, tag); }

std::string GroupCoordinator::group_state(std::string_view group_id) const {
  const Group* g = impl_->find_group(group_id);
  return std::string(group_state_name(g == nullptr ? GroupState::kDead : g->state()));
}

std::int32_t GroupCoordinator::group_generation(std::string_view group_id) const {
  const Group* g = impl_->find_group(group_id);
  return g == nullptr ? -1 : g->generation();
}

}  // namespace logsim::engine
