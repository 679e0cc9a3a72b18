// Samples of the consumer-group and offset APIs (samples.h).
#include <string>

#include "wire/tests/samples.h"

namespace logsim::wire::samples {

namespace {

RequestBody find_coordinator_request(std::int16_t v) {
  FindCoordinatorRequest m{"group-a", 0};
  if (v >= 1) m.key_type = 1;
  return m;
}

ResponseBody find_coordinator_response(std::int16_t v) {
  FindCoordinatorResponse m;
  m.error_code = 15;
  if (v >= 1) {
    m.throttle_time_ms = 4;
    m.error_message = "no coordinator yet";
  }
  m.node_id = 2;
  m.host = "127.0.0.1";
  m.port = 9093;
  return m;
}

RequestBody join_group_request(std::int16_t v) {
  JoinGroupRequest m;
  m.group_id = "group-a";
  m.session_timeout_ms = 45000;
  if (v >= 1) m.rebalance_timeout_ms = 300000;
  m.member_id = "member-1";
  if (v >= 5) m.group_instance_id = "instance-1";
  m.protocol_type = "consumer";
  m.protocols = {{"range", std::string("\x00\x01", 2)}, {"roundrobin", ""}};
  return m;
}

ResponseBody join_group_response(std::int16_t v) {
  JoinGroupResponse m;
  if (v >= 2) m.throttle_time_ms = 8;
  m.error_code = 79;
  m.generation_id = 3;
  m.protocol_name = "range";
  m.leader = "member-1";
  m.member_id = "member-2";
  m.members = {{"member-1", std::nullopt, "meta-1"}, {"member-2", std::nullopt, ""}};
  if (v >= 5) m.members[0].group_instance_id = "instance-1";
  return m;
}

RequestBody sync_group_request(std::int16_t v) {
  SyncGroupRequest m{"group-a", 3, "member-1", std::nullopt, {{"member-1", "assign-1"}, {"member-2", ""}}};
  if (v >= 3) m.group_instance_id = "instance-1";
  return m;
}

ResponseBody sync_group_response(std::int16_t v) {
  SyncGroupResponse m{0, 27, "assign-1"};
  if (v >= 1) m.throttle_time_ms = 6;
  return m;
}

RequestBody heartbeat_request(std::int16_t v) {
  HeartbeatRequest m{"group-a", 3, "member-1", std::nullopt};
  if (v >= 3) m.group_instance_id = "instance-1";
  return m;
}

ResponseBody heartbeat_response(std::int16_t v) {
  HeartbeatResponse m{0, 27};
  if (v >= 1) m.throttle_time_ms = 2;
  return m;
}

RequestBody leave_group_request(std::int16_t v) {
  LeaveGroupRequest m;
  m.group_id = "group-a";
  if (v <= 2) {
    m.member_id = "member-1";
  } else {
    m.members = {{"member-1", std::nullopt}, {"", "instance-2"}};
  }
  return m;
}

ResponseBody leave_group_response(std::int16_t v) {
  LeaveGroupResponse m;
  if (v >= 1) m.throttle_time_ms = 1;
  m.error_code = 25;
  if (v >= 3) m.members = {{"member-1", std::nullopt, 0}, {"", "instance-2", 25}};
  return m;
}

RequestBody describe_groups_request(std::int16_t) { return DescribeGroupsRequest{{"group-a", "group-b"}}; }

ResponseBody describe_groups_response(std::int16_t v) {
  DescribeGroupsResponse m;
  if (v >= 1) m.throttle_time_ms = 3;
  DescribeGroupsResponse::Group stable{0, "group-a", "Stable", "consumer", "range", {}};
  stable.members = {{"member-1", "client-1", "/127.0.0.1", "meta", "assign"}};
  m.groups = {stable, {69, "group-b", "Dead", "", "", {}}};
  return m;
}

RequestBody list_groups_request(std::int16_t) { return ListGroupsRequest{}; }

ResponseBody list_groups_response(std::int16_t v) {
  ListGroupsResponse m{0, 0, {{"group-a", "consumer"}, {"connect-x", "connect"}}};
  if (v >= 1) m.throttle_time_ms = 5;
  return m;
}

RequestBody delete_groups_request(std::int16_t) { return DeleteGroupsRequest{{"group-a", "group-b"}}; }

ResponseBody delete_groups_response(std::int16_t) {
  return DeleteGroupsResponse{7, {{"group-a", 0}, {"group-b", 68}}};
}

RequestBody offset_commit_request(std::int16_t v) {
  OffsetCommitRequest m;
  m.group_id = "group-a";
  m.generation_id = 3;
  m.member_id = "member-1";
  if (v >= 2 && v <= 4) m.retention_time_ms = 86400000;
  if (v >= 7) m.group_instance_id = "instance-1";
  m.topics = {{"orders", {{0, 42, -1, -1, "meta"}, {1, 7, -1, -1, std::nullopt}}}, {"empty", {}}};
  if (v == 1) m.topics[0].partitions[0].commit_timestamp = 1700000000000;
  if (v >= 6) m.topics[0].partitions[1].committed_leader_epoch = 4;
  return m;
}

ResponseBody offset_commit_response(std::int16_t v) {
  OffsetCommitResponse m;
  if (v >= 3) m.throttle_time_ms = 9;
  m.topics = {{"orders", {{0, 0}, {1, 22}}}};
  return m;
}

RequestBody offset_fetch_request(std::int16_t v) {
  OffsetFetchRequest m;
  m.group_id = "group-a";
  m.topics = std::vector<OffsetFetchRequest::Topic>{{"orders", {0, 1, 2}}, {"empty", {}}};
  m.require_stable = v >= 7;
  return m;
}

ResponseBody offset_fetch_response(std::int16_t v) {
  OffsetFetchResponse m;
  if (v >= 3) m.throttle_time_ms = 2;
  OffsetFetchResponse::Partition committed{0, 42, -1, "meta", 0};
  if (v >= 5) committed.committed_leader_epoch = 5;
  m.topics = {{"orders", {committed, {1, -1, -1, std::nullopt, 0}}}};
  if (v >= 2) m.error_code = 14;
  return m;
}

RequestBody offset_delete_request(std::int16_t) {
  return OffsetDeleteRequest{"group-a", {{"orders", {{0}, {3}}}}};
}

ResponseBody offset_delete_response(std::int16_t) {
  return OffsetDeleteResponse{0, 4, {{"orders", {{0, 0}, {3, 86}}}}};
}

}  // namespace

std::vector<Sample> group_samples() {
  return {{ApiKey::FIND_COORDINATOR, find_coordinator_request, find_coordinator_response},
          {ApiKey::JOIN_GROUP, join_group_request, join_group_response},
          {ApiKey::SYNC_GROUP, sync_group_request, sync_group_response},
          {ApiKey::HEARTBEAT, heartbeat_request, heartbeat_response},
          {ApiKey::LEAVE_GROUP, leave_group_request, leave_group_response},
          {ApiKey::DESCRIBE_GROUPS, describe_groups_request, describe_groups_response},
          {ApiKey::LIST_GROUPS, list_groups_request, list_groups_response},
          {ApiKey::DELETE_GROUPS, delete_groups_request, delete_groups_response},
          {ApiKey::OFFSET_COMMIT, offset_commit_request, offset_commit_response},
          {ApiKey::OFFSET_FETCH, offset_fetch_request, offset_fetch_response},
          {ApiKey::OFFSET_DELETE, offset_delete_request, offset_delete_response}};
}

}  // namespace logsim::wire::samples
