// An exactly-once pipeline member's transactions (group_member_app.h): begin at a poll, a copy
// per record processed, the batch's positions and commit at its end, abort or a new producer
// when that fails.
#include <algorithm>
#include <utility>

#include "engine/base/assert.h"
#include "scenarios/apps/app_history.h"
#include "scenarios/apps/group_member_app.h"

namespace logsim::scenarios {

void GroupMemberApp::make_producer() {
  engine::ProducerConfig c = spec_.exactly_once->config;
  c.bootstrap_servers = bootstrap_;
  c.transactional_id = name_;
  txn_ = std::make_unique<engine::Producer>(env_, timers_, std::move(c));
  txn_->start();
  announced_ = false;
  txn_open_ = false;
}

bool GroupMemberApp::producer_ready() {
  switch (txn_->txn_phase()) {
    case engine::TxnPhase::kReady:
      return true;
    case engine::TxnPhase::kFatalError:
      env_.set_timer(0, kRenewTag);
      return false;
    default:  // InitProducerId under way
      env_.set_timer(spec_.poll_interval, kPollTag);
      return false;
  }
}

void GroupMemberApp::begin_transaction(const std::vector<engine::ConsumerRecord>& records) {
  const ErrorCode e = txn_->begin_transaction();
  LOGSIM_ASSERT(e == ErrorCode::NONE, "begin_transaction on a producer that is not ready");
  txn_open_ = true;
  txn_revoked_ = false;
  txn_partitions_.clear();
  for (const auto& r : records) txn_partitions_.insert(r.tp);
  txn_group_ = engine::ConsumerGroupMetadata{spec_.name, consumer_.generation(), consumer_.member_id(),
                                             spec_.config.group_instance_id};
  if (spec_.static_membership) txn_group_.group_instance_id = name_;
  if (!spec_.exactly_once->group_metadata) txn_group_ = engine::ConsumerGroupMetadata{spec_.name, -1, "", std::nullopt};
  auto b = ctx_.event(properties::OpKind::kTxnBegin, name_);
  b.note = "transactional.id=" + name_;
  // The first transaction after initTransactions() names the id: it fences older incarnations.
  if (!announced_) b.key = name_;
  announced_ = true;
  ctx_.history.append(std::move(b));
}

void GroupMemberApp::copy_front() {
  const engine::ConsumerRecord& r = batch_.front();
  const std::string& topic = spec_.exactly_once->to;
  const std::uint64_t input = parse_value_id(r.record.record);
  const std::uint64_t value_id = ++ctx_.last_copy_id;
  const std::optional<std::string>& value = r.record.record.value;
  Record copy = make_record(r.record.record.key, value_id, value ? static_cast<std::int32_t>(value->size()) : 0, !value,
                            to_millis(env_.now()));
  auto invoke = ctx_.event(properties::OpKind::kSendInvoke, name_);
  invoke.topic = topic;
  invoke.key = copy.key;
  invoke.value_id = value_id;
  invoke.source_value_id = input;
  invoke.idempotent = true;
  invoke.tombstone = !value;
  ctx_.history.append(invoke);
  txn_->send(topic, std::move(copy), std::nullopt, [this, topic, key = invoke.key, value_id](const engine::SendResult& s) {
    ctx_.history.append(send_outcome_event(ctx_, name_, topic, key, value_id, s));
  });
}

void GroupMemberApp::end_transaction() {
  if (txn_revoked_) {
    abort_transaction(ErrorCode::NONE, "a partition of the transaction was revoked or lost meanwhile");
    return;
  }
  txn_offsets_ = std::exchange(batch_end_, {});
  ++txn_commit_id_;
  record_txn_offsets(properties::OpKind::kCommitInvoke, ErrorCode::NONE);
  std::vector<TxnOffsetCommitPartition> offsets;
  for (const auto& [tp, at] : txn_offsets_) offsets.push_back({tp, at, ""});
  txn_->send_offsets_to_transaction(std::move(offsets), txn_group_, [](ErrorCode) {});
  ctx_.history.append(ctx_.event(properties::OpKind::kTxnCommitInvoke, name_));
  txn_->commit_transaction([this](ErrorCode e) {
    if (e == ErrorCode::NONE) {
      transaction_ended(properties::OpKind::kTxnCommit, e, "");
      record_txn_offsets(properties::OpKind::kCommitOk, e);
      env_.set_timer(0, kPollTag);  // not from inside the producer's callback
      return;
    }
    if (txn_->txn_phase() == engine::TxnPhase::kAbortableError) return abort_transaction(e, "the commit failed, so it was aborted");
    transaction_ended(properties::OpKind::kTxnInfo, e, "the commit failed");
    env_.set_timer(0, kRenewTag);
  });
}

void GroupMemberApp::abort_transaction(ErrorCode why, const std::string& note) {
  txn_->abort_transaction([this, why, note](ErrorCode a) {
    if (a != ErrorCode::NONE) {
      transaction_ended(properties::OpKind::kTxnInfo, a,
                        note + "; the abort failed too" + (why == ErrorCode::NONE ? "" : " (after " + std::string(error_name(why)) + ")"));
      env_.set_timer(0, kRenewTag);
      return;
    }
    transaction_ended(properties::OpKind::kTxnAbort, why, note);
    if (!txn_offsets_.empty()) record_txn_offsets(properties::OpKind::kCommitFail, why == ErrorCode::NONE ? ErrorCode::UNKNOWN_SERVER_ERROR : why);
    // As Kafka's exactly-once example (resetToLastCommittedPositions) and Kafka Streams do:
    // back to the group's committed offsets, which the aborted transaction did not move.
    back_to_committed("back to the group's committed offset after the abort");
    env_.set_timer(0, kPollTag);
  });
}

void GroupMemberApp::transaction_ended(properties::OpKind outcome, ErrorCode error, const std::string& note) {
  auto e = ctx_.event(outcome, name_);
  if (error != ErrorCode::NONE) e.error = std::string(error_name(error));
  e.note = note;
  ctx_.history.append(std::move(e));
  txn_open_ = false;
}

// The transaction's offsets, as a commit of the member's (one event per partition).
void GroupMemberApp::record_txn_offsets(properties::OpKind kind, ErrorCode error) {
  for (const auto& [tp, offset] : txn_offsets_) {
    auto e = event(kind);
    e.generation = properties::known(GenerationId(txn_group_.generation_id));
    e.topic = tp.topic;
    e.partition = tp.partition;
    e.offset = offset;
    e.commit_id = txn_commit_id_;
    e.note = "in a transaction";
    if (error != ErrorCode::NONE) e.error = std::string(error_name(error));
    ctx_.history.append(std::move(e));
  }
  if (kind != properties::OpKind::kCommitInvoke) txn_offsets_.clear();
}

// Every assigned partition goes back to the group's committed offset, fetched once no
// transaction's offsets are pending on it (a seek without an offset in the history).
void GroupMemberApp::back_to_committed(const char* why) {
  for (const auto& tp : consumer_.assignment()) {
    consumer_.seek_to_committed(tp);
    auto e = event(properties::OpKind::kSeek);
    e.topic = tp.topic;
    e.partition = tp.partition;
    e.note = why;
    ctx_.history.append(std::move(e));
  }
}

// The producer failed for good, or a transaction's outcome is unknown: as Kafka Streams after a
// ProducerFencedException, a new producer (its InitProducerId ends the last transaction: the
// coordinator completes a decided commit or aborts it), and every assigned partition goes back
// to the group's committed offset, fetched once no transaction's offsets are pending on it.
void GroupMemberApp::renew_producer() {
  auto f = event(properties::OpKind::kFault);
  f.error = std::string(txn_phase_name(txn_->txn_phase()));
  f.note = name_ + " makes a new transactional producer and goes back to its group's committed offsets";
  ctx_.history.append(std::move(f));
  txn_.reset();
  txn_offsets_.clear();
  make_producer();
  batch_.clear();
  back_to_committed("back to the group's committed offset with a new producer");
  env_.set_timer(spec_.poll_interval, kPollTag);
}

}  // namespace logsim::scenarios
