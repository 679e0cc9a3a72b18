// The transactional producer (transactional.id): Kafka's TransactionManager, as far as a user
// can observe it.
//
// - At start() it finds its transaction coordinator (FindCoordinator, key type transaction) and
//   gets its producer id and epoch there (InitProducerId naming the transactional id), which
//   fences every earlier incarnation of the id; the coordinator answers
//   CONCURRENT_TRANSACTIONS while it aborts the transaction such an incarnation left open.
// - begin_transaction() is local. The first send to a partition in a transaction adds the
//   partition (AddPartitionsToTxn, gathering the partitions sent to meanwhile); the partition's
//   batches wait until the coordinator has it. Its batches carry the transactional bit.
// - commit_transaction() waits for every send to complete, then sends EndTxn(COMMIT); a send
//   that failed makes the transaction abortable only: commit reports that error, and the
//   application must abort. abort_transaction() fails the sends not yet sent, waits for those
//   in flight, then sends EndTxn(ABORT). After an abortable error the next epoch is taken from
//   the coordinator (KIP-360), so the partitions' sequences start again at 0.
// - PRODUCER_FENCED, INVALID_PRODUCER_EPOCH and the coordinator's other refusals are fatal: the
//   producer is unusable, as Kafka's is (a newer incarnation owns the transactional id), and
//   every send still pending fails at once: never sent, definitely; in flight, unknown.
// - send_offsets_to_transaction() (sendOffsetsToTransaction) adds the group's offsets partition
//   to the transaction (AddOffsetsToTxn), finds the group's coordinator and writes the offsets
//   there (TxnOffsetCommit); the commit waits for it. The group coordinator's UNKNOWN_MEMBER_ID,
//   ILLEGAL_GENERATION and FENCED_INSTANCE_ID make the transaction abortable (KIP-447).
// One transactional request is in flight at a time, the most urgent first: FindCoordinator,
// InitProducerId, AddPartitionsToTxn, the offsets' requests, EndTxn. The retriable ones are retried after
// retry.backoff.ms; NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE look the coordinator up again.
#include <algorithm>
#include <tuple>

#include "engine/base/assert.h"
#include "engine/client/producer.h"

