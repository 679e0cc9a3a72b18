// One consumer group as its coordinator holds it in memory (Kafka's GroupMetadata and
// MemberMetadata): members, state, generation, chosen protocol, leader, committed offsets.
//
// This is pure logic: no Env, no timers are armed here. The coordinator (group_coordinator.cc)
// drives it and keeps the timer ids it arms in the fields named for them.
//
// The state machine (Kafka's classic protocol), with the only transitions transition_to allows:
//
//   Empty ──► PreparingRebalance ──► CompletingRebalance ──► Stable
//     ▲              │  ▲                    │                 │
//     └──────────────┘  └────────────────────┴─────────────────┘
//   any state ──► Dead
//
// Invariants:
//   1. Members are kept in join order; the leader, when there are members, is one of them.
//   2. A member id appears once, among the members or among the pending members, never both.
//   3. At most one member holds a given group.instance.id.
//   4. The generation only grows; a chosen protocol exists exactly when the group has had a
//      generation with members (CompletingRebalance, Stable, or PreparingRebalance after them).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/coordinator/offsets_records.h"
#include "engine/base/topic_partition.h"
#include "engine/env/env.h"
#include "engine/protocol/group_messages.h"

namespace logsim::engine {

enum class GroupState { kEmpty, kPreparingRebalance, kCompletingRebalance, kStable, kDead };

// Kafka's name for the state: "Empty", "PreparingRebalance", ...
std::string_view group_state_name(GroupState state);

// A request the coordinator answers later (a JoinGroup or SyncGroup waiting on the group).
struct HeldRequest {
  NodeId from;
  CorrelationId correlation_id = 0;
};

using logsim::TopicPartition;

struct CommittedOffset {
  Offset offset{-1};
  std::string metadata;
  std::int64_t commit_timestamp_ms = 0;
  // Where its record is in __consumer_offsets (-1: not yet appended). When a transaction's
  // offsets commit, each replaces the committed one only if its record is the later (Kafka's
  // CommitRecordMetadataAndOffset.olderThan).
  Offset log_offset{-1};
};

struct Member {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::int32_t session_timeout_ms = 0;
  std::int32_t rebalance_timeout_ms = 0;
  std::vector<JoinGroupProtocol> protocols;  // in the member's order of preference
  std::string assignment;                    // from the last completed SyncGroup
  std::optional<HeldRequest> awaiting_join;
  std::optional<HeldRequest> awaiting_sync;
  std::optional<TimerId> session_timer;

  // The member's metadata for `protocol`, "" if it does not support it.
  std::string metadata_for(std::string_view protocol) const;
  bool supports(std::string_view protocol) const;
};

// The delayed completion of the join phase (Kafka's DelayedJoin and InitialDelayedJoin).
struct DelayedJoin {
  std::optional<TimerId> timer;
  bool initial = false;           // the group.initial.rebalance.delay.ms phase: no early end
  bool new_member_added = false;  // a member joined during this initial delay: extend it
  std::int32_t remaining_ms = 0;  // how much more the initial delay may be extended
};

// A committed transaction's offsets join `offsets`: each replaces the one there only if its
// record is the later in the log; those never appended are skipped.
void apply_txn_offsets(std::map<TopicPartition, CommittedOffset>& offsets,
                       const std::map<TopicPartition, CommittedOffset>& committed);

class Group {
 public:
  // `incarnation` tells this Group object from an earlier or later one with the same id
  // (callbacks of appends check it after the group was deleted, unloaded or reloaded).
  Group(std::string group_id, std::uint64_t incarnation);
  // A group as loaded from its last group metadata record: Stable with its members, or Empty.
  static Group from_stored(std::string group_id, std::uint64_t incarnation, const GroupMetadataValue& stored);

  const std::string& group_id() const { return group_id_; }
  std::uint64_t incarnation() const { return incarnation_; }
  GroupState state() const { return state_; }
  bool is(GroupState s) const { return state_ == s; }
  // Asserts that Kafka's state machine allows the move.
  void transition_to(GroupState target);
  std::int32_t generation() const { return generation_; }
  const std::string& protocol_type() const { return protocol_type_; }
  const std::optional<std::string>& protocol_name() const { return protocol_name_; }
  const std::string& leader() const { return leader_; }
  bool is_leader(std::string_view member_id) const { return !leader_.empty() && leader_ == member_id; }

