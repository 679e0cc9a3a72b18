// The group coordinator's state and the declarations of its parts, shared by the files that
// define them (internal: only engine/coordinator includes it). See group_coordinator.cc for
// the lifetimes of groups, timers and append callbacks.
//   group_coordinator.cc: lookups, timers, held requests, rebalancing, the public API
//   group_membership.cc:  JoinGroup, SyncGroup, Heartbeat, LeaveGroup
//   group_offsets.cc:     OffsetCommit, OffsetFetch, the admin APIs, loading and unloading
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/coordinator/group.h"
#include "engine/coordinator/group_coordinator.h"
#include "engine/coordinator/offsets_records.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

struct GroupCoordinator::Impl {
  struct TimerPurpose {
    CoordinatorTimer kind;
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
    Offset base_offset{-1};  // once appended: where the append's first record went
  };
  // What replaying a __consumer_offsets partition found.
  struct Replayed {
    std::map<std::string, GroupMetadataValue> groups;
    std::map<std::string, std::int64_t> stored_at;  // each group record's timestamp
    std::map<std::string, std::map<TopicPartition, CommittedOffset>> offsets;
    // Transactional offsets not yet ended by a marker: producer -> group -> offsets.
    std::map<ProducerId, std::map<std::string, Group::TxnOffsets>> pending_txn;
  };

  Env& env;
  Timers<CoordinatorTimer> timer_handle;
  GroupCoordinatorConfig config;
  InternalTopicHost& host;
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
  bool retention_armed = false;  // the offsets.retention.check.interval.ms timer

  Impl(Env& e, TimerMux& mux, GroupCoordinatorConfig c, InternalTopicHost& h)
      : env(e), timer_handle(mux, [this](TimerId id, CoordinatorTimer) { on_timer(id); }), config(c), host(h) {}

  // ---------------------------------------------------------------- lookups and plumbing

  std::int32_t partition_of(std::string_view group_id) const;
  bool leads(std::string_view group_id) const;
  // The error every group API answers before looking at the group, or NONE.
  ErrorCode check_group_request(std::string_view group_id) const;
  Group* find_group(std::string_view group_id);
  Group& create_group(const std::string& group_id);
  AppendContext context_of(const Group& g) const;
  bool still_loaded(const AppendContext& ctx) const;
  // The group an append was made for, if it is still loaded and the same incarnation.
  Group* group_of(const AppendContext& ctx);
  void append(const Group& g, std::vector<Record> records, std::function<void(const AppendContext&, ErrorCode)> done);
  // The same, as one transactional batch of `writer` (a TxnOffsetCommit's offsets).
  void append_transactional(const Group& g, std::vector<Record> records, TxnWriter writer,
                            std::function<void(const AppendContext&, ErrorCode)> done);
  // An append's callback: `done` runs only while this coordinator lives, with the context.
  InternalTopicHost::AppendDone appended(const Group& g, std::function<void(const AppendContext&, ErrorCode)> done);
  std::int64_t now_ms() const { return to_millis(env.now()); }
  template <typename Response>
  void send(NodeId to, Response response) {
    env.send(to, Message(std::move(response)));
  }

  // ---------------------------------------------------------------- timers

  TimerId arm(std::int32_t delay_ms, TimerPurpose purpose);
  void disarm(std::optional<TimerId>& timer);
  void disarm(TimerId timer);
  void restart_session(Group& g, Member& m);
  void on_timer(TimerId id);
  void on_session_expired(Group& g, const std::string& member_id, TimerId id);
  void on_pending_member_expired(Group& g, const std::string& member_id, TimerId id);

  // ---------------------------------------------------------------- answering held requests

