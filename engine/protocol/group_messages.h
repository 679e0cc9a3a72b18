// The consumer-group APIs of Kafka's classic group protocol, and the group admin APIs:
// FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
// ListGroups, DescribeGroups, DeleteGroups and OffsetDelete.
//
// The coordinator treats a member's protocol metadata and assignment as opaque bytes, as Kafka
// does; the consumer client encodes them (engine/client/consumer_protocol.h). Each struct
// names its API (kApi) for the trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/digest.h"
#include "engine/protocol/correlation_id.h"
#include "engine/protocol/errors.h"
#include "engine/base/types.h"

namespace logsim {

// Which coordinator FindCoordinator looks for: a group's or a transactional id's.
enum class CoordinatorKeyType : std::int8_t { kGroup = 0, kTransaction = 1 };

struct FindCoordinatorRequest {
  static constexpr std::string_view kApi = "FindCoordinator";
  CorrelationId correlation_id = 0;
  std::string key;  // the group id, or the transactional id
  CoordinatorKeyType key_type = CoordinatorKeyType::kGroup;
  void fold(Digest& d) const { d.add(correlation_id).add(key).add(key_type); }
};

struct FindCoordinatorResponse {
  static constexpr std::string_view kApi = "FindCoordinatorResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;  // COORDINATOR_NOT_AVAILABLE while there is none
  NodeId node_id{-1};
  void fold(Digest& d) const { d.add(correlation_id).add(error).add(node_id); }
};

// One protocol (assignor) a member supports, with its subscription metadata.
struct JoinGroupProtocol {
  std::string name;      // e.g. "range", "cooperative-sticky"
  std::string metadata;  // opaque to the coordinator
  bool operator==(const JoinGroupProtocol&) const = default;
};

struct JoinGroupRequest {
  static constexpr std::string_view kApi = "JoinGroup";
  CorrelationId correlation_id = 0;
  std::string group_id;
  std::int32_t session_timeout_ms = 45000;     // session.timeout.ms
  std::int32_t rebalance_timeout_ms = 300000;  // max.poll.interval.ms
  std::string member_id;                       // "" for a member joining for the first time
  std::optional<std::string> group_instance_id;  // group.instance.id: a static member
  // KIP-394, JoinGroup v4 on: a new dynamic member first gets MEMBER_ID_REQUIRED and its id, and
  // counts once it rejoins with it. A client of v0 to v3 (Sarama 1.22) is added at once.
  bool require_known_member_id = true;
  std::string client_id;                       // client.id, the prefix of a new member id
  std::string protocol_type = "consumer";
  std::vector<JoinGroupProtocol> protocols;    // in the member's order of preference
  void fold(Digest& d) const;
};

struct JoinGroupMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string metadata;  // for the chosen protocol
};

struct JoinGroupResponse {
  static constexpr std::string_view kApi = "JoinGroupResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  std::int32_t generation_id = -1;
  std::string protocol_name;  // the protocol the group chose
  std::string leader;         // the leader's member id
  std::string member_id;      // this member's id (also with MEMBER_ID_REQUIRED)
  std::vector<JoinGroupMember> members;  // the leader only: every member and its metadata
  void fold(Digest& d) const;
};

struct SyncGroupAssignment {
  std::string member_id;
  std::string assignment;  // opaque to the coordinator
};

struct SyncGroupRequest {
  static constexpr std::string_view kApi = "SyncGroup";
  CorrelationId correlation_id = 0;
  std::string group_id;
  std::int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<SyncGroupAssignment> assignments;  // the leader only
  void fold(Digest& d) const;
};

struct SyncGroupResponse {
  static constexpr std::string_view kApi = "SyncGroupResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  std::string protocol_name;
  std::string assignment;  // this member's
  void fold(Digest& d) const { d.add(correlation_id).add(error).add(protocol_name).add(assignment); }
};

struct HeartbeatRequest {
  static constexpr std::string_view kApi = "Heartbeat";
  CorrelationId correlation_id = 0;
  std::string group_id;
  std::int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  void fold(Digest& d) const { d.add(correlation_id).add(group_id).add(generation_id).add(member_id).add(group_instance_id); }
};

struct HeartbeatResponse {
  static constexpr std::string_view kApi = "HeartbeatResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  void fold(Digest& d) const { d.add(correlation_id).add(error); }
};

struct LeaveGroupMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string reason;  // KIP-800, for the coordinator's log
};

struct LeaveGroupRequest {
  static constexpr std::string_view kApi = "LeaveGroup";
  CorrelationId correlation_id = 0;
  std::string group_id;
  std::vector<LeaveGroupMember> members;
  void fold(Digest& d) const;
};

