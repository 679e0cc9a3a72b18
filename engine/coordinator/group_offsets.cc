// The group coordinator's offset APIs (OffsetCommit, OffsetFetch), its admin APIs (ListGroups,
// DescribeGroups, DeleteGroups, OffsetDelete), and the loading and unloading of groups when
// this broker gains or loses leadership of __consumer_offsets partitions.
#include <algorithm>
#include <utility>

#include "engine/coordinator/group_coordinator_impl.h"
#include "engine/base/assert.h"

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

}  // namespace

void GroupCoordinator::Impl::answer_commit(NodeId to, CorrelationId correlation_id,
                                           const std::vector<OffsetCommitPartition>& partitions, ErrorCode error) {
  OffsetCommitResponse r;
  r.correlation_id = correlation_id;
  for (const OffsetCommitPartition& p : partitions) r.partitions.push_back({p.topic, p.partition, error});
  send(to, std::move(r));
}

void GroupCoordinator::Impl::handle_commit(NodeId from, const OffsetCommitRequest& req) {
  const ErrorCode e = validate_commit(req);
  if (e != ErrorCode::NONE) return answer_commit(from, req.correlation_id, req.partitions, e);
  Group* g = find_group(req.group_id);
  if (g == nullptr) g = &create_group(req.group_id);  // generation < 0: an admin or manual commit
  commit_offsets(from, req, *g);
}

