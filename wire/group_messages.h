// The bodies of the consumer-group APIs on the wire (Kafka's classic group protocol and its
// admin APIs): FindCoordinator (0-2), JoinGroup (0-5), SyncGroup (0-3), Heartbeat (0-3),
// LeaveGroup (0-3), DescribeGroups (0-2), ListGroups (0-2) and DeleteGroups (0-1). The offset
// APIs are in offset_messages.h.
//
// As in core_messages.h: Kafka's field names in snake_case, every field of every supported
// version (a comment gives the versions when not all), Kafka's defaults as initializers for the
// fields a version lacks, raw int16 error codes. A member's protocol metadata and assignment are
// opaque bytes, as they are to Kafka's coordinator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/api.h"
#include "wire/codec.h"

namespace logsim::wire {

// key_type 0 looks for a group coordinator, 1 for a transaction coordinator.
struct FindCoordinatorRequest {
  static constexpr ApiKey kApiKey = ApiKey::FIND_COORDINATOR;
  std::string key;
  std::int8_t key_type = 0;  // v1+
  bool operator==(const FindCoordinatorRequest&) const = default;
};

struct FindCoordinatorResponse {
  static constexpr ApiKey kApiKey = ApiKey::FIND_COORDINATOR;
  std::int32_t throttle_time_ms = 0;  // v1+
  std::int16_t error_code = 0;
  std::optional<std::string> error_message;  // v1+
  std::int32_t node_id = 0;
  std::string host;
  std::int32_t port = 0;
  bool operator==(const FindCoordinatorResponse&) const = default;
};

// From v4 a member without an id first gets MEMBER_ID_REQUIRED (79) with its assigned id and
// joins again with it. Without rebalance_timeout_ms (v0) the session timeout stands in for it.
struct JoinGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::JOIN_GROUP;
  struct Protocol {
    std::string name;
    std::string metadata;
    bool operator==(const Protocol&) const = default;
  };
  std::string group_id;
  std::int32_t session_timeout_ms = 0;
  std::int32_t rebalance_timeout_ms = -1;  // v1+
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v5+
  std::string protocol_type;
  std::vector<Protocol> protocols;
  bool operator==(const JoinGroupRequest&) const = default;
};

struct JoinGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::JOIN_GROUP;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v5+
    std::string metadata;
    bool operator==(const Member&) const = default;
  };
  std::int32_t throttle_time_ms = 0;  // v2+
  std::int16_t error_code = 0;
  std::int32_t generation_id = -1;
  std::string protocol_name;
  std::string leader;
  std::string member_id;
  std::vector<Member> members;  // the leader's list; empty for the other members
  bool operator==(const JoinGroupResponse&) const = default;
};

struct SyncGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::SYNC_GROUP;
  struct Assignment {
    std::string member_id;
    std::string assignment;
    bool operator==(const Assignment&) const = default;
  };
  std::string group_id;
  std::int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
  std::vector<Assignment> assignments;            // the leader's; empty from the others
  bool operator==(const SyncGroupRequest&) const = default;
};

// A member the leader's list left out gets an empty assignment.
struct SyncGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::SYNC_GROUP;
  std::int32_t throttle_time_ms = 0;  // v1+
  std::int16_t error_code = 0;
  std::string assignment;
  bool operator==(const SyncGroupResponse&) const = default;
};

struct HeartbeatRequest {
  static constexpr ApiKey kApiKey = ApiKey::HEARTBEAT;
  std::string group_id;
  std::int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
  bool operator==(const HeartbeatRequest&) const = default;
};

struct HeartbeatResponse {
  static constexpr ApiKey kApiKey = ApiKey::HEARTBEAT;
  std::int32_t throttle_time_ms = 0;  // v1+
  std::int16_t error_code = 0;        // REBALANCE_IN_PROGRESS (27) makes the member rejoin
  bool operator==(const HeartbeatResponse&) const = default;
};