  // ---- Members, in join order.
  const std::vector<Member>& members() const { return members_; }
  std::vector<Member>& members() { return members_; }
  Member* find(std::string_view member_id);
  const Member* find(std::string_view member_id) const;
  bool has(std::string_view member_id) const { return find(member_id) != nullptr; }
  // Adds a new member; the first member of an empty group sets the protocol type and leads.
  void add(Member member, std::string_view protocol_type);
  // Removes a member (which must exist) and returns it; a removed leader is replaced by the
  // first remaining member.
  Member remove(std::string_view member_id);
  // The member id holding a group.instance.id, if any.
  std::optional<std::string> static_member_id(std::string_view instance_id) const;
  // KIP-345: the request names an instance id whose current member id is another one.
  bool is_static_member_fenced(const std::optional<std::string>& instance_id, std::string_view member_id) const;
  // Gives the static member `old_member_id` a new member id, keeping its place, protocols
  // and assignment (and the leadership, if it led).
  void replace_static_member(std::string_view old_member_id, const std::string& new_member_id);

  // ---- Pending members (KIP-394): given an id with MEMBER_ID_REQUIRED, not yet rejoined.
  // The value is the timer that forgets the member after its session timeout.
  std::map<std::string, TimerId>& pending_members() { return pending_members_; }
  const std::map<std::string, TimerId>& pending_members() const { return pending_members_; }
  bool is_pending(std::string_view member_id) const;

  // ---- Protocols and rebalancing.
  // Kafka's supportsProtocols: a member may join if its protocol type matches and it shares a
  // protocol with every current member (any non-empty type and protocols for an empty group).
  bool supports_protocols(std::string_view protocol_type, const std::vector<JoinGroupProtocol>& protocols) const;
  // Each member votes for its most preferred protocol that every member supports; the most
  // votes win, ties going to the candidate the leader prefers. Requires members.
  std::string select_protocol() const;
  // Every member has a JoinGroup held and no pending member is still expected.
  bool has_all_members_joined() const;
  // The largest rebalance timeout of the members (Kafka's group rebalance timeout).
  std::int32_t rebalance_timeout_ms() const;
  // The join phase ended: next generation; CompletingRebalance with a chosen protocol, or
  // Empty when no member is left.
  void init_next_generation();
  // Every member with its metadata for the chosen protocol, for the leader's JoinGroup response.
  std::vector<JoinGroupMember> current_member_metadata() const;
  // The group metadata record's value for the group as it stands.
  GroupMetadataValue to_stored() const;
  DelayedJoin& delayed_join() { return delayed_join_; }

  // ---- Committed offsets (only appends that completed) and commits still being appended.
  std::map<TopicPartition, CommittedOffset>& offsets() { return offsets_; }
  const std::map<TopicPartition, CommittedOffset>& offsets() const { return offsets_; }
  std::map<TopicPartition, int>& pending_commits() { return pending_commits_; }
  // ---- Transactional offsets (TxnOffsetCommit), by producer id: invisible until the marker
  // that ends the producer's transaction commits them (apply_txn_offsets) or aborts them.
  using TxnOffsets = std::map<TopicPartition, CommittedOffset>;
  std::map<ProducerId, TxnOffsets>& pending_txn_offsets() { return pending_txn_offsets_; }
  const std::map<ProducerId, TxnOffsets>& pending_txn_offsets() const { return pending_txn_offsets_; }
  bool has_pending_txn_offset(const TopicPartition& tp) const;
  // A commit still being appended or a transaction's offsets pending (Kafka's
  // hasPendingOffsetCommitsForTopicPartition): OffsetFetch's require_stable refuses `tp`.
  bool has_pending_offset(const TopicPartition& tp) const {
    return pending_commits_.count(tp) != 0 || has_pending_txn_offset(tp);
  }
  // A tombstone of `tp` was appended: forgets the pending transactional offsets of `tp` whose
  // records it follows, i.e. those already appended (appends complete in log order); one whose
  // append is still on its way comes after it and stays.
  void drop_pending_txn_offsets(const TopicPartition& tp);
  // When the group last became Empty (ms, the coordinator's clock): the start of its offsets'
  // retention (offsets.retention.minutes). Set by the coordinator, which owns the clock.
  std::int64_t empty_since_ms() const { return empty_since_ms_; }
  void set_empty_since_ms(std::int64_t ms) { empty_since_ms_ = ms; }

 private:
  std::string group_id_;
  std::uint64_t incarnation_;
  GroupState state_ = GroupState::kEmpty;
  std::int32_t generation_ = 0;
  std::string protocol_type_;
  std::optional<std::string> protocol_name_;
  std::string leader_;
  std::vector<Member> members_;
  std::map<std::string, TimerId> pending_members_;
  DelayedJoin delayed_join_;
  std::map<TopicPartition, CommittedOffset> offsets_;
  std::map<TopicPartition, int> pending_commits_;
  std::map<ProducerId, TxnOffsets> pending_txn_offsets_;
  std::int64_t empty_since_ms_ = 0;
};

}  // namespace logsim::engine