// Kafka's rules for accepting a commit (GroupCoordinator.handleCommitOffsets); a member's
// accepted commit also counts as a heartbeat.
ErrorCode GroupCoordinator::Impl::validate_commit(const OffsetCommitRequest& req) {
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
void GroupCoordinator::Impl::commit_offsets(NodeId from, const OffsetCommitRequest& req, Group& g) {
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

void GroupCoordinator::Impl::on_offsets_appended(NodeId from, CorrelationId correlation_id,
                                                 const std::vector<OffsetCommitPartition>& partitions,
                                                 std::int64_t timestamp_ms, const AppendContext& ctx, ErrorCode e) {
  Group* g = group_of(ctx);
  if (g != nullptr) {
    Offset log_offset = ctx.base_offset;  // the records are in the request's order
    for (const OffsetCommitPartition& p : partitions) {
      auto it = g->pending_commits().find({p.topic, p.partition});
      if (it != g->pending_commits().end() && --it->second <= 0) g->pending_commits().erase(it);
      if (e == ErrorCode::NONE && !g->is(GroupState::kDead)) {
        g->offsets()[{p.topic, p.partition}] = CommittedOffset{p.committed_offset, p.metadata, timestamp_ms, log_offset};
      }
      log_offset = log_offset + 1;
    }
  }
  const ErrorCode error = still_loaded(ctx) ? map_commit_error(e) : ErrorCode::NOT_COORDINATOR;
  answer_commit(from, correlation_id, partitions, error);
}

void GroupCoordinator::Impl::handle_fetch(NodeId from, const OffsetFetchRequest& req) {
  OffsetFetchResponse r;
  r.correlation_id = req.correlation_id;
  r.error = check_group_request(req.group_id);
  const Group* g = r.error == ErrorCode::NONE ? find_group(req.group_id) : nullptr;
  // KIP-447: with require_stable, a partition whose offset may still change is answered
  // UNSTABLE_OFFSET_COMMIT (and no offset); the client asks again after a backoff.
  auto unstable = [&](const TopicPartition& tp) { return req.require_stable && g->has_pending_offset(tp); };
  if (g != nullptr && !req.partitions) {
    for (const auto& [tp, c] : g->offsets()) {
      if (unstable(tp)) {
        r.partitions.push_back({tp.topic, tp.partition, Offset(-1), "", ErrorCode::UNSTABLE_OFFSET_COMMIT});
      } else {
        r.partitions.push_back({tp.topic, tp.partition, c.offset, c.metadata, ErrorCode::NONE});
      }
    }
  } else if (r.error == ErrorCode::NONE && req.partitions) {
    for (const OffsetFetchPartitionRef& ref : *req.partitions) {
      OffsetFetchPartition p{ref.topic, ref.partition, Offset(-1), "", ErrorCode::NONE};
      const TopicPartition tp{ref.topic, ref.partition};
      if (g != nullptr && unstable(tp)) {
        p.error = ErrorCode::UNSTABLE_OFFSET_COMMIT;
      } else if (g != nullptr) {
        if (auto it = g->offsets().find(tp); it != g->offsets().end()) {
          p.committed_offset = it->second.offset;
          p.metadata = it->second.metadata;
        }
      }
      r.partitions.push_back(std::move(p));
    }
  }
  send(from, std::move(r));
}

void GroupCoordinator::Impl::handle_list(NodeId from, const ListGroupsRequest& req) {
  ListGroupsResponse r;
  r.correlation_id = req.correlation_id;
  for (const auto& [id, g] : groups) {
    if (g.is(GroupState::kDead) || !leads(id)) continue;
    r.groups.push_back({id, g.protocol_type(), std::string(group_state_name(g.state()))});
  }
  send(from, std::move(r));
}

void GroupCoordinator::Impl::handle_describe(NodeId from, const DescribeGroupsRequest& req) {
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
void GroupCoordinator::Impl::handle_delete(NodeId from, const DeleteGroupsRequest& req) {
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
  for (const auto& [producer, offsets] : g->pending_txn_offsets()) {
    for (const auto& [tp, c] : offsets) keys.insert(tp);
  }
  g->pending_txn_offsets().clear();
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

void GroupCoordinator::Impl::handle_offset_delete(NodeId from, const OffsetDeleteRequest& req) {
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
  append(*g, std::move(records),
         [this, from, r = std::move(r), deleted](const AppendContext& ctx, ErrorCode e) mutable {
           Group* group = group_of(ctx);
           if (group != nullptr && e == ErrorCode::NONE) {
             for (const TopicPartition& tp : deleted) {
               group->offsets().erase(tp);
               group->drop_pending_txn_offsets(tp);  // as the tombstone does when replayed
             }
           }
           const ErrorCode error = still_loaded(ctx) ? map_commit_error(e) : ErrorCode::NOT_COORDINATOR;
           for (OffsetCommitPartitionResult& p : r.partitions) p.error = error;
           send(from, std::move(r));
         });
}

void GroupCoordinator::Impl::on_leadership(const std::set<std::int32_t>& now_led, std::int32_t partitions) {
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
  if (!led.empty() && !retention_armed) {
    retention_armed = true;
    arm(static_cast<std::int32_t>(config.offsets_retention_check_interval_ms), {CoordinatorTimer::kOffsetsRetention, "", 0, ""});
  }
}

void GroupCoordinator::Impl::unload_partition(std::int32_t partition) {
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
void GroupCoordinator::Impl::drop_group(Group& g, ErrorCode error) {
  for (Member& m : g.members()) {
    fail_held_requests(m, error);
    disarm(m.session_timer);
  }
  for (auto& [id, timer] : g.pending_members()) disarm(timer);
  disarm(g.delayed_join().timer);
}

// Replays the partition's log: the last record of each key wins and tombstones delete; a
// transaction's offsets wait for its marker.
void GroupCoordinator::Impl::load_partition(std::int32_t partition) {
  led[partition] = next_load_epoch++;
  std::vector<StoredRecord> records = host.read_all(PartitionId(partition));
  std::stable_sort(records.begin(), records.end(),
                   [](const StoredRecord& a, const StoredRecord& b) { return a.offset < b.offset; });
  const std::vector<LoggedMarker> markers = host.read_markers(PartitionId(partition));
  Replayed r;
  auto marker = markers.begin();
  for (const StoredRecord& sr : records) {
    for (; marker != markers.end() && marker->offset < sr.offset; ++marker) replay_marker(*marker, r);
    replay(partition, sr, r);
  }
  for (; marker != markers.end(); ++marker) replay_marker(*marker, r);
  for (auto& [id, value] : r.groups) {
    auto [it, inserted] = groups.emplace(id, Group::from_stored(id, next_incarnation++, value));
    LOGSIM_ASSERT(inserted, "group " + id + " loaded while already in memory");
    Group& g = it->second;
    g.set_empty_since_ms(r.stored_at[id]);  // an Empty group was stored when it became Empty
    for (Member& m : g.members()) restart_session(g, m);
  }
  for (auto& [id, offsets] : r.offsets) {
    if (offsets.empty()) continue;
    Group* g = find_group(id);
    if (g == nullptr) g = &create_group(id);  // no group record: offsets expire by commit time
    g->offsets() = std::move(offsets);
  }
  for (auto& [producer, by_group] : r.pending_txn) {
    for (auto& [id, offsets] : by_group) {
      if (offsets.empty()) continue;
      Group* g = find_group(id);
      if (g == nullptr) g = &create_group(id);
      g->pending_txn_offsets()[producer] = std::move(offsets);
    }
  }
}

void GroupCoordinator::Impl::replay(std::int32_t partition, const StoredRecord& stored, Replayed& r) const {
  const Record& record = stored.record;
  if (!record.key) return;
  const std::optional<OffsetsRecordKey> key = decode_key(*record.key);
  if (!key) return;  // not ours, or malformed: skipped
  if (const auto* k = std::get_if<OffsetCommitKey>(&*key)) {
    if (partition_of(k->group_id) != partition) return;
    const TopicPartition tp{k->topic, k->partition};
    auto& offsets = r.offsets[k->group_id];
    if (!record.value) {
      offsets.erase(tp);
      for (auto& [producer, by_group] : r.pending_txn) {
        if (auto it = by_group.find(k->group_id); it != by_group.end()) it->second.erase(tp);
      }
    } else if (const auto v = decode_offset_commit_value(*record.value)) {
      const CommittedOffset c{v->offset, v->metadata, v->commit_timestamp_ms, stored.offset};
      // Only a transaction's offsets carry a producer id here (the coordinator's own do not).
      if (stored.producer_id.value() >= 0) {
        r.pending_txn[stored.producer_id][k->group_id][tp] = c;
      } else {
        offsets[tp] = c;
      }
    }
    return;
  }
  const auto& k = std::get<GroupMetadataKey>(*key);
  if (partition_of(k.group_id) != partition) return;
  if (!record.value) {
    r.groups.erase(k.group_id);
  } else if (auto v = decode_group_metadata_value(*record.value)) {
    r.groups[k.group_id] = std::move(*v);
    r.stored_at[k.group_id] = record.timestamp_ms;
  }
}

void GroupCoordinator::Impl::replay_marker(const LoggedMarker& marker, Replayed& r) {
  auto it = r.pending_txn.find(marker.producer_id);
  if (it == r.pending_txn.end()) return;
  if (marker.commit) {
    for (const auto& [id, offsets] : it->second) apply_txn_offsets(r.offsets[id], offsets);
  }
  r.pending_txn.erase(it);
}

}  // namespace logsim::engine
