// The idempotent producers a partition has seen: for each producer id, its epoch, the last
// sequence written, and its recent batches: their sequences and where they landed (Kafka's
// ProducerStateManager and ProducerStateEntry).
//
// Departure from Kafka: Kafka keeps the last five batches (NUM_BATCHES_TO_RETAIN); we keep at
// least those and every batch within the last kSequencesRetained sequences, as if Kafka had
// fixed what keeping five lets happen. Kafka's producer limits in-flight requests per
// connection, not per partition, so after a leader change more than five batches of one
// partition can be unanswered, across the old leader and the new; a retry of one the new
// leader no longer caches is OUT_OF_ORDER_SEQUENCE_NUMBER, and the producer
// (TransactionManager.canRetry) bumps its epoch and writes it again: a duplicate, as reported
// from real clusters in librdkafka #4953. The five-batch-producer-state plant keeps Kafka's
// five exactly (only_five_batches). Fuzzing found that duplicate while logsim's producer sent
// all of a partition's retries at once; now that it retries the first unanswered batch alone
// (Kafka's firstInFlightSequence), five have sufficed in every schedule tried.
//
// Rules for a batch (producer id, epoch, sequences base .. base + count - 1):
// - no producer id: append (not idempotent);
// - an epoch below the producer's: INVALID_PRODUCER_EPOCH (a newer incarnation fenced it);
// - a producer not seen (its records were truncated or never replicated here): append at any
//   sequence — Kafka, since KIP-360, lets such a producer continue;
// - a new epoch of a known producer: append if it starts at sequence 0 (the producer bumped its
//   epoch and numbers every partition from 0 again, KIP-360), else OUT_OF_ORDER_SEQUENCE_NUMBER;
// - a recent batch again (the same first and last sequence): a duplicate, answered with the
//   offsets it got the first time; any other batch at or below the last sequence (never
//   written to this log, or longer ago): OUT_OF_ORDER_SEQUENCE_NUMBER, as Kafka's broker
//   answers a batch that is neither a cached duplicate nor next in sequence;
// - base == last + 1: append; anything else: OUT_OF_ORDER_SEQUENCE_NUMBER.
// The table is rebuilt from the log after recovery and truncation, so leaders and followers
// agree on it: what the records say is the state.
//
// Transactions (Kafka's ProducerStateManager). A producer's first transactional batch opens
// its transaction on the partition at that batch's base offset; its control batch (a marker,
// record_batch.h) closes it. A marker is refused with INVALID_PRODUCER_EPOCH below the
// producer's epoch and TRANSACTION_COORDINATOR_FENCED below the last marker's coordinator
// epoch; a marker of a newer epoch takes the producer to it. A plain batch of a producer whose
// transaction is open is INVALID_TXN_STATE. A closed transaction stays unstable until the high
// watermark passes its marker (Kafka's unreplicated transactions), so the last stable offset
// is min(high watermark, first offset of every open or unreplicated transaction). An abort
// goes into the aborted-transaction index (producer, first offset, the marker's offset) that
// read_committed fetches are answered from. A marker that closes no open transaction (a retried
// or an empty one) changes only the producer's epochs, as Kafka's emits no completed
// transaction for it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "engine/protocol/errors.h"
#include "engine/protocol/messages.h"
#include "engine/plants.h"
#include "engine/log/partition_log.h"

namespace logsim::engine {

class ProducerStateTable {
 public:
  struct Check {
    ErrorCode error = ErrorCode::NONE;  // NONE: append (unless duplicate)
    bool duplicate = false;
    Offset duplicate_base{-1};          // where the duplicate's first record is, if known
  };

  // An aborted transaction, as the index holds it.
  struct AbortedTxn {
    ProducerId producer_id;
    Offset first_offset;
    Offset last_offset;  // the abort marker's
    bool operator==(const AbortedTxn&) const = default;
  };

  // `plants`: the skip-idempotent-dedup planted bug takes a retried batch for a new one;
  // fenced-write-accepted appends a batch of an older epoch.
  // `transactional`: the batch's transactional bit.
  Check check(const ProducerBatchInfo& batch, std::int32_t count, Plants plants = {}, bool transactional = false) const;
  // Whether the leader may write `marker` (NONE) or must refuse it.
  ErrorCode check_marker(const TxnMarker& marker) const;
  // Takes note of a batch the log now holds (leader append or replication); `marker` is what
  // a control batch holds. Sequences at or below the producer's last one in the same epoch (a
  // duplicate written again, which only the skip-idempotent-dedup planted bug does) leave the
  // table as the first write left it.
  void record(const BatchHeader& batch, const std::optional<TxnMarker>& marker = {});
  void rebuild(const PartitionLog& log);

  // min(high_watermark, the first offset of every open transaction and of every closed one
  // whose marker is at or above it).
  Offset last_stable_offset(Offset high_watermark) const;
  // Forgets the closed transactions whose markers are below the high watermark (replicated).
  void forget_replicated(Offset high_watermark);
  // Forgets the aborted transactions whose markers are below the log start (retention took them).
  void forget_aborted_below(Offset log_start);
  // The aborted transactions a fetch of [from, upto) must be told of: those whose marker is
  // at or above `from` and whose first offset is below `upto`, by marker offset.
  std::vector<AbortedTxn> aborted_between(Offset from, Offset upto) const;
  // The open transactions: producer and first offset, by producer id.
  std::vector<std::pair<ProducerId, Offset>> open_transactions() const;
  std::size_t size() const { return producers_.size(); }
  // PLANTED BUG (five-batch-producer-state): keep Kafka's five batches per producer, no more.
  void only_five_batches() { only_five_ = true; }
  // PLANTED BUG (lso-past-open-transaction): the last stable offset is the high watermark.
  void lso_ignores_open_transactions() { lso_ignores_open_ = true; }

  static constexpr std::size_t kBatchesRetained = 5;  // per producer, at least, as Kafka's
  static constexpr std::int32_t kSequencesRetained = 5000;  // and every batch within these

 private:
  struct RecentBatch {
    Sequence first;
    Sequence last;
    Offset base_offset;
  };
  struct Entry {
    ProducerEpoch epoch{-1};
    Sequence last{-1};
    std::deque<RecentBatch> recent;  // oldest first
    std::optional<Offset> txn_first;     // the open transaction's first offset
    std::int32_t coordinator_epoch = -1;  // of the last marker
  };
  // Starts a new epoch of the producer: its sequences begin again, its transaction stays.
  static void bump(Entry& e, ProducerEpoch epoch);
  void record_marker(const BatchHeader& batch, const TxnMarker& marker);

  std::map<ProducerId, Entry> producers_;
  std::set<std::pair<Offset, ProducerId>> open_;      // open transactions by first offset
  std::deque<std::pair<Offset, Offset>> unreplicated_;  // closed: (first offset, marker offset)
  std::vector<AbortedTxn> aborted_;                   // by marker offset
  bool only_five_ = false;
  bool lso_ignores_open_ = false;
};

}  // namespace logsim::engine