  JoinGroupResponse join_response(const Group& g, const Member& m, CorrelationId correlation_id) const;
  void send_join_error(NodeId to, CorrelationId correlation_id, ErrorCode error, std::string member_id);
  void send_sync(NodeId to, CorrelationId correlation_id, ErrorCode error, const Group* g, std::string assignment);
  // Answers a member's held JoinGroup and SyncGroup with an error (it is being removed,
  // fenced, or the coordinator is unloading).
  void fail_held_requests(Member& m, ErrorCode error);
  // Holds a JoinGroup; one held before from the same member is answered REBALANCE_IN_PROGRESS.
  void hold_join(Member& m, NodeId from, CorrelationId correlation_id);
  void hold_sync(Member& m, NodeId from, CorrelationId correlation_id);

  // ---------------------------------------------------------------- rebalancing

  void maybe_prepare_rebalance(Group& g);
  // Kafka's prepareRebalance: held SyncGroups are answered REBALANCE_IN_PROGRESS, and the join
  // phase starts with its delayed completion (the initial delay for a group that was Empty).
  void prepare_rebalance(Group& g);
  void reset_and_propagate_assignment_error(Group& g, ErrorCode error);
  // The join phase ends early once everyone is in, except during the initial delay, which
  // only its timer ends (Kafka's InitialDelayedJoin never completes early).
  void maybe_complete_join(Group& g);
  void on_join_timer(Group& g, TimerId id);
  // Kafka's onCompleteJoin: members that did not rejoin are dropped, the next generation
  // starts, and every held JoinGroup is answered (the leader with every member).
  void complete_join(Group& g);
  // A member leaves or its session ends.
  void remove_member_and_update_group(Group& g, const std::string& member_id);
  void store_group(const Group& g, std::function<void(const AppendContext&, ErrorCode)> done);
  void store_group_value(const Group& g, const GroupMetadataValue& value,
                         std::function<void(const AppendContext&, ErrorCode)> done);

  // ---------------------------------------------------------------- JoinGroup

  std::string new_member_id(const Group& g, const std::string& client_id);
  // group.max.size counts members and pending members; a pending member rejoining does not
  // count against itself.
  bool group_full(const Group& g, std::string_view joining_member_id) const;
  void handle_join(NodeId from, const JoinGroupRequest& req);
  void join_new_member(NodeId from, const JoinGroupRequest& req, Group& g);
  void join_known_member(NodeId from, const JoinGroupRequest& req, Group& g);
  void answer_join_now(NodeId from, CorrelationId correlation_id, Group& g, Member& m);
  static void update_member(Member& m, const JoinGroupRequest& req);
  void add_member_and_rebalance(NodeId from, const JoinGroupRequest& req, Group& g, const std::string& member_id);
  void update_member_and_rebalance(NodeId from, const JoinGroupRequest& req, Group& g, Member& m);
  // KIP-345: a known group.instance.id joins with no member id (a restarted static member).
  // It replaces the old member id, keeping its place and assignment; a Stable group whose
  // protocol would not change needs no rebalance.
  void rejoin_static_member(NodeId from, const JoinGroupRequest& req, Group& g, const std::string& old_id);
  // Persists the replaced member id, then answers with the current generation. The leader id
  // answered is the one from before the replacement, so that a replaced leader does not take
  // itself for the leader and compute an assignment a Stable group would ignore (Kafka does so).
  void store_static_member(NodeId from, CorrelationId correlation_id, Group& g, const std::string& old_id,
                           const std::string& new_id, const std::string& old_leader,
                           const std::vector<JoinGroupProtocol>& old_protocols);

  // ---------------------------------------------------------------- SyncGroup

  void handle_sync(NodeId from, const SyncGroupRequest& req);
  // The leader's assignment is persisted with the group before anyone sees it, so that a new
  // coordinator after a failover resumes the same generation with the same assignment.
  void store_assignment(Group& g, const std::vector<SyncGroupAssignment>& given);
  void set_and_propagate_assignment(Group& g, const std::map<std::string, std::string>& assignments);

  // ---------------------------------------------------------------- Heartbeat, LeaveGroup

  void handle_heartbeat(NodeId from, const HeartbeatRequest& req);
  ErrorCode heartbeat(const HeartbeatRequest& req);
  void handle_leave(NodeId from, const LeaveGroupRequest& req);
  ErrorCode leave(Group& g, const LeaveGroupMember& leaving);