// v0-2 name one member (member_id); v3 a batch of members (KIP-345), member_id then unused.
struct LeaveGroupRequest {
  static constexpr ApiKey kApiKey = ApiKey::LEAVE_GROUP;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    bool operator==(const Member&) const = default;
  };
  std::string group_id;
  std::string member_id;         // v0-2
  std::vector<Member> members;   // v3+
  bool operator==(const LeaveGroupRequest&) const = default;
};

struct LeaveGroupResponse {
  static constexpr ApiKey kApiKey = ApiKey::LEAVE_GROUP;
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::int16_t error_code = 0;
    bool operator==(const Member&) const = default;
  };
  std::int32_t throttle_time_ms = 0;  // v1+
  std::int16_t error_code = 0;
  std::vector<Member> members;  // v3+
  bool operator==(const LeaveGroupResponse&) const = default;
};

struct DescribeGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::DESCRIBE_GROUPS;
  std::vector<std::string> groups;
  bool operator==(const DescribeGroupsRequest&) const = default;
};

// group_state is Kafka's state name: "Empty", "PreparingRebalance", "CompletingRebalance",
// "Stable" or "Dead" (kafkajs' admin.setOffsets requires "Empty" or "Dead"). protocol_data is
// the chosen assignor; metadata and assignments are filled only in the Stable state.
struct DescribeGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::DESCRIBE_GROUPS;
  struct Member {
    std::string member_id;
    std::string client_id;
    std::string client_host;
    std::string member_metadata;
    std::string member_assignment;
    bool operator==(const Member&) const = default;
  };
  struct Group {
    std::int16_t error_code = 0;
    std::string group_id;
    std::string group_state;
    std::string protocol_type;
    std::string protocol_data;
    std::vector<Member> members;
    bool operator==(const Group&) const = default;
  };
  std::int32_t throttle_time_ms = 0;  // v1+
  std::vector<Group> groups;
  bool operator==(const DescribeGroupsResponse&) const = default;
};

struct ListGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::LIST_GROUPS;
  bool operator==(const ListGroupsRequest&) const = default;
};

struct ListGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::LIST_GROUPS;
  struct Group {
    std::string group_id;
    std::string protocol_type;
    bool operator==(const Group&) const = default;
  };
  std::int32_t throttle_time_ms = 0;  // v1+
  std::int16_t error_code = 0;
  std::vector<Group> groups;
  bool operator==(const ListGroupsResponse&) const = default;
};

struct DeleteGroupsRequest {
  static constexpr ApiKey kApiKey = ApiKey::DELETE_GROUPS;
  std::vector<std::string> groups_names;
  bool operator==(const DeleteGroupsRequest&) const = default;
};

struct DeleteGroupsResponse {
  static constexpr ApiKey kApiKey = ApiKey::DELETE_GROUPS;
  struct Result {
    std::string group_id;
    std::int16_t error_code = 0;
    bool operator==(const Result&) const = default;
  };
  std::int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  bool operator==(const DeleteGroupsResponse&) const = default;
};

LOGSIM_WIRE_DECLARE_CODECS(find_coordinator, FindCoordinatorRequest, FindCoordinatorResponse);
LOGSIM_WIRE_DECLARE_CODECS(join_group, JoinGroupRequest, JoinGroupResponse);
LOGSIM_WIRE_DECLARE_CODECS(sync_group, SyncGroupRequest, SyncGroupResponse);
LOGSIM_WIRE_DECLARE_CODECS(heartbeat, HeartbeatRequest, HeartbeatResponse);
LOGSIM_WIRE_DECLARE_CODECS(leave_group, LeaveGroupRequest, LeaveGroupResponse);
LOGSIM_WIRE_DECLARE_CODECS(describe_groups, DescribeGroupsRequest, DescribeGroupsResponse);
LOGSIM_WIRE_DECLARE_CODECS(list_groups, ListGroupsRequest, ListGroupsResponse);
LOGSIM_WIRE_DECLARE_CODECS(delete_groups, DeleteGroupsRequest, DeleteGroupsResponse);

}  // namespace logsim::wire