struct LeaveGroupResponse {
  static constexpr std::string_view kApi = "LeaveGroupResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;           // for the whole request
  std::vector<ErrorCode> member_errors;        // one per member of the request, in order
  void fold(Digest& d) const;
};

struct OffsetCommitPartition {
  std::string topic;
  PartitionId partition;
  Offset committed_offset{-1};  // the next offset to consume
  std::string metadata;
};

// A member's commit names its generation and member id; an admin (or a consumer using manual
// assignment) commits with generation -1 and no member id, accepted only while the group is Empty.
struct OffsetCommitRequest {
  static constexpr std::string_view kApi = "OffsetCommit";
  CorrelationId correlation_id = 0;
  std::string group_id;
  std::int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<OffsetCommitPartition> partitions;
  void fold(Digest& d) const;
};

struct OffsetCommitPartitionResult {
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
};

struct OffsetCommitResponse {
  static constexpr std::string_view kApi = "OffsetCommitResponse";
  CorrelationId correlation_id = 0;
  std::vector<OffsetCommitPartitionResult> partitions;  // one per partition of the request
  void fold(Digest& d) const;
};

struct OffsetFetchPartitionRef {
  std::string topic;
  PartitionId partition;
};

struct OffsetFetchRequest {
  static constexpr std::string_view kApi = "OffsetFetch";
  CorrelationId correlation_id = 0;
  std::string group_id;
  std::optional<std::vector<OffsetFetchPartitionRef>> partitions;  // none: every committed one
  // KIP-447: a partition with a commit or a transaction's offsets still pending is answered
  // UNSTABLE_OFFSET_COMMIT instead of its offset (a read_committed consumer asks so).
  bool require_stable = false;
  void fold(Digest& d) const;
};

struct OffsetFetchPartition {
  std::string topic;
  PartitionId partition;
  Offset committed_offset{-1};  // -1: none committed
  std::string metadata;
  ErrorCode error = ErrorCode::NONE;
};

struct OffsetFetchResponse {
  static constexpr std::string_view kApi = "OffsetFetchResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;  // NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...
  std::vector<OffsetFetchPartition> partitions;
  void fold(Digest& d) const;
};

// ---- Group admin (kafka-consumer-groups). ListGroups goes to every broker; the others to the
// group's coordinator.

struct ListGroupsRequest {
  static constexpr std::string_view kApi = "ListGroups";
  CorrelationId correlation_id = 0;
  void fold(Digest& d) const { d.add(correlation_id); }
};

struct ListedGroup {
  std::string group_id;
  std::string protocol_type;
  std::string state;  // "Empty", "Stable", ...
};

struct ListGroupsResponse {
  static constexpr std::string_view kApi = "ListGroupsResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  std::vector<ListedGroup> groups;  // those this broker coordinates
  void fold(Digest& d) const;
};

struct DescribeGroupsRequest {
  static constexpr std::string_view kApi = "DescribeGroups";
  CorrelationId correlation_id = 0;
  std::string group_id;
  void fold(Digest& d) const { d.add(correlation_id).add(group_id); }
};

struct DescribedGroupMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string metadata;
  std::string assignment;
};

struct DescribeGroupsResponse {
  static constexpr std::string_view kApi = "DescribeGroupsResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  std::string group_id;
  std::string state;          // "Dead" for a group that does not exist, as in Kafka
  std::string protocol_type;
  std::string protocol_name;
  std::int32_t generation_id = -1;
  std::vector<DescribedGroupMember> members;
  void fold(Digest& d) const;
};

struct DeleteGroupsRequest {
  static constexpr std::string_view kApi = "DeleteGroups";
  CorrelationId correlation_id = 0;
  std::string group_id;
  void fold(Digest& d) const { d.add(correlation_id).add(group_id); }
};

struct DeleteGroupsResponse {
  static constexpr std::string_view kApi = "DeleteGroupsResponse";
  CorrelationId correlation_id = 0;
  std::string group_id;
  ErrorCode error = ErrorCode::NONE;  // NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, ...
  void fold(Digest& d) const { d.add(correlation_id).add(group_id).add(error); }
};

// Deletes a group's committed offsets for some partitions (refused for partitions the group
// is subscribed to while it has members: GROUP_SUBSCRIBED_TO_TOPIC).
struct OffsetDeleteRequest {
  static constexpr std::string_view kApi = "OffsetDelete";
  CorrelationId correlation_id = 0;
  std::string group_id;
  std::vector<OffsetFetchPartitionRef> partitions;
  void fold(Digest& d) const;
};

struct OffsetDeleteResponse {
  static constexpr std::string_view kApi = "OffsetDeleteResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  std::vector<OffsetCommitPartitionResult> partitions;
  void fold(Digest& d) const;
};

}  // namespace logsim
