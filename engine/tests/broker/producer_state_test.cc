// The broker's idempotence rules, batch by batch, and the table rebuilt from a log.
#include "engine/broker/producer_state.h"

#include <gtest/gtest.h>

#include "engine/protocol/record_batch.h"
#include "engine/tests/log/log_test_util.h"

namespace logsim::engine {
namespace {

using logtest::kv;
using logtest::TestDisk;
const std::string kDir = "t-0";

ProducerBatchInfo batch(std::int64_t pid, std::int16_t epoch, std::int32_t base) {
  return ProducerBatchInfo{ProducerId(pid), ProducerEpoch(epoch), Sequence(base)};
}

// Records a batch of `count` sequences from `base` of producer `pid` at offsets from `offset`.
void write(ProducerStateTable& t, std::int64_t pid, std::int16_t epoch, std::int32_t base, std::int32_t count,
           std::int64_t offset) {
  BatchHeader h;
  h.base_offset = Offset(offset);
  h.last_offset_delta = count - 1;
  h.record_count = count;
  h.producer_id = ProducerId(pid);
  h.producer_epoch = ProducerEpoch(epoch);
  h.base_sequence = Sequence(base);
  t.record(h);
}

// A transactional batch of producer `pid` (epoch 0), `count` sequences from `base`, at `offset`.
void write_txn(ProducerStateTable& t, std::int64_t pid, std::int32_t base, std::int32_t count, std::int64_t offset) {
  BatchHeader h;
  h.base_offset = Offset(offset);
  h.last_offset_delta = count - 1;
  h.record_count = count;
  h.producer_id = ProducerId(pid);
  h.producer_epoch = ProducerEpoch(0);
  h.base_sequence = Sequence(base);
  h.attributes = kTransactionalAttribute;
  t.record(h);
}

// The marker ending producer `pid`'s transaction, written at `offset`.
void end_txn(ProducerStateTable& t, std::int64_t pid, ControlType type, std::int64_t offset, std::int16_t epoch = 0,
             std::int32_t coordinator_epoch = 0) {
  BatchHeader h;
  h.base_offset = Offset(offset);
  h.record_count = 1;
  h.producer_id = ProducerId(pid);
  h.producer_epoch = ProducerEpoch(epoch);
  h.attributes = kTransactionalAttribute | kControlAttribute;
  t.record(h, TxnMarker{ProducerId(pid), ProducerEpoch(epoch), type, coordinator_epoch});
}

TEST(ProducerState, NonIdempotentAndUnknownProducersAppend) {
  ProducerStateTable t;
  EXPECT_EQ(t.check(ProducerBatchInfo{}, 3).error, ErrorCode::NONE);
  EXPECT_FALSE(t.check(ProducerBatchInfo{}, 3).duplicate);
  EXPECT_EQ(t.check(batch(7, 0, 0), 3).error, ErrorCode::NONE);
  EXPECT_EQ(t.check(batch(7, 0, 42), 3).error, ErrorCode::NONE);  // not seen here (KIP-360)
}

TEST(ProducerState, NextSequenceAppendsAndGapsAreOutOfOrder) {
  ProducerStateTable t;
  write(t, 7, 0, 0, 3, 100);  // sequences 0..2 at offsets 100..102
  EXPECT_EQ(t.check(batch(7, 0, 3), 2).error, ErrorCode::NONE);
  EXPECT_FALSE(t.check(batch(7, 0, 3), 2).duplicate);
  EXPECT_EQ(t.check(batch(7, 0, 4), 2).error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  EXPECT_EQ(t.check(batch(7, 0, 2), 2).error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);  // overlaps the end
}

TEST(ProducerState, DuplicatesAreAnsweredWithTheirFirstOffsets) {
  ProducerStateTable t;
  write(t, 7, 0, 0, 3, 100);
  write(t, 7, 0, 3, 2, 200);
  const auto dup = t.check(batch(7, 0, 3), 2);
  EXPECT_TRUE(dup.duplicate);
  EXPECT_EQ(dup.error, ErrorCode::NONE);
  EXPECT_EQ(dup.duplicate_base, Offset(200));
  EXPECT_EQ(t.check(batch(7, 0, 0), 3).duplicate_base, Offset(100));
  // Another producer's sequences are its own.
  EXPECT_FALSE(t.check(batch(8, 0, 0), 3).duplicate);
}

// PLANTED BUG skip-idempotent-dedup: a retried batch is taken as new (appended again), while
// the other sequence checks stay; the table keeps the first write's offsets and last sequence.
TEST(ProducerState, SkipIdempotentDedupPlantTakesARetryForANewBatch) {
  ProducerStateTable t;
  write(t, 7, 0, 0, 3, 100);
  Plants plants;
  plants.add(Plant::kSkipIdempotentDedup);
  EXPECT_TRUE(t.check(batch(7, 0, 0), 3).duplicate) << "without the plant: de-duplicated";
  const auto retry = t.check(batch(7, 0, 0), 3, plants);
  EXPECT_FALSE(retry.duplicate);
  EXPECT_EQ(retry.error, ErrorCode::NONE);
  EXPECT_EQ(t.check(batch(7, 0, 5), 1, plants).error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  write(t, 7, 0, 0, 3, 103);  // the retry written again
  EXPECT_EQ(t.check(batch(7, 0, 0), 3).duplicate_base, Offset(100)) << "the first write's offsets stand";
  EXPECT_EQ(t.check(batch(7, 0, 3), 1).error, ErrorCode::NONE) << "the last sequence did not go back";
}

// At least the last five batches of each producer are known duplicates, as in Kafka, and so is
// every batch within the last kSequencesRetained sequences; a retry of an older one is not,
// and neither is a batch that matches a kept one's first sequence but not its last.
TEST(ProducerState, RecentBatchesAreKnownDuplicatesAndOlderOnesOutOfOrder) {
  ProducerStateTable t;
  const auto n = static_cast<std::int32_t>(ProducerStateTable::kBatchesRetained) + 3;
  for (std::int32_t b = 0; b < n; ++b) write(t, 7, 0, 2 * b, 2, 10 * b);  // batches of 2 sequences
  const auto first = t.check(batch(7, 0, 0), 2);
  EXPECT_TRUE(first.duplicate) << "within the last sequences: still known (more than Kafka's five)";
  EXPECT_EQ(first.duplicate_base, Offset(0));
  EXPECT_EQ(t.check(batch(7, 0, 2), 1).error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER) << "another batch's shape";
  // Batches spanning more than kSequencesRetained sequences push the oldest out, but five stay.
  ProducerStateTable big;
  const std::int32_t span = ProducerStateTable::kSequencesRetained;
  for (std::int32_t b = 0; b < 6; ++b) write(big, 7, 0, b * span, span, std::int64_t{b} * span);
  const auto old = big.check(batch(7, 0, 0), span);
  EXPECT_FALSE(old.duplicate);
  EXPECT_EQ(old.error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  EXPECT_TRUE(big.check(batch(7, 0, span), span).duplicate) << "the last five batches always stay";
}

// PLANTED BUG five-batch-producer-state: Kafka's own five batches, however few sequences they
// span, so a sixth pushes the first out: its retry is OUT_OF_ORDER_SEQUENCE_NUMBER, which the
// producer answers with a new epoch (and so writes it again).
TEST(ProducerState, FiveBatchPlantRemembersOnlyTheLastFiveBatches) {
  ProducerStateTable t;
  t.only_five_batches();
  for (std::int32_t b = 0; b < 6; ++b) write(t, 7, 0, 2 * b, 2, 10 * b);
  const auto first = t.check(batch(7, 0, 0), 2);
  EXPECT_FALSE(first.duplicate);
  EXPECT_EQ(first.error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  EXPECT_TRUE(t.check(batch(7, 0, 2), 2).duplicate) << "the second batch is the oldest of the last five";
  EXPECT_EQ(t.check(batch(7, 0, 2), 2).duplicate_base, Offset(10));
}

// A new leader that never saw a producer's first batches takes it up mid-sequence (an unknown
// producer may start anywhere). Those batches, retried to it, were never written here: they
// must not pass for duplicates, which the producer takes for written (the replication
// property test lost 12 acknowledged records that way).
TEST(ProducerState, ABatchBelowTheLastThatWasNeverWrittenHereIsOutOfOrder) {
  ProducerStateTable t;
  EXPECT_EQ(t.check(batch(7, 0, 12), 163).error, ErrorCode::NONE) << "unknown: any sequence";
  write(t, 7, 0, 12, 163, 0);
  for (const std::int32_t base : {0, 8, 11}) {
    const auto retry = t.check(batch(7, 0, base), 1);
    EXPECT_FALSE(retry.duplicate) << base;
    EXPECT_EQ(retry.error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER) << base;
  }
  EXPECT_EQ(t.check(batch(7, 0, 12), 163).duplicate_base, Offset(0)) << "a real duplicate still is one";
}

TEST(ProducerState, EpochsFenceOlderProducersAndANewEpochStartsOver) {
  ProducerStateTable t;
  write(t, 7, 1, 0, 5, 0);
  EXPECT_EQ(t.check(batch(7, 0, 5), 1).error, ErrorCode::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(t.check(batch(7, 2, 0), 1).error, ErrorCode::NONE);
  write(t, 7, 2, 0, 1, 5);
  EXPECT_EQ(t.check(batch(7, 2, 1), 1).error, ErrorCode::NONE);
  EXPECT_EQ(t.check(batch(7, 1, 5), 1).error, ErrorCode::INVALID_PRODUCER_EPOCH);
}

// KIP-360: a producer that found a gap in its sequences bumps its epoch and numbers every
// partition from 0 again; the broker takes the new epoch at sequence 0 (and only there, so a
// gap at the start of the new epoch is still caught).
TEST(ProducerState, ANewEpochOfAKnownProducerStartsAtSequenceZero) {
  ProducerStateTable t;
  write(t, 7, 3, 0, 5, 0);  // epoch 3, sequences 0..4
  EXPECT_EQ(t.check(batch(7, 3, 7), 1).error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER) << "a gap in epoch 3";
  const auto fresh = t.check(batch(7, 4, 0), 2);
  EXPECT_EQ(fresh.error, ErrorCode::NONE);
  EXPECT_FALSE(fresh.duplicate) << "sequence 0 of epoch 4 is not epoch 3's sequence 0";
  EXPECT_EQ(t.check(batch(7, 4, 5), 1).error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER)
      << "the old run's next sequence does not carry over into the new epoch";
  EXPECT_EQ(t.check(batch(7, 4, 1), 1).error, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  write(t, 7, 4, 0, 2, 5);
  EXPECT_EQ(t.check(batch(7, 4, 2), 1).error, ErrorCode::NONE) << "the new epoch's run goes on";
  EXPECT_EQ(t.check(batch(7, 4, 0), 2).duplicate_base, Offset(5));
  EXPECT_EQ(t.check(batch(7, 3, 5), 1).error, ErrorCode::INVALID_PRODUCER_EPOCH) << "the old epoch is fenced";
  // A producer this partition never saw may start anywhere, whatever its epoch.
  EXPECT_EQ(t.check(batch(8, 4, 9), 1).error, ErrorCode::NONE);
}

TEST(ProducerState, RebuildFromTheLogAgreesWithWhatWasRecorded) {
  TestDisk disk;
  PartitionLog log(disk.disk, kDir);
  log.recover();
  const std::vector<Record> three{kv('a', "1"), kv('b', "2"), kv('c', "3")};
  log.append(three, LeaderEpoch(0), 0, batch(9, 0, 0));
  log.append(three, LeaderEpoch(0), 0, batch(9, 0, 3));
  log.append(three, LeaderEpoch(0), 0);  // not idempotent
  ProducerStateTable t;
  t.rebuild(log);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.check(batch(9, 0, 3), 3).duplicate_base, Offset(3));
  EXPECT_EQ(t.check(batch(9, 0, 6), 3).error, ErrorCode::NONE);
  // After truncation the sequences it removed can be written again.
  log.truncate_to(Offset(3));
  t.rebuild(log);
  EXPECT_FALSE(t.check(batch(9, 0, 3), 3).duplicate);
  EXPECT_EQ(t.check(batch(9, 0, 3), 3).error, ErrorCode::NONE);
}

// The last stable offset stops at the first offset of the earliest undecided transaction, and
// a decided one stays undecided until the high watermark passes its marker.
TEST(ProducerState, TheLastStableOffsetWaitsForOpenAndUnreplicatedTransactions) {
  ProducerStateTable t;
  write(t, 1, 0, 0, 2, 0);  // a plain idempotent producer: offsets 0..1
  EXPECT_EQ(t.last_stable_offset(Offset(2)), Offset(2));
  write_txn(t, 2, 0, 3, 2);  // producer 2 opens at 2
  write_txn(t, 3, 0, 1, 5);  // producer 3 opens at 5
  write_txn(t, 2, 3, 1, 6);
  EXPECT_EQ(t.last_stable_offset(Offset(7)), Offset(2));
  EXPECT_EQ(t.last_stable_offset(Offset(1)), Offset(1)) << "never above the high watermark";
  EXPECT_EQ(t.open_transactions(), (std::vector<std::pair<ProducerId, Offset>>{{ProducerId(2), Offset(2)},
                                                                                {ProducerId(3), Offset(5)}}));
  end_txn(t, 2, ControlType::kCommit, 7);
  EXPECT_EQ(t.last_stable_offset(Offset(7)), Offset(2)) << "the commit marker is not yet replicated";
  EXPECT_EQ(t.last_stable_offset(Offset(8)), Offset(5)) << "committed: producer 3's is the earliest open one";
  t.forget_replicated(Offset(8));
  EXPECT_EQ(t.last_stable_offset(Offset(7)), Offset(5)) << "a replicated decision is forgotten";
  end_txn(t, 3, ControlType::kAbort, 8);
  EXPECT_EQ(t.last_stable_offset(Offset(9)), Offset(9));
  EXPECT_TRUE(t.open_transactions().empty());
}

// PLANTED BUG lso-past-open-transaction: the last stable offset is the high watermark whatever
// is open.
TEST(ProducerState, TheLsoPlantIgnoresOpenTransactions) {
  ProducerStateTable t;
  t.lso_ignores_open_transactions();
  write_txn(t, 2, 0, 3, 2);
  EXPECT_EQ(t.open_transactions().size(), 1u);
  EXPECT_EQ(t.last_stable_offset(Offset(5)), Offset(5));
}

// An epoch below the producer's is fenced (INVALID_PRODUCER_EPOCH); PLANTED BUG
// fenced-write-accepted appends it, and the write opens a transaction of that producer id
// without touching the current epoch's sequences.
TEST(ProducerState, AFencedEpochIsRefusedUnlessTheFencedWritePlantAcceptsIt) {
  ProducerStateTable t;
  write_txn(t, 2, 0, 2, 0);
  end_txn(t, 2, ControlType::kAbort, 2, /*epoch=*/1);  // a newer incarnation's InitProducerId aborted it
  EXPECT_EQ(t.check(batch(2, 0, 2), 1, {}, true).error, ErrorCode::INVALID_PRODUCER_EPOCH);
  Plants plants;
  plants.add(Plant::kFencedWriteAccepted);
  EXPECT_EQ(t.check(batch(2, 0, 2), 1, plants, true).error, ErrorCode::NONE);
  write_txn(t, 2, 2, 1, 3);  // the zombie's write (epoch 0), appended
  EXPECT_EQ(t.open_transactions(), (std::vector<std::pair<ProducerId, Offset>>{{ProducerId(2), Offset(3)}}));
  EXPECT_EQ(t.last_stable_offset(Offset(4)), Offset(3)) << "it holds the last stable offset back";
  EXPECT_EQ(t.check(batch(2, 1, 0), 1, {}, true).error, ErrorCode::NONE) << "epoch 1's sequences are untouched";
}

TEST(ProducerState, AbortsAreIndexedByTheirMarkerOffsets) {
  ProducerStateTable t;
  write_txn(t, 2, 0, 2, 0);
  end_txn(t, 2, ControlType::kAbort, 2);
  write_txn(t, 3, 0, 1, 3);
  end_txn(t, 3, ControlType::kCommit, 4);
  write_txn(t, 2, 2, 1, 5);
  end_txn(t, 2, ControlType::kAbort, 6);
  end_txn(t, 4, ControlType::kAbort, 7);  // no open transaction: nothing completes (Kafka's too)
  end_txn(t, 2, ControlType::kAbort, 8);  // a retried marker
  using A = ProducerStateTable::AbortedTxn;
  const A first{ProducerId(2), Offset(0), Offset(2)};
  const A second{ProducerId(2), Offset(5), Offset(6)};
  EXPECT_EQ(t.aborted_between(Offset(0), Offset(9)), (std::vector<A>{first, second}));
  EXPECT_EQ(t.aborted_between(Offset(3), Offset(9)), (std::vector<A>{second})) << "ended before 3";
  EXPECT_EQ(t.aborted_between(Offset(0), Offset(5)), (std::vector<A>{first})) << "begins at or after 5";
  EXPECT_EQ(t.aborted_between(Offset(2), Offset(3)), (std::vector<A>{first})) << "its marker is at 2";
  EXPECT_EQ(t.last_stable_offset(Offset(9)), Offset(9)) << "the empty markers left nothing undecided";
  t.forget_aborted_below(Offset(3));
  EXPECT_EQ(t.aborted_between(Offset(0), Offset(9)), (std::vector<A>{second})) << "retention took the first";
}

TEST(ProducerState, MarkersOfOldEpochsAndOldCoordinatorsAreFenced) {
  ProducerStateTable t;
  write(t, 5, 3, 0, 1, 0);
  EXPECT_EQ(t.check_marker(TxnMarker{ProducerId(5), ProducerEpoch(2), ControlType::kCommit, 0}),
            ErrorCode::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(t.check_marker(TxnMarker{ProducerId(5), ProducerEpoch(3), ControlType::kCommit, 0}), ErrorCode::NONE);
  EXPECT_EQ(t.check_marker(TxnMarker{ProducerId(6), ProducerEpoch(0), ControlType::kAbort, 0}), ErrorCode::NONE)
      << "a producer this partition never saw";
  end_txn(t, 5, ControlType::kAbort, 1, 4, 7);  // the coordinator (epoch 7) fenced epoch 3 with an abort at epoch 4
  EXPECT_EQ(t.check(batch(5, 3, 1), 1).error, ErrorCode::INVALID_PRODUCER_EPOCH) << "the zombie's late write";
  EXPECT_EQ(t.check(batch(5, 4, 0), 1).error, ErrorCode::NONE) << "the new epoch starts at sequence 0";
  EXPECT_EQ(t.check_marker(TxnMarker{ProducerId(5), ProducerEpoch(4), ControlType::kCommit, 6}),
            ErrorCode::TRANSACTION_COORDINATOR_FENCED);
  EXPECT_EQ(t.check_marker(TxnMarker{ProducerId(5), ProducerEpoch(4), ControlType::kCommit, 7}), ErrorCode::NONE);
}

TEST(ProducerState, APlainBatchInsideAnOpenTransactionIsInvalidTxnState) {
  ProducerStateTable t;
  write_txn(t, 2, 0, 1, 0);
  EXPECT_EQ(t.check(batch(2, 0, 1), 1, {}, false).error, ErrorCode::INVALID_TXN_STATE);
  EXPECT_EQ(t.check(batch(2, 0, 1), 1, {}, true).error, ErrorCode::NONE);
  end_txn(t, 2, ControlType::kCommit, 1);
  EXPECT_EQ(t.check(batch(2, 0, 1), 1, {}, false).error, ErrorCode::NONE) << "after the marker";
}

// Leaders and followers rebuild transactions from the log, markers included, after recovery
// and truncation.
TEST(ProducerState, TransactionsAreRebuiltFromTheLog) {
  TestDisk disk;
  PartitionLog log(disk.disk, kDir);
  log.recover();
  const auto append_txn = [&](std::int64_t pid, std::int32_t seq) {
    const std::string b = encode_batch(std::vector<Record>{kv('k', "v")},
                                       BatchMeta{Offset(0), LeaderEpoch(-1), ProducerId(pid), ProducerEpoch(0), Sequence(seq), true});
    log.append_as_leader(b, LeaderEpoch(0), 0);
  };
  const auto append_marker = [&](std::int64_t pid, ControlType type) {
    log.append_as_leader(encode_control_batch(TxnMarker{ProducerId(pid), ProducerEpoch(0), type, 0}, 0), LeaderEpoch(0), 0);
  };
  append_txn(2, 0);                        // 0
  append_txn(3, 0);                        // 1
  append_marker(2, ControlType::kAbort);   // 2
  append_txn(3, 1);                        // 3
  append_marker(3, ControlType::kCommit);  // 4
  append_txn(2, 1);                        // 5: open
  ProducerStateTable t;
  t.rebuild(log);
  using A = ProducerStateTable::AbortedTxn;
  EXPECT_EQ(t.aborted_between(Offset(0), Offset(6)), (std::vector<A>{A{ProducerId(2), Offset(0), Offset(2)}}));
  EXPECT_EQ(t.last_stable_offset(Offset(6)), Offset(5));
  EXPECT_EQ(t.check(batch(3, 0, 2), 1).error, ErrorCode::NONE) << "sequences survive the markers";
  log.truncate_to(Offset(4));  // the commit is gone: producer 3's transaction is open again
  t.rebuild(log);
  EXPECT_EQ(t.last_stable_offset(Offset(4)), Offset(1));
  EXPECT_EQ(t.open_transactions(), (std::vector<std::pair<ProducerId, Offset>>{{ProducerId(3), Offset(1)}}));
}

}  // namespace
}  // namespace logsim::engine
