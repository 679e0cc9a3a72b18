// A transactional producer's state at its transaction coordinator (Kafka's TransactionMetadata
// and TransactionState), the coordinator's rules for changing it, and its record in the
// internal topic __transaction_state.
//
// States, with Kafka's names and numbers, and the states each may follow:
//   Empty (0)             <- Empty, CompleteCommit, CompleteAbort   (InitProducerId)
//   Ongoing (1)           <- Ongoing, Empty, CompleteCommit, CompleteAbort   (AddPartitionsToTxn)
//   PrepareCommit (2)     <- Ongoing   (EndTxn COMMIT: the decision, durable before any marker)
//   PrepareAbort (3)      <- Ongoing, PrepareEpochFence   (EndTxn ABORT, a timeout, a fence)
//   CompleteCommit (4)    <- PrepareCommit   (every marker written)
//   CompleteAbort (5)     <- PrepareAbort
//   Dead (6)              <- Empty, CompleteCommit, CompleteAbort   (the id expired)
//   PrepareEpochFence (7) <- Ongoing   (a new incarnation, or the timeout, fences the producer)
//
// The prepare_* functions are Kafka's prepare transitions: each checks a request against the
// current metadata and returns the metadata to write to __transaction_state, or the error to
// answer with. The coordinator takes the new metadata as current only once its record is
// committed, and while one is being written (`pending`) refuses other changes with
// CONCURRENT_TRANSACTIONS, as Kafka's pendingState does.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "engine/base/topic_partition.h"
#include "engine/base/types.h"
#include "engine/protocol/errors.h"
#include "engine/protocol/messages.h"

namespace logsim::engine {

// The internal topic's name, as in Kafka.
inline constexpr std::string_view kTransactionStateTopic = "__transaction_state";

enum class TxnState : std::int8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};

// Kafka's name of the state, e.g. "PrepareCommit".
std::string_view txn_state_name(TxnState state);
// Whether `to` may follow `from` (the table above).
bool txn_transition_valid(TxnState from, TxnState to);

struct TxnMetadata {
  std::string transactional_id;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  std::int32_t txn_timeout_ms = 60000;
  TxnState state = TxnState::kEmpty;
  std::set<TopicPartition> partitions;  // in the transaction (Ongoing, Prepare*)
  std::int64_t txn_start_ms = -1;       // when its first partition was added
  std::int64_t last_update_ms = -1;
  std::optional<TxnState> pending;      // a change being written (not part of the record)
  bool operator==(const TxnMetadata&) const = default;
};

// A prepared change: NONE and the metadata to write, or the error to answer with. `write` is
// false when the request is answered without a change (a retried AddPartitionsToTxn of
// partitions already in the transaction, a retried EndTxn of a decided transaction).
struct TxnTransition {
  ErrorCode error = ErrorCode::NONE;
  TxnMetadata next;
  bool write = true;
};

// InitProducerId for a transactional id (the caller checks transaction.timeout.ms against
// transaction.max.timeout.ms): `current` is none for an id never seen, then the new metadata
// takes `new_producer_id` at epoch 0. Otherwise a decided or empty transaction moves on to the
// next epoch (a new producer id once the epoch reached Kafka's last, 32766); an Ongoing one is
// fenced: the transition is its abort at the next epoch (Kafka's PrepareEpochFence, which it
// keeps only in memory, followed by PrepareAbort), answered CONCURRENT_TRANSACTIONS so that
// the client asks again once the abort is complete; one being decided is CONCURRENT_TRANSACTIONS.
TxnTransition prepare_init_producer_id(const std::optional<TxnMetadata>& current, std::string_view transactional_id,
                                       std::int32_t txn_timeout_ms, ProducerId new_producer_id, std::int64_t now_ms);
// AddPartitionsToTxn (and AddOffsetsToTxn, whose partition is the group's __consumer_offsets one).
TxnTransition prepare_add_partitions(const TxnMetadata& current, ProducerId producer_id, ProducerEpoch epoch,
                                     std::span<const TopicPartition> partitions, std::int64_t now_ms);
// EndTxn from the producer (commit or abort).
TxnTransition prepare_end_txn(const TxnMetadata& current, ProducerId producer_id, ProducerEpoch epoch, bool commit,
                              std::int64_t now_ms);
// The coordinator's own abort of an Ongoing transaction (its timeout, or a fence), at the next
// epoch so that the producer's late requests and writes are fenced; from PrepareEpochFence the
// epoch was already bumped.
TxnTransition prepare_abort_by_coordinator(const TxnMetadata& current, std::int64_t now_ms);
// Every marker is written: PrepareCommit -> CompleteCommit, PrepareAbort -> CompleteAbort,
// with no partitions left.
TxnTransition prepare_complete(const TxnMetadata& current, std::int64_t now_ms);
// Whether an Ongoing transaction has outlived its timeout at now_ms.
bool txn_timed_out(const TxnMetadata& m, std::int64_t now_ms);

// __transaction_state records: key (the transactional id) -> value (the metadata, less
// `pending`). Our own encoding, with the codec of the group coordinator's records (a version
// i16 first, big-endian integers, length-prefixed strings); malformed bytes decode to none.
std::string encode_txn_key(std::string_view transactional_id);
std::optional<std::string> decode_txn_key(std::string_view bytes);
std::string encode_txn_value(const TxnMetadata& m);
std::optional<TxnMetadata> decode_txn_value(std::string_view transactional_id, std::string_view bytes);
// The record of `m`, stamped now_ms.
Record txn_log_record(const TxnMetadata& m, std::int64_t now_ms);

}  // namespace logsim::engine
