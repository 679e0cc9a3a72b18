// The group coordinator's membership APIs: JoinGroup (new, known and static members),
// SyncGroup, Heartbeat and LeaveGroup, as Kafka's GroupCoordinator handles them.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <utility>

#include "engine/coordinator/group_coordinator_impl.h"
#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

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

std::string GroupCoordinator::Impl::new_member_id(const Group& g, const std::string& client_id) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string id = client_id + "-" + hex64(env.rng().next_u64()) + "-" + std::to_string(++member_id_counter);
    if (!g.has(id) && !g.is_pending(id)) return id;
  }
  LOGSIM_ASSERT(false, "could not draw a fresh member id");
  return {};
}

// group.max.size counts members and pending members; a pending member rejoining does not
// count against itself.
bool GroupCoordinator::Impl::group_full(const Group& g, std::string_view joining_member_id) const {
  std::size_t size = g.members().size() + g.pending_members().size();
  if (g.is_pending(joining_member_id)) --size;
  return size >= static_cast<std::size_t>(std::max(config.group_max_size, 0));
}

void GroupCoordinator::Impl::handle_join(NodeId from, const JoinGroupRequest& req) {
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

void GroupCoordinator::Impl::join_new_member(NodeId from, const JoinGroupRequest& req, Group& g) {
  if (req.group_instance_id) {
    if (const auto old_id = g.static_member_id(*req.group_instance_id)) {
      return rejoin_static_member(from, req, g, *old_id);
    }
  }
  if (group_full(g, "")) {
    return send_join_error(from, req.correlation_id, ErrorCode::GROUP_MAX_SIZE_REACHED, req.member_id);
  }
  std::string member_id = new_member_id(g, req.client_id);
  if (req.group_instance_id || !req.require_known_member_id) return add_member_and_rebalance(from, req, g, member_id);
  // KIP-394: a dynamic member must come back with its id before it counts as a member.
  g.pending_members()[member_id] =
      arm(req.session_timeout_ms, {CoordinatorTimer::kPendingMember, g.group_id(), g.incarnation(), member_id});
  send_join_error(from, req.correlation_id, ErrorCode::MEMBER_ID_REQUIRED, member_id);
}

void GroupCoordinator::Impl::join_known_member(NodeId from, const JoinGroupRequest& req, Group& g) {
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

void GroupCoordinator::Impl::answer_join_now(NodeId from, CorrelationId correlation_id, Group& g, Member& m) {
  send(from, join_response(g, m, correlation_id));
  restart_session(g, m);
}

void GroupCoordinator::Impl::update_member(Member& m, const JoinGroupRequest& req) {
  m.protocols = req.protocols;
  m.session_timeout_ms = req.session_timeout_ms;
  m.rebalance_timeout_ms = req.rebalance_timeout_ms;
}

void GroupCoordinator::Impl::add_member_and_rebalance(NodeId from, const JoinGroupRequest& req, Group& g,
                                                      const std::string& member_id) {
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

void GroupCoordinator::Impl::update_member_and_rebalance(NodeId from, const JoinGroupRequest& req, Group& g,
                                                         Member& m) {
  update_member(m, req);
  hold_join(m, from, req.correlation_id);
  maybe_prepare_rebalance(g);
  maybe_complete_join(g);
}

// KIP-345: a known group.instance.id joins with no member id (a restarted static member).
// It replaces the old member id, keeping its place and assignment; a Stable group whose
// protocol would not change needs no rebalance.
void GroupCoordinator::Impl::rejoin_static_member(NodeId from, const JoinGroupRequest& req, Group& g,
                                                  const std::string& old_id) {
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
void GroupCoordinator::Impl::store_static_member(NodeId from, CorrelationId correlation_id, Group& g,
                                                 const std::string& old_id, const std::string& new_id,
                                                 const std::string& old_leader,
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

void GroupCoordinator::Impl::handle_sync(NodeId from, const SyncGroupRequest& req) {
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
void GroupCoordinator::Impl::store_assignment(Group& g, const std::vector<SyncGroupAssignment>& given) {
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

void GroupCoordinator::Impl::set_and_propagate_assignment(Group& g,
                                                          const std::map<std::string, std::string>& assignments) {
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

void GroupCoordinator::Impl::handle_heartbeat(NodeId from, const HeartbeatRequest& req) {
  send(from, HeartbeatResponse{req.correlation_id, heartbeat(req)});
}

ErrorCode GroupCoordinator::Impl::heartbeat(const HeartbeatRequest& req) {
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

void GroupCoordinator::Impl::handle_leave(NodeId from, const LeaveGroupRequest& req) {
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

ErrorCode GroupCoordinator::Impl::leave(Group& g, const LeaveGroupMember& leaving) {
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

}  // namespace logsim::engine
