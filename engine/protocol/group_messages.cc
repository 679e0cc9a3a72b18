// Digests of the consumer-group messages.
#include "engine/protocol/group_messages.h"

namespace logsim {
namespace {
void fold_size(Digest& d, std::size_t n) { d.add(static_cast<std::uint64_t>(n)); }
}  // namespace

void JoinGroupRequest::fold(Digest& d) const {
  d.add(correlation_id).add(group_id).add(session_timeout_ms).add(rebalance_timeout_ms).add(member_id);
  d.add(group_instance_id).add(client_id).add(protocol_type);
  fold_size(d, protocols.size());
  for (const auto& p : protocols) d.add(p.name).add(p.metadata);
  if (!require_known_member_id) d.add(false);  // only when false: the simulated clients' digests stay as they were
}

void JoinGroupResponse::fold(Digest& d) const {
  d.add(correlation_id).add(error).add(generation_id).add(protocol_name).add(leader).add(member_id);
  fold_size(d, members.size());
  for (const auto& m : members) d.add(m.member_id).add(m.group_instance_id).add(m.metadata);
}

void SyncGroupRequest::fold(Digest& d) const {
  d.add(correlation_id).add(group_id).add(generation_id).add(member_id).add(group_instance_id);
  fold_size(d, assignments.size());
  for (const auto& a : assignments) d.add(a.member_id).add(a.assignment);
}

void LeaveGroupRequest::fold(Digest& d) const {
  d.add(correlation_id).add(group_id);
  fold_size(d, members.size());
  for (const auto& m : members) d.add(m.member_id).add(m.group_instance_id).add(m.reason);
}

void LeaveGroupResponse::fold(Digest& d) const {
  d.add(correlation_id).add(error);
  fold_size(d, member_errors.size());
  for (ErrorCode e : member_errors) d.add(e);
}

void OffsetCommitRequest::fold(Digest& d) const {
  d.add(correlation_id).add(group_id).add(generation_id).add(member_id).add(group_instance_id);
  fold_size(d, partitions.size());
  for (const auto& p : partitions) d.add(p.topic).add(p.partition).add(p.committed_offset).add(p.metadata);
}

void OffsetCommitResponse::fold(Digest& d) const {
  d.add(correlation_id);
  fold_size(d, partitions.size());
  for (const auto& p : partitions) d.add(p.topic).add(p.partition).add(p.error);
}

void OffsetFetchRequest::fold(Digest& d) const {
  d.add(correlation_id).add(group_id).add(partitions.has_value());
  if (partitions) {
    fold_size(d, partitions->size());
    for (const auto& p : *partitions) d.add(p.topic).add(p.partition);
  }
  if (require_stable) d.add(true);  // folded only when set: the traces of runs without it stay as they were
}

void OffsetFetchResponse::fold(Digest& d) const {
  d.add(correlation_id).add(error);
  fold_size(d, partitions.size());
  for (const auto& p : partitions) d.add(p.topic).add(p.partition).add(p.committed_offset).add(p.metadata).add(p.error);
}

void ListGroupsResponse::fold(Digest& d) const {
  d.add(correlation_id).add(error);
  fold_size(d, groups.size());
  for (const auto& g : groups) d.add(g.group_id).add(g.protocol_type).add(g.state);
}

void DescribeGroupsResponse::fold(Digest& d) const {
  d.add(correlation_id).add(error).add(group_id).add(state).add(protocol_type).add(protocol_name).add(generation_id);
  fold_size(d, members.size());
  for (const auto& m : members) d.add(m.member_id).add(m.group_instance_id).add(m.client_id).add(m.metadata).add(m.assignment);
}

void OffsetDeleteRequest::fold(Digest& d) const {
  d.add(correlation_id).add(group_id);
  fold_size(d, partitions.size());
  for (const auto& p : partitions) d.add(p.topic).add(p.partition);
}

void OffsetDeleteResponse::fold(Digest& d) const {
  d.add(correlation_id).add(error);
  fold_size(d, partitions.size());
  for (const auto& p : partitions) d.add(p.topic).add(p.partition).add(p.error);
}

}  // namespace logsim
