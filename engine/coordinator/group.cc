// The in-memory consumer group (see group.h).
#include "engine/coordinator/group.h"

#include <algorithm>
#include <utility>

#include "engine/base/assert.h"

namespace logsim::engine {

std::string_view group_state_name(GroupState state) {
  switch (state) {
    case GroupState::kEmpty: return "Empty";
    case GroupState::kPreparingRebalance: return "PreparingRebalance";
    case GroupState::kCompletingRebalance: return "CompletingRebalance";
    case GroupState::kStable: return "Stable";
    case GroupState::kDead: return "Dead";
  }
  return "Unknown";
}

std::string Member::metadata_for(std::string_view protocol) const {
  for (const JoinGroupProtocol& p : protocols) {
    if (p.name == protocol) return p.metadata;
  }
  return {};
}

bool Member::supports(std::string_view protocol) const {
  return std::any_of(protocols.begin(), protocols.end(),
                     [&](const JoinGroupProtocol& p) { return p.name == protocol; });
}

Group::Group(std::string group_id, std::uint64_t incarnation)
    : group_id_(std::move(group_id)), incarnation_(incarnation) {}

Group Group::from_stored(std::string group_id, std::uint64_t incarnation, const GroupMetadataValue& stored) {
  Group group(std::move(group_id), incarnation);
  group.protocol_type_ = stored.protocol_type;
  group.generation_ = stored.generation;
  for (const StoredGroupMember& s : stored.members) {
    Member m;
    m.member_id = s.member_id;
    m.group_instance_id = s.group_instance_id;
    m.client_id = s.client_id;
    m.session_timeout_ms = s.session_timeout_ms;
    m.rebalance_timeout_ms = s.rebalance_timeout_ms;
    m.protocols.push_back({stored.protocol_name, s.subscription});
    m.assignment = s.assignment;
    group.members_.push_back(std::move(m));
  }
  if (!group.members_.empty()) {
    group.protocol_name_ = stored.protocol_name;
    group.leader_ = group.has(stored.leader) ? stored.leader : group.members_.front().member_id;
    group.state_ = GroupState::kStable;
  }
  return group;
}

void Group::transition_to(GroupState target) {
  bool valid = false;
  switch (target) {
    case GroupState::kDead: valid = true; break;
    case GroupState::kEmpty: valid = is(GroupState::kPreparingRebalance); break;
    case GroupState::kPreparingRebalance:
      valid = is(GroupState::kStable) || is(GroupState::kCompletingRebalance) || is(GroupState::kEmpty);
      break;
    case GroupState::kCompletingRebalance: valid = is(GroupState::kPreparingRebalance); break;
    case GroupState::kStable: valid = is(GroupState::kCompletingRebalance); break;
  }
  LOGSIM_ASSERT(valid, "group " + group_id_ + ": illegal transition " + std::string(group_state_name(state_)) +
                           " -> " + std::string(group_state_name(target)));
  state_ = target;
}

Member* Group::find(std::string_view member_id) {
  for (Member& m : members_) {
    if (m.member_id == member_id) return &m;
  }
  return nullptr;
}

const Member* Group::find(std::string_view member_id) const {
  return const_cast<Group*>(this)->find(member_id);
}

void Group::add(Member member, std::string_view protocol_type) {
  LOGSIM_ASSERT(!has(member.member_id) && !is_pending(member.member_id), "member id added twice");
  LOGSIM_ASSERT(!member.group_instance_id || !static_member_id(*member.group_instance_id),
                "two members with one group.instance.id");
  if (members_.empty()) protocol_type_ = std::string(protocol_type);
  if (leader_.empty()) leader_ = member.member_id;
  members_.push_back(std::move(member));
}

Member Group::remove(std::string_view member_id) {
  auto it = std::find_if(members_.begin(), members_.end(),
                         [&](const Member& m) { return m.member_id == member_id; });
  LOGSIM_ASSERT(it != members_.end(), "removing an unknown member");
  Member removed = std::move(*it);
  members_.erase(it);
  if (leader_ == removed.member_id) leader_ = members_.empty() ? std::string() : members_.front().member_id;
  return removed;
}

std::optional<std::string> Group::static_member_id(std::string_view instance_id) const {
  for (const Member& m : members_) {
    if (m.group_instance_id && *m.group_instance_id == instance_id) return m.member_id;
  }
  return std::nullopt;
}

bool Group::is_static_member_fenced(const std::optional<std::string>& instance_id,
                                    std::string_view member_id) const {
  if (!instance_id) return false;
  const std::optional<std::string> current = static_member_id(*instance_id);
  return current && *current != member_id;
}

void Group::replace_static_member(std::string_view old_member_id, const std::string& new_member_id) {
  Member* member = find(old_member_id);
  LOGSIM_ASSERT(member != nullptr && member->group_instance_id, "replacing an unknown static member");
  LOGSIM_ASSERT(!has(new_member_id) && !is_pending(new_member_id), "replacement member id in use");
  if (leader_ == old_member_id) leader_ = new_member_id;
  member->member_id = new_member_id;
}

bool Group::is_pending(std::string_view member_id) const {
  return pending_members_.find(std::string(member_id)) != pending_members_.end();
}

bool Group::supports_protocols(std::string_view protocol_type, const std::vector<JoinGroupProtocol>& protocols) const {
  if (members_.empty()) return !protocol_type.empty() && !protocols.empty();
  if (protocol_type != protocol_type_) return false;
  return std::any_of(protocols.begin(), protocols.end(), [&](const JoinGroupProtocol& p) {
    return std::all_of(members_.begin(), members_.end(), [&](const Member& m) { return m.supports(p.name); });
  });
}

std::string Group::select_protocol() const {
  LOGSIM_ASSERT(!members_.empty(), "selecting a protocol for a group without members");
  auto supported_by_all = [&](const std::string& name) {
    return std::all_of(members_.begin(), members_.end(), [&](const Member& m) { return m.supports(name); });
  };
  std::map<std::string, int> votes;
  for (const Member& m : members_) {
    for (const JoinGroupProtocol& p : m.protocols) {
      if (supported_by_all(p.name)) {
        ++votes[p.name];
        break;
      }
    }
  }
  LOGSIM_ASSERT(!votes.empty(), "group " + group_id_ + " has no protocol every member supports");
  const Member* leader = find(leader_);
  const Member& tie_breaker = leader != nullptr ? *leader : members_.front();
  std::string best;
  int best_votes = 0;
  for (const JoinGroupProtocol& p : tie_breaker.protocols) {
    auto it = votes.find(p.name);
    if (it != votes.end() && it->second > best_votes) {
      best = p.name;
      best_votes = it->second;
    }
  }
  return best;
}

bool Group::has_all_members_joined() const {
  return pending_members_.empty() &&
         std::all_of(members_.begin(), members_.end(), [](const Member& m) { return m.awaiting_join.has_value(); });
}

std::int32_t Group::rebalance_timeout_ms() const {
  std::int32_t timeout = 0;
  for (const Member& m : members_) timeout = std::max(timeout, m.rebalance_timeout_ms);
  return timeout;
}

void Group::init_next_generation() {
  ++generation_;
  if (members_.empty()) {
    protocol_name_.reset();
    transition_to(GroupState::kEmpty);
  } else {
    protocol_name_ = select_protocol();
    transition_to(GroupState::kCompletingRebalance);
  }
}

std::vector<JoinGroupMember> Group::current_member_metadata() const {
  std::vector<JoinGroupMember> out;
  const std::string protocol = protocol_name_.value_or("");
  for (const Member& m : members_) out.push_back({m.member_id, m.group_instance_id, m.metadata_for(protocol)});
  return out;
}

GroupMetadataValue Group::to_stored() const {
  GroupMetadataValue value;
  value.protocol_type = protocol_type_;
  value.generation = generation_;
  value.protocol_name = protocol_name_.value_or("");
  value.leader = leader_;
  for (const Member& m : members_) {
    value.members.push_back({m.member_id, m.group_instance_id, m.client_id, m.session_timeout_ms,
                             m.rebalance_timeout_ms, m.metadata_for(value.protocol_name), m.assignment});
  }
  return value;
}

bool Group::has_pending_txn_offset(const TopicPartition& tp) const {
  return std::any_of(pending_txn_offsets_.begin(), pending_txn_offsets_.end(),
                     [&](const auto& entry) { return entry.second.count(tp) != 0; });
}

void Group::drop_pending_txn_offsets(const TopicPartition& tp) {
  for (auto it = pending_txn_offsets_.begin(); it != pending_txn_offsets_.end();) {
    if (auto entry = it->second.find(tp); entry != it->second.end() && entry->second.log_offset.value() >= 0) {
      it->second.erase(entry);
    }
    it = it->second.empty() ? pending_txn_offsets_.erase(it) : std::next(it);
  }
}

void apply_txn_offsets(std::map<TopicPartition, CommittedOffset>& offsets,
                       const std::map<TopicPartition, CommittedOffset>& committed) {
  for (const auto& [tp, c] : committed) {
    if (c.log_offset.value() < 0) continue;  // its append never completed: nothing was written
    auto it = offsets.find(tp);
    if (it == offsets.end() || it->second.log_offset < c.log_offset) offsets[tp] = c;
  }
}

}  // namespace logsim::engine
