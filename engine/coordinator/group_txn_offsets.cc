// Transactional offset commits (KIP-98, sendOffsetsToTransaction): a transactional producer's
// TxnOffsetCommit writes the consumed offsets into the group's __consumer_offsets partition as
// a transactional batch of its own producer id, and they take effect only if the transaction
// commits, as Kafka's GroupMetadataManager does:
// - until its marker, a transaction's offsets are pending, per producer, and OffsetFetch
//   does not see them;
// - the COMMIT marker makes each the group's committed offset unless the committed one's
//   record is later in the log (a plain commit appended after it wins); ABORT drops them;
// - a tombstone (DeleteGroups, OffsetDelete) forgets the pending offsets of its key written
//   before it;
// - loading replays the same rules in log order (group_offsets.cc);
// - retention does not expire an offset while a transaction's offset for its partition is
//   pending, as the group coordinator of Kafka 3.7+ (OffsetMetadataManager) does; the older
//   Scala coordinator expired it. A transaction left open pins the offset until it ends.
// A gap, kept consistent between the live coordinator and a replay: a TxnOffsetCommit arriving
// after its transaction's marker at the same epoch opens a transaction nothing ends (Kafka's
// hazard before KIP-890's verification). A replayed record counts as transactional by its
// producer id: a client's Produce to __consumer_offsets is refused, as Kafka's is, so only the
// coordinator writes there.
#include <utility>

#include "engine/coordinator/group_coordinator_impl.h"

namespace logsim::engine {
namespace {

// Kafka's mapping of a failed transactional offset append (GroupMetadataManager.storeOffsets,
// whose other errors, the producer's fencing among them, reach the producer as they are).
ErrorCode map_txn_commit_error(ErrorCode e) {
  switch (e) {
    case ErrorCode::NOT_LEADER_OR_FOLLOWER: return ErrorCode::NOT_COORDINATOR;
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::NOT_ENOUGH_REPLICAS:
    case ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND: return ErrorCode::COORDINATOR_NOT_AVAILABLE;
    case ErrorCode::MESSAGE_TOO_LARGE: return ErrorCode::INVALID_COMMIT_OFFSET_SIZE;
    default: return e;
  }
}

void answer_txn_commit(Env& env, NodeId to, const TxnOffsetCommitRequest& req, ErrorCode error) {
  TxnOffsetCommitResponse r;
  r.correlation_id = req.correlation_id;
  for (const TxnOffsetCommitPartition& p : req.partitions) r.results.push_back({p.tp, error});
  env.send(to, Message(std::move(r)));
}

}  // namespace

void GroupCoordinator::Impl::handle_txn_commit(NodeId from, const TxnOffsetCommitRequest& req) {
  if (const ErrorCode e = validate_txn_commit(req); e != ErrorCode::NONE) return answer_txn_commit(env, from, req, e);
  Group* g = find_group(req.group_id);
  if (g == nullptr) g = &create_group(req.group_id);  // Kafka creates the group as Empty
  if (req.partitions.empty()) return answer_txn_commit(env, from, req, ErrorCode::NONE);
  const std::int64_t timestamp_ms = now_ms();
  std::vector<Record> records;
  Group::TxnOffsets& pending = g->pending_txn_offsets()[req.producer_id];
  Group::TxnOffsets replaced;  // what a failed append gives back (a zombie's must not erase them)
  for (const TxnOffsetCommitPartition& p : req.partitions) {
    const CommittedOffset c{p.committed_offset, p.metadata, timestamp_ms, Offset(-1)};
    records.push_back(offset_commit_record({g->group_id(), p.tp.topic, p.tp.partition},
                                           OffsetCommitValue{c.offset, c.metadata, c.commit_timestamp_ms},
                                           timestamp_ms));
    if (auto it = pending.find(p.tp); it != pending.end()) replaced.emplace(p.tp, it->second);
    pending[p.tp] = c;  // not appended yet (log offset -1)
  }
  append_transactional(*g, std::move(records), TxnWriter{req.producer_id, req.producer_epoch},
                       [this, from, req, replaced = std::move(replaced)](const AppendContext& ctx, ErrorCode e) {
                         on_txn_offsets_appended(from, req, replaced, ctx, e);
                       });
}

ErrorCode GroupCoordinator::Impl::validate_txn_commit(const TxnOffsetCommitRequest& req) {
  if (const ErrorCode e = check_group_request(req.group_id); e != ErrorCode::NONE) return e;
  if (req.producer_id.value() < 0) return ErrorCode::INVALID_REQUEST;
  const Group* g = find_group(req.group_id);
  if (g == nullptr) return ErrorCode::NONE;
  if (g->is(GroupState::kDead)) return ErrorCode::COORDINATOR_NOT_AVAILABLE;
  if (g->is_static_member_fenced(req.group_instance_id, req.member_id)) return ErrorCode::FENCED_INSTANCE_ID;
  if (!req.member_id.empty() && !g->has(req.member_id)) return ErrorCode::UNKNOWN_MEMBER_ID;
  if (req.generation_id >= 0 && req.generation_id != g->generation()) return ErrorCode::ILLEGAL_GENERATION;
  return ErrorCode::NONE;
}

void GroupCoordinator::Impl::on_txn_offsets_appended(NodeId from, const TxnOffsetCommitRequest& req,
                                                     const Group::TxnOffsets& replaced, const AppendContext& ctx,
                                                     ErrorCode e) {
  if (Group* g = group_of(ctx)) {
    auto it = g->pending_txn_offsets().find(req.producer_id);
    Offset log_offset = ctx.base_offset;  // the records are in the request's order
    for (const TxnOffsetCommitPartition& p : req.partitions) {
      // Only the entry this request left (a later TxnOffsetCommit of the same partition, or
      // the transaction's end, may have replaced or removed it).
      if (it != g->pending_txn_offsets().end()) {
        auto entry = it->second.find(p.tp);
        if (entry != it->second.end() && entry->second.log_offset.value() < 0 &&
            entry->second.offset == p.committed_offset && entry->second.metadata == p.metadata) {
          if (e == ErrorCode::NONE) {
            entry->second.log_offset = log_offset;
          } else if (auto before = replaced.find(p.tp); before != replaced.end()) {
            entry->second = before->second;  // the offset this request would have replaced
          } else {
            it->second.erase(entry);
          }
        }
      }
      log_offset = log_offset + 1;
    }
    if (it != g->pending_txn_offsets().end() && it->second.empty()) g->pending_txn_offsets().erase(it);
  }
  const ErrorCode error = still_loaded(ctx) ? map_txn_commit_error(e) : ErrorCode::NOT_COORDINATOR;
  answer_txn_commit(env, from, req, error);
}

void GroupCoordinator::Impl::on_txn_completed(ProducerId producer_id, std::int32_t partition, bool commit) {
  if (led.count(partition) == 0) return;  // unloaded: the next leader replays the marker
  for (auto& [id, g] : groups) {
    if (partition_of(id) != partition) continue;
    auto it = g.pending_txn_offsets().find(producer_id);
    if (it == g.pending_txn_offsets().end()) continue;
    const bool applied = commit || config.plants.has(Plant::kTxnOffsetsOnAbort);  // the plant: also on ABORT
    if (applied && !g.is(GroupState::kDead)) apply_txn_offsets(g.offsets(), it->second);
    g.pending_txn_offsets().erase(it);
  }
}

}  // namespace logsim::engine