  // ---------------------------------------------------------------- OffsetCommit, OffsetFetch

  void answer_commit(NodeId to, CorrelationId correlation_id, const std::vector<OffsetCommitPartition>& partitions,
                     ErrorCode error);
  void handle_commit(NodeId from, const OffsetCommitRequest& req);
  // Kafka's rules for accepting a commit (GroupCoordinator.handleCommitOffsets); a member's
  // accepted commit also counts as a heartbeat.
  ErrorCode validate_commit(const OffsetCommitRequest& req);
  // One append for every partition of the request; the offsets become visible to OffsetFetch
  // only once it completes.
  void commit_offsets(NodeId from, const OffsetCommitRequest& req, Group& g);
  void on_offsets_appended(NodeId from, CorrelationId correlation_id,
                           const std::vector<OffsetCommitPartition>& partitions, std::int64_t timestamp_ms,
                           const AppendContext& ctx, ErrorCode e);
  void handle_fetch(NodeId from, const OffsetFetchRequest& req);

  // ---------------------------------------------------------------- transactional offsets

  // TxnOffsetCommit (group_txn_offsets.cc): the offsets are appended as the producer's
  // transactional batch and wait, pending, for the marker that ends its transaction.
  void handle_txn_commit(NodeId from, const TxnOffsetCommitRequest& req);
  // Kafka's rules (GroupCoordinator.doTxnCommitOffsets, KIP-447): a member id, generation or
  // instance id is checked only when the request names one.
  ErrorCode validate_txn_commit(const TxnOffsetCommitRequest& req);
  // A failed append gives back the pending offsets it `replaced`.
  void on_txn_offsets_appended(NodeId from, const TxnOffsetCommitRequest& req, const Group::TxnOffsets& replaced,
                               const AppendContext& ctx, ErrorCode e);
  // A marker of `producer_id` was written to `partition`: its pending offsets commit or go.
  void on_txn_completed(ProducerId producer_id, std::int32_t partition, bool commit);

  // ---------------------------------------------------------------- admin APIs

  void handle_list(NodeId from, const ListGroupsRequest& req);
  void handle_describe(NodeId from, const DescribeGroupsRequest& req);
  // Deletes an Empty group: tombstones for its group record and every offset (also those
  // still being committed). The group is Dead while they are appended, then forgotten.
  void handle_delete(NodeId from, const DeleteGroupsRequest& req);
  void handle_offset_delete(NodeId from, const OffsetDeleteRequest& req);

  // ---------------------------------------------------------------- offsets retention

  // Every offsets.retention.check.interval.ms: expires the offsets of each loaded group
  // (expire_offsets), and re-arms itself.
  void on_retention_check();
  // Kafka's removeExpiredOffsets (2.1+, KIP-211): an Empty group's offsets expire together
  // offsets.retention.minutes after it became Empty; a group that never had members (no
  // protocol type: standalone commits) loses each offset that long after its commit; a group
  // with members keeps them. Tombstones are appended; an Empty group left without offsets is
  // deleted (Dead, with a tombstone for its group record).
  void expire_offsets(Group& g, std::int64_t now_ms);

  // ---------------------------------------------------------------- loading and unloading

  void on_leadership(const std::set<std::int32_t>& now_led, std::int32_t partitions);
  void unload_partition(std::int32_t partition);
  // Answers what the group holds and disarms its timers, before it is forgotten.
  void drop_group(Group& g, ErrorCode error);
  // Replays the partition's log: the last record of each key wins and tombstones delete; a
  // transaction's offsets wait for its marker, which commits them (the later record wins)
  // or drops them.
  void load_partition(std::int32_t partition);
  void replay(std::int32_t partition, const StoredRecord& stored, Replayed& r) const;
  static void replay_marker(const LoggedMarker& marker, Replayed& r);
};

}  // namespace logsim::engine
