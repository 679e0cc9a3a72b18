// Field lists of the consumer-group APIs (group_messages.h), in Kafka's order and with the
// versions each field exists in, coded both ways by message_io.h.
#include "wire/group_messages.h"

#include "wire/message_io.h"

namespace logsim::wire {

template <class Io>
void describe(Io& io, Like<FindCoordinatorRequest> auto& m) {
  io.string(m.key);
  if (io.v >= 1) io.i8(m.key_type);
}

template <class Io>
void describe(Io& io, Like<FindCoordinatorResponse> auto& m) {
  if (io.v >= 1) io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
  if (io.v >= 1) io.nullable_string(m.error_message);
  io.i32(m.node_id);
  io.string(m.host);
  io.i32(m.port);
}

template <class Io>
void describe(Io& io, Like<JoinGroupRequest> auto& m) {
  io.string(m.group_id);
  io.i32(m.session_timeout_ms);
  if (io.v >= 1) io.i32(m.rebalance_timeout_ms);
  io.string(m.member_id);
  if (io.v >= 5) io.nullable_string(m.group_instance_id);
  io.string(m.protocol_type);
  io.array(m.protocols, [](auto& io2, auto& p) {
    io2.string(p.name);
    io2.bytes(p.metadata);
  });
}

template <class Io>
void describe(Io& io, Like<JoinGroupResponse> auto& m) {
  if (io.v >= 2) io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
  io.i32(m.generation_id);
  io.string(m.protocol_name);
  io.string(m.leader);
  io.string(m.member_id);
  io.array(m.members, [](auto& io2, auto& member) {
    io2.string(member.member_id);
    if (io2.v >= 5) io2.nullable_string(member.group_instance_id);
    io2.bytes(member.metadata);
  });
}

// group_id, generation_id, member_id and (v3+) group_instance_id: the head SyncGroup and
// Heartbeat share.
template <class Io>
void member_head(Io& io, auto& m) {
  io.string(m.group_id);
  io.i32(m.generation_id);
  io.string(m.member_id);
  if (io.v >= 3) io.nullable_string(m.group_instance_id);
}

template <class Io>
void describe(Io& io, Like<SyncGroupRequest> auto& m) {
  member_head(io, m);
  io.array(m.assignments, [](auto& io2, auto& a) {
    io2.string(a.member_id);
    io2.bytes(a.assignment);
  });
}

template <class Io>
void describe(Io& io, Like<SyncGroupResponse> auto& m) {
  if (io.v >= 1) io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
  io.bytes(m.assignment);
}

template <class Io>
void describe(Io& io, Like<HeartbeatRequest> auto& m) {
  member_head(io, m);
}

template <class Io>
void describe(Io& io, Like<HeartbeatResponse> auto& m) {
  if (io.v >= 1) io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
}

template <class Io>
void describe(Io& io, Like<LeaveGroupRequest> auto& m) {
  io.string(m.group_id);
  if (io.v <= 2) {
    io.string(m.member_id);
  } else {
    io.array(m.members, [](auto& io2, auto& member) {
      io2.string(member.member_id);
      io2.nullable_string(member.group_instance_id);
    });
  }
}

template <class Io>
void describe(Io& io, Like<LeaveGroupResponse> auto& m) {
  if (io.v >= 1) io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
  if (io.v >= 3) {
    io.array(m.members, [](auto& io2, auto& member) {
      io2.string(member.member_id);
      io2.nullable_string(member.group_instance_id);
      io2.i16(member.error_code);
    });
  }
}

template <class Io>
void describe(Io& io, Like<DescribeGroupsRequest> auto& m) {
  io.string_array(m.groups);
}

template <class Io>
void describe(Io& io, Like<DescribeGroupsResponse> auto& m) {
  if (io.v >= 1) io.i32(m.throttle_time_ms);
  io.array(m.groups, [](auto& io2, auto& g) {
    io2.i16(g.error_code);
    io2.string(g.group_id);
    io2.string(g.group_state);
    io2.string(g.protocol_type);
    io2.string(g.protocol_data);
    io2.array(g.members, [](auto& io3, auto& member) {
      io3.string(member.member_id);
      io3.string(member.client_id);
      io3.string(member.client_host);
      io3.bytes(member.member_metadata);
      io3.bytes(member.member_assignment);
    });
  });
}

template <class Io>
void describe(Io&, Like<ListGroupsRequest> auto&) {}

template <class Io>
void describe(Io& io, Like<ListGroupsResponse> auto& m) {
  if (io.v >= 1) io.i32(m.throttle_time_ms);
  io.i16(m.error_code);
  io.array(m.groups, [](auto& io2, auto& g) {
    io2.string(g.group_id);
    io2.string(g.protocol_type);
  });
}

template <class Io>
void describe(Io& io, Like<DeleteGroupsRequest> auto& m) {
  io.string_array(m.groups_names);
}

template <class Io>
void describe(Io& io, Like<DeleteGroupsResponse> auto& m) {
  io.i32(m.throttle_time_ms);
  io.array(m.results, [](auto& io2, auto& r) {
    io2.string(r.group_id);
    io2.i16(r.error_code);
  });
}

LOGSIM_WIRE_DEFINE_CODECS(find_coordinator, FindCoordinatorRequest, FindCoordinatorResponse)
LOGSIM_WIRE_DEFINE_CODECS(join_group, JoinGroupRequest, JoinGroupResponse)
LOGSIM_WIRE_DEFINE_CODECS(sync_group, SyncGroupRequest, SyncGroupResponse)
LOGSIM_WIRE_DEFINE_CODECS(heartbeat, HeartbeatRequest, HeartbeatResponse)
LOGSIM_WIRE_DEFINE_CODECS(leave_group, LeaveGroupRequest, LeaveGroupResponse)
LOGSIM_WIRE_DEFINE_CODECS(describe_groups, DescribeGroupsRequest, DescribeGroupsResponse)
LOGSIM_WIRE_DEFINE_CODECS(list_groups, ListGroupsRequest, ListGroupsResponse)
LOGSIM_WIRE_DEFINE_CODECS(delete_groups, DeleteGroupsRequest, DeleteGroupsResponse)

}  // namespace logsim::wire