namespace logsim::engine {

namespace {

// Fails the sends still waiting for their topic's metadata: none reached a batch, so none was
// written. (A template so that it need not name the producer's private PendingSend.)
template <class Sends>
void fail_unplaced(Sends& unplaced, std::size_t& sends_pending, ErrorCode error) {
  Sends waiting = std::move(unplaced);
  unplaced.clear();
  for (auto& w : waiting) {
    --sends_pending;
    w.done(SendResult{SendOutcome::kFailed, PartitionId(-1), Offset(-1), error});
  }
}

}  // namespace

std::string_view txn_phase_name(TxnPhase phase) {
  switch (phase) {
    case TxnPhase::kUninitialized:
      return "UNINITIALIZED";
    case TxnPhase::kReady:
      return "READY";
    case TxnPhase::kInTransaction:
      return "IN_TRANSACTION";
    case TxnPhase::kCommitting:
      return "COMMITTING_TRANSACTION";
    case TxnPhase::kAborting:
      return "ABORTING_TRANSACTION";
    case TxnPhase::kAbortableError:
      return "ABORTABLE_ERROR";
    case TxnPhase::kFatalError:
      return "FATAL_ERROR";
  }
  return "UNKNOWN";
}

ErrorCode Producer::begin_transaction() {
  if (!transactional()) return ErrorCode::INVALID_TXN_STATE;
  if (txn_.phase == TxnPhase::kFatalError) return txn_.error;
  if (txn_.phase != TxnPhase::kReady) return ErrorCode::INVALID_TXN_STATE;
  txn_.phase = TxnPhase::kInTransaction;
  txn_.error = ErrorCode::NONE;
  return ErrorCode::NONE;
}

void Producer::commit_transaction(std::function<void(ErrorCode)> done) {
  if (!transactional() || txn_.end_done) return done(ErrorCode::INVALID_TXN_STATE);
  if (txn_.phase == TxnPhase::kAbortableError || txn_.phase == TxnPhase::kFatalError) return done(txn_.error);
  if (txn_.phase != TxnPhase::kInTransaction) return done(ErrorCode::INVALID_TXN_STATE);
  txn_.phase = TxnPhase::kCommitting;
  txn_.end_done = std::move(done);
  txn_next();
}

void Producer::abort_transaction(std::function<void(ErrorCode)> done) {
  if (!transactional() || txn_.end_done) return done(ErrorCode::INVALID_TXN_STATE);
  if (txn_.phase == TxnPhase::kFatalError) return done(txn_.error);
  if (txn_.phase != TxnPhase::kInTransaction && txn_.phase != TxnPhase::kAbortableError) {
    return done(ErrorCode::INVALID_TXN_STATE);
  }
  txn_.bump_epoch = txn_.phase == TxnPhase::kAbortableError;
  txn_.phase = TxnPhase::kAborting;
  txn_.end_done = std::move(done);
  txn_.pending.clear();  // partitions not yet added hold no record of this transaction
  txn_fail_offsets(ErrorCode::OPERATION_NOT_ATTEMPTED);
  // Batches never sent are failed (Kafka's TransactionAbortedException); those sent finish first.
  std::vector<std::pair<TopicPartition, std::uint64_t>> unsent;
  for (const auto& [key, partition] : batches_) {
    for (const Batch& b : partition.batches) {
      if (b.attempts == 0) unsent.emplace_back(key, b.id);
    }
  }
  for (const auto& [key, id] : unsent) {
    if (find_batch(key, id) != nullptr) complete(key, id, SendOutcome::kFailed, Offset(-1), ErrorCode::OPERATION_NOT_ATTEMPTED);
  }
  // So are sends still waiting for their topic's metadata.
  fail_unplaced(unplaced_, sends_pending_, ErrorCode::OPERATION_NOT_ATTEMPTED);
  txn_next();
}

void Producer::send_offsets_to_transaction(std::vector<TxnOffsetCommitPartition> offsets, ConsumerGroupMetadata group,
                                           std::function<void(ErrorCode)> done) {
  if (!transactional() || txn_.phase != TxnPhase::kInTransaction) {
    return done(txn_.phase == TxnPhase::kAbortableError || txn_.phase == TxnPhase::kFatalError
                    ? txn_.error
                    : ErrorCode::INVALID_TXN_STATE);
  }
  if (group.group_id.empty()) return done(ErrorCode::INVALID_GROUP_ID);
  if (offsets.empty()) return done(ErrorCode::NONE);  // nothing to add, as Kafka's client
  txn_.offsets.push_back(TxnOffsets{std::move(offsets), std::move(group), std::move(done), false, NodeId(-1)});
  txn_next();
}

void Producer::txn_fail_offsets(ErrorCode error) {
  std::deque<TxnOffsets> failed = std::move(txn_.offsets);
  txn_.offsets.clear();
  for (TxnOffsets& o : failed) o.done(error);
}

// The next request of the oldest send_offsets_to_transaction call; false if none is due.
bool Producer::txn_next_offsets() {
  if (txn_.offsets.empty() || txn_.phase == TxnPhase::kAborting) return false;
  const std::string& id = *config_.transactional_id;
  TxnOffsets& o = txn_.offsets.front();
  if (!o.added) {
    txn_requests_.send(TxnRequest::kAddOffsets, txn_slot_, txn_.coordinator,
                       AddOffsetsToTxnRequest{0, id, producer_id_, producer_epoch_, o.group.group_id});
  } else if (o.group_coordinator.value() < 0) {
    txn_requests_.send(TxnRequest::kFindGroupCoordinator, txn_slot_, channel_.any_bootstrap(),
                       FindCoordinatorRequest{0, o.group.group_id, CoordinatorKeyType::kGroup});
  } else {
    TxnOffsetCommitRequest req;
    req.transactional_id = id;
    req.group_id = o.group.group_id;
    req.producer_id = producer_id_;
    req.producer_epoch = producer_epoch_;
    req.generation_id = o.group.generation_id;
    req.member_id = o.group.member_id;
    req.group_instance_id = o.group.group_instance_id;
    req.partitions = o.offsets;
    txn_requests_.send(TxnRequest::kTxnOffsetCommit, txn_slot_, o.group_coordinator, std::move(req));
  }
  return true;
}

// The answers to the offsets' requests (Kafka's AddOffsetsToTxnHandler, FindCoordinator of the
// group, TxnOffsetCommitHandler).
void Producer::txn_on_offsets_answer(TxnRequest kind, const Message& msg) {
  const auto* add = std::get_if<AddOffsetsToTxnResponse>(&msg);
  // Added even if the call was aborted meanwhile: the abort must then end it at the coordinator.
  if (add != nullptr && add->error == ErrorCode::NONE) txn_.offsets_added = true;
  if (txn_.offsets.empty()) return;  // aborted meanwhile
  TxnOffsets& o = txn_.offsets.front();
  ErrorCode error = ErrorCode::NONE;
  if (add != nullptr) {
    error = add->error;
    if (error == ErrorCode::NONE) {
      o.added = true;
      return;
    }
    if (error != ErrorCode::PRODUCER_FENCED && error != ErrorCode::INVALID_PRODUCER_EPOCH && txn_retry(error)) return;
    return txn_fatal(error);  // as Kafka's client: what cannot be retried is fatal
  } else if (const auto* find = std::get_if<FindCoordinatorResponse>(&msg)) {
    if (find->error == ErrorCode::NONE) {
      o.group_coordinator = find->node_id;
    } else {
      txn_requests_.wait(kind, txn_slot_);
    }
    return;
  } else if (const auto* commit = std::get_if<TxnOffsetCommitResponse>(&msg)) {
    for (const TxnPartitionResult& r : commit->results) {
      if (r.error != ErrorCode::NONE) error = r.error;
    }
    if (error == ErrorCode::NONE) {
      std::function<void(ErrorCode)> done = std::move(o.done);
      txn_.offsets.pop_front();
      return done(ErrorCode::NONE);
    }
    if (error == ErrorCode::NOT_COORDINATOR || error == ErrorCode::COORDINATOR_NOT_AVAILABLE) {
      o.group_coordinator = NodeId(-1);
      return txn_requests_.wait(kind, txn_slot_);
    }
    if (error == ErrorCode::COORDINATOR_LOAD_IN_PROGRESS || error == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION ||
        error == ErrorCode::REQUEST_TIMED_OUT) {
      return txn_requests_.wait(kind, txn_slot_);
    }
    const bool abortable = error == ErrorCode::UNKNOWN_MEMBER_ID || error == ErrorCode::ILLEGAL_GENERATION ||
                           error == ErrorCode::FENCED_INSTANCE_ID;
    if (!abortable) return txn_fatal(error);  // Kafka's client: any other error is fatal
  }
  txn_fail_offsets(error);
  txn_abortable(error);
}

// A send may join the transaction only while one is open; it is refused otherwise.
ErrorCode Producer::txn_send_error() const {
  switch (txn_.phase) {
    case TxnPhase::kInTransaction:
      return ErrorCode::NONE;
    case TxnPhase::kAbortableError:
    case TxnPhase::kFatalError:
      return txn_.error;
    default:
      return ErrorCode::INVALID_TXN_STATE;
  }
}

// The transaction's first send to `key`: the partition is added before its batches go.
void Producer::txn_note_partition(const TopicPartition& key) {
  if (txn_.phase == TxnPhase::kAborting || txn_.added.count(key) != 0 || txn_.adding.count(key) != 0) return;
  if (txn_.pending.insert(key).second) txn_next();
}

bool Producer::txn_may_send(const TopicPartition& key) const { return txn_.added.count(key) != 0; }

// A send of the transaction ended without an acknowledgement: the transaction can only abort.
void Producer::txn_on_send_failed(ErrorCode error) {
  if (error == ErrorCode::INVALID_PRODUCER_EPOCH || error == ErrorCode::PRODUCER_FENCED) return txn_fatal(error);
  if (txn_.phase == TxnPhase::kInTransaction || txn_.phase == TxnPhase::kCommitting) txn_abortable(error);
}

void Producer::txn_abortable(ErrorCode error) {
  txn_.error = error;
  if (txn_.phase == TxnPhase::kCommitting) {
    // The commit cannot happen: report it; the application aborts.
    txn_.phase = TxnPhase::kAbortableError;
    if (auto done = std::exchange(txn_.end_done, nullptr)) done(error);
    return;
  }
  if (txn_.phase == TxnPhase::kInTransaction) txn_.phase = TxnPhase::kAbortableError;
}

void Producer::txn_fatal(ErrorCode error) {
  if (txn_.phase == TxnPhase::kFatalError) return;
  txn_.phase = TxnPhase::kFatalError;
  txn_.error = error;
  txn_requests_.end(txn_slot_);
  txn_fail_offsets(error);
  if (auto done = std::exchange(txn_.end_done, nullptr)) done(error);
  // Not now: a fatal answer is being handled inside the batches it may fail.
  timers_.set(0, ProducerTimer::kTxnFatal);
}

void Producer::txn_fail_pending_sends() {
  std::vector<std::tuple<TopicPartition, std::uint64_t, bool>> pending;  // partition, batch, ever sent
  for (const auto& [key, partition] : batches_) {
    for (const Batch& b : partition.batches) pending.emplace_back(key, b.id, b.attempts > 0);
  }
  for (const auto& [key, id, sent] : pending) {
    if (find_batch(key, id) != nullptr) complete(key, id, sent ? SendOutcome::kUnknown : SendOutcome::kFailed, Offset(-1), txn_.error);
  }
  fail_unplaced(unplaced_, sends_pending_, txn_.error);
}

// Sends the most urgent transactional request that is due, unless one is in flight or waited for.
void Producer::txn_next() {
  if (!transactional() || !txn_slot_.idle() || txn_.phase == TxnPhase::kFatalError) return;
  const std::string& id = *config_.transactional_id;
  if (txn_.coordinator.value() < 0) {
    txn_requests_.send(TxnRequest::kFindCoordinator, txn_slot_, channel_.any_bootstrap(),
                       FindCoordinatorRequest{0, id, CoordinatorKeyType::kTransaction});
    return;
  }
  if (txn_.phase == TxnPhase::kUninitialized) {
    InitProducerIdRequest req{0, producer_id_, producer_epoch_, id, config_.transaction_timeout_ms};
    txn_requests_.send(TxnRequest::kInitProducerId, txn_slot_, txn_.coordinator, std::move(req));
    return;
  }
  if (txn_.phase == TxnPhase::kAborting) txn_.pending.clear();  // they hold nothing of ours
  if (!txn_.pending.empty()) {
    txn_.adding = std::move(txn_.pending);
    txn_.pending.clear();
    AddPartitionsToTxnRequest req{0, id, producer_id_, producer_epoch_, {txn_.adding.begin(), txn_.adding.end()}};
    txn_requests_.send(TxnRequest::kAddPartitions, txn_slot_, txn_.coordinator, std::move(req));
    return;
  }
  if (txn_next_offsets()) return;
  const bool ending = txn_.phase == TxnPhase::kCommitting || txn_.phase == TxnPhase::kAborting;
  if (!ending || sends_pending_ > 0 || !txn_.pending.empty()) return;
  if (txn_.added.empty() && !txn_.offsets_added) {
    // No partition was added (as far as the answers say): nothing to end at the coordinator,
    // as Kafka's client. (An add whose answer was lost may have begun it there; the
    // coordinator's timeout then aborts it and fences this producer, as in Kafka.)
    return txn_ended();
  }
  txn_requests_.send(TxnRequest::kEndTxn, txn_slot_, txn_.coordinator,
                     EndTxnRequest{0, id, producer_id_, producer_epoch_, txn_.phase == TxnPhase::kCommitting});
}

void Producer::txn_ended() {
  txn_.offsets_added = false;
  txn_.added.clear();
  txn_.adding.clear();
  txn_.pending.clear();
  mark_all_dirty();
  if (txn_.bump_epoch) {
    // After an abortable error the abort completes with the next epoch (Kafka's INITIALIZING):
    // the sequences start again, and nothing begins before.
    txn_.phase = TxnPhase::kUninitialized;
    return txn_next();
  }
  txn_.phase = TxnPhase::kReady;
  if (auto done = std::exchange(txn_.end_done, nullptr)) done(ErrorCode::NONE);
}

// The partitions of a failed or lost AddPartitionsToTxn are asked for again with whatever was
// sent to meanwhile, unless the transaction is aborting (they hold nothing of it).
void Producer::txn_requeue_adding() {
  if (txn_.phase != TxnPhase::kAborting) txn_.pending.insert(txn_.adding.begin(), txn_.adding.end());
  txn_.adding.clear();
}

// What to do after a transactional request's error: try again later (after looking the
// coordinator up again, if it moved), or give up with the error (false).
bool Producer::txn_retry(ErrorCode error) {
  if (error == ErrorCode::NOT_COORDINATOR || error == ErrorCode::COORDINATOR_NOT_AVAILABLE) {
    txn_.coordinator = NodeId(-1);
  } else if (!is_retriable(error)) {
    return false;
  }
  txn_requests_.wait(TxnRequest::kFindCoordinator, txn_slot_);  // (the key only names the wait)
  return true;
}

bool Producer::txn_on_message(const Message& msg) {
  const std::optional<CorrelationId> correlation = message_correlation(msg);
  if (!correlation) return false;
  const std::optional<TxnRequest> kind = txn_requests_.find(*correlation);
  if (!kind) return false;
  txn_requests_.end(txn_slot_);
  if (*kind == TxnRequest::kAddOffsets || *kind == TxnRequest::kFindGroupCoordinator ||
      *kind == TxnRequest::kTxnOffsetCommit) {
    txn_on_offsets_answer(*kind, msg);
  } else if (const auto* find = std::get_if<FindCoordinatorResponse>(&msg)) {
    if (find->error == ErrorCode::NONE) {
      txn_.coordinator = find->node_id;
    } else {
      txn_requests_.wait(TxnRequest::kFindCoordinator, txn_slot_);
      return true;
    }
  } else if (const auto* init = std::get_if<InitProducerIdResponse>(&msg)) {
    if (init->error != ErrorCode::NONE) {
      if (!txn_retry(init->error)) txn_fatal(init->error);
      return true;
    }
    producer_id_ = init->producer_id;
    producer_epoch_ = init->producer_epoch;
    txn_.bump_epoch = false;
    mark_all_dirty();
    if (txn_.phase == TxnPhase::kUninitialized) {
      txn_.phase = TxnPhase::kReady;
      if (auto done = std::exchange(txn_.end_done, nullptr)) done(ErrorCode::NONE);  // an abort's bump
    }
  } else if (const auto* add = std::get_if<AddPartitionsToTxnResponse>(&msg)) {
    ErrorCode error = ErrorCode::NONE;
    for (const TxnPartitionResult& r : add->results) {
      if (r.error != ErrorCode::NONE && r.error != ErrorCode::OPERATION_NOT_ATTEMPTED) error = r.error;
    }
    if (error == ErrorCode::NONE) {
      txn_.added.insert(txn_.adding.begin(), txn_.adding.end());
      txn_.adding.clear();
      mark_all_dirty();  // their batches may go now
    } else {
      txn_requeue_adding();
      if (error == ErrorCode::PRODUCER_FENCED || error == ErrorCode::INVALID_PRODUCER_EPOCH) {
        txn_fatal(error);
        return true;
      }
      if (error == ErrorCode::CONCURRENT_TRANSACTIONS && txn_.added.empty()) {
        // Kafka's client (KAFKA-5477): the first AddPartitionsToTxn of a transaction, answered
        // so while the coordinator still completes the last one, is retried after at most
        // 20 ms, not retry.backoff.ms, so back-to-back transactions do not stall.
        txn_requests_.wait(TxnRequest::kFindCoordinator, txn_slot_, millis(std::min(config_.retry_backoff_ms, 20)));
        return true;
      }
      if (txn_retry(error)) return true;
      txn_.pending.clear();
      txn_abortable(error);
    }
  } else if (const auto* end = std::get_if<EndTxnResponse>(&msg)) {
    if (end->error == ErrorCode::NONE) {
      txn_ended();
      drain();
      return true;
    }
    if (!txn_retry(end->error)) txn_fatal(end->error);
    return true;
  }
  txn_next();
  drain();
  return true;
}

void Producer::txn_on_timer(TimerId timer) {
  if (!txn_requests_.fired(timer)) return;
  txn_slot_.timer = 0;
  if (txn_slot_.in_flight()) {
    // Unanswered: as a broken connection (the request is sent again, to a coordinator found anew).
    txn_requests_.end(txn_slot_);
    txn_.coordinator = NodeId(-1);
    if (!txn_.offsets.empty()) txn_.offsets.front().group_coordinator = NodeId(-1);
    txn_requeue_adding();
  }
  txn_next();
}

void Producer::txn_on_disconnect(NodeId peer) {
  if (!txn_slot_.in_flight() || txn_slot_.target != peer) return;
  txn_requests_.end(txn_slot_);
  txn_requeue_adding();
  txn_.coordinator = NodeId(-1);
  if (!txn_.offsets.empty()) txn_.offsets.front().group_coordinator = NodeId(-1);
  txn_requests_.wait(TxnRequest::kFindCoordinator, txn_slot_);
}

}  // namespace logsim::engine
