// The transaction coordinator's state transitions (Kafka's TransactionMetadata rules) and the
// __transaction_state records.
#include "engine/coordinator/txn_metadata.h"

#include <gtest/gtest.h>

#include <vector>

namespace logsim::engine {
namespace {

const TopicPartition kA{"orders", PartitionId(0)};
const TopicPartition kB{"orders", PartitionId(1)};

TxnMetadata in_state(TxnState state, std::int16_t epoch = 3) {
  TxnMetadata m;
  m.transactional_id = "tx";
  m.producer_id = ProducerId(7);
  m.producer_epoch = ProducerEpoch(epoch);
  m.state = state;
  m.txn_start_ms = 100;
  if (state == TxnState::kOngoing || state == TxnState::kPrepareCommit || state == TxnState::kPrepareAbort) {
    m.partitions = {kA};
  }
  return m;
}

const std::vector<TxnState> kStates{TxnState::kEmpty,          TxnState::kOngoing,       TxnState::kPrepareCommit,
                                    TxnState::kPrepareAbort,   TxnState::kCompleteCommit, TxnState::kCompleteAbort,
                                    TxnState::kDead,           TxnState::kPrepareEpochFence};

// Whatever a request does, a change it writes is one Kafka allows from the current state.
TEST(TxnMetadata, EveryWrittenChangeIsAValidTransition) {
  const std::vector<TopicPartition> parts{kA, kB};
  int writes = 0;
  for (const TxnState s : kStates) {
    const TxnMetadata m = in_state(s);
    const std::vector<TxnTransition> results{
        prepare_init_producer_id(m, "tx", 60000, ProducerId(9), 500),
        prepare_add_partitions(m, m.producer_id, m.producer_epoch, parts, 500),
        prepare_end_txn(m, m.producer_id, m.producer_epoch, true, 500),
        prepare_end_txn(m, m.producer_id, m.producer_epoch, false, 500),
        prepare_abort_by_coordinator(m, 500),
        prepare_complete(m, 500)};
    for (const TxnTransition& t : results) {
      if (!t.write) continue;
      ++writes;
      EXPECT_TRUE(txn_transition_valid(s, t.next.state))
          << txn_state_name(s) << " -> " << txn_state_name(t.next.state);
      EXPECT_FALSE(t.next.pending.has_value());
    }
  }
  EXPECT_GE(writes, 10);
}

TEST(TxnMetadata, TheTransitionTableIsKafkas) {
  EXPECT_TRUE(txn_transition_valid(TxnState::kOngoing, TxnState::kPrepareCommit));
  EXPECT_FALSE(txn_transition_valid(TxnState::kEmpty, TxnState::kPrepareCommit)) << "nothing to commit";
  EXPECT_FALSE(txn_transition_valid(TxnState::kPrepareCommit, TxnState::kCompleteAbort)) << "a decision is final";
  EXPECT_FALSE(txn_transition_valid(TxnState::kPrepareCommit, TxnState::kOngoing));
  EXPECT_TRUE(txn_transition_valid(TxnState::kPrepareEpochFence, TxnState::kPrepareAbort));
  EXPECT_TRUE(txn_transition_valid(TxnState::kCompleteAbort, TxnState::kOngoing));
  EXPECT_FALSE(txn_transition_valid(TxnState::kOngoing, TxnState::kEmpty));
}

TEST(TxnMetadata, ALifecycleFromInitToCommitAndAFenceByANewIncarnation) {
  TxnTransition t = prepare_init_producer_id(std::nullopt, "tx", 60000, ProducerId(7), 10);
  ASSERT_EQ(t.error, ErrorCode::NONE);
  TxnMetadata m = t.next;
  EXPECT_EQ(m.producer_id, ProducerId(7));
  EXPECT_EQ(m.producer_epoch, ProducerEpoch(0));
  EXPECT_EQ(m.state, TxnState::kEmpty);

  const std::vector<TopicPartition> a{kA};
  t = prepare_add_partitions(m, ProducerId(7), ProducerEpoch(0), a, 20);
  ASSERT_TRUE(t.write);
  m = t.next;
  EXPECT_EQ(m.state, TxnState::kOngoing);
  EXPECT_EQ(m.txn_start_ms, 20);
  t = prepare_add_partitions(m, ProducerId(7), ProducerEpoch(0), a, 30);
  EXPECT_EQ(t.error, ErrorCode::NONE);
  EXPECT_FALSE(t.write) << "already in the transaction: nothing to write";
  const std::vector<TopicPartition> b{kB};
  m = prepare_add_partitions(m, ProducerId(7), ProducerEpoch(0), b, 40).next;
  EXPECT_EQ(m.partitions, (std::set<TopicPartition>{kA, kB}));
  EXPECT_EQ(m.txn_start_ms, 20) << "the transaction began with its first partition";

  EXPECT_EQ(prepare_end_txn(m, ProducerId(7), ProducerEpoch(1), true, 50).error, ErrorCode::PRODUCER_FENCED);
  EXPECT_EQ(prepare_end_txn(m, ProducerId(8), ProducerEpoch(0), true, 50).error, ErrorCode::INVALID_PRODUCER_ID_MAPPING);
  TxnMetadata pending = m;
  pending.pending = TxnState::kOngoing;
  EXPECT_EQ(prepare_end_txn(pending, ProducerId(7), ProducerEpoch(0), true, 50).error, ErrorCode::CONCURRENT_TRANSACTIONS);
  m = prepare_end_txn(m, ProducerId(7), ProducerEpoch(0), true, 50).next;
  EXPECT_EQ(m.state, TxnState::kPrepareCommit);
  EXPECT_EQ(prepare_end_txn(m, ProducerId(7), ProducerEpoch(0), true, 55).error, ErrorCode::CONCURRENT_TRANSACTIONS);
  EXPECT_EQ(prepare_end_txn(m, ProducerId(7), ProducerEpoch(0), false, 55).error, ErrorCode::INVALID_TXN_STATE)
      << "a commit once decided cannot become an abort";
  EXPECT_EQ(prepare_add_partitions(m, ProducerId(7), ProducerEpoch(0), a, 55).error, ErrorCode::CONCURRENT_TRANSACTIONS);
  EXPECT_EQ(prepare_init_producer_id(m, "tx", 60000, ProducerId(9), 55).error, ErrorCode::CONCURRENT_TRANSACTIONS);
  m = prepare_complete(m, 60).next;
  EXPECT_EQ(m.state, TxnState::kCompleteCommit);
  EXPECT_TRUE(m.partitions.empty());
  t = prepare_end_txn(m, ProducerId(7), ProducerEpoch(0), true, 65);
  EXPECT_EQ(t.error, ErrorCode::NONE) << "a retried commit of a committed transaction succeeds";
  EXPECT_FALSE(t.write);

  m = prepare_add_partitions(m, ProducerId(7), ProducerEpoch(0), b, 70).next;  // the next transaction
  EXPECT_EQ(m.partitions, (std::set<TopicPartition>{kB}));
  EXPECT_EQ(m.txn_start_ms, 70);
  // A new incarnation (same transactional.id) while it is open: the old one's transaction is
  // aborted at a bumped epoch, and the newcomer is asked to come back.
  t = prepare_init_producer_id(m, "tx", 60000, ProducerId(9), 80);
  EXPECT_EQ(t.error, ErrorCode::CONCURRENT_TRANSACTIONS);
  ASSERT_TRUE(t.write);
  m = t.next;
  EXPECT_EQ(m.state, TxnState::kPrepareAbort);
  EXPECT_EQ(m.producer_epoch, ProducerEpoch(1));
  EXPECT_EQ(prepare_add_partitions(m, ProducerId(7), ProducerEpoch(0), a, 85).error, ErrorCode::PRODUCER_FENCED)
      << "the zombie is fenced";
  m = prepare_complete(m, 90).next;
  EXPECT_EQ(m.state, TxnState::kCompleteAbort);
  t = prepare_init_producer_id(m, "tx", 60000, ProducerId(9), 95);
  ASSERT_EQ(t.error, ErrorCode::NONE);
  EXPECT_EQ(t.next.producer_id, ProducerId(7));
  EXPECT_EQ(t.next.producer_epoch, ProducerEpoch(2));
  EXPECT_EQ(t.next.state, TxnState::kEmpty);
}

TEST(TxnMetadata, AnExhaustedEpochGetsANewProducerId) {
  const TxnMetadata m = in_state(TxnState::kCompleteCommit, 32766);
  const TxnTransition t = prepare_init_producer_id(m, "tx", 60000, ProducerId(9), 10);
  ASSERT_EQ(t.error, ErrorCode::NONE);
  EXPECT_EQ(t.next.producer_id, ProducerId(9));
  EXPECT_EQ(t.next.producer_epoch, ProducerEpoch(0));
  EXPECT_EQ(prepare_init_producer_id(in_state(TxnState::kEmpty, 5), "tx", 60000, ProducerId(9), 10).next.producer_id,
            ProducerId(7));
  // A producer at the last epoch is still fenced: the abort goes to Short.MAX_VALUE, and the
  // next incarnation gets a new id.
  TxnTransition fence = prepare_init_producer_id(in_state(TxnState::kOngoing, 32766), "tx", 60000, ProducerId(9), 10);
  EXPECT_EQ(fence.error, ErrorCode::CONCURRENT_TRANSACTIONS);
  EXPECT_EQ(fence.next.producer_epoch, ProducerEpoch(32767));
  const TxnMetadata aborted = prepare_complete(fence.next, 20).next;
  EXPECT_EQ(prepare_add_partitions(aborted, ProducerId(7), ProducerEpoch(32766), std::vector<TopicPartition>{kA}, 25).error,
            ErrorCode::PRODUCER_FENCED);
  const TxnTransition again = prepare_init_producer_id(aborted, "tx", 60000, ProducerId(9), 30);
  EXPECT_EQ(again.next.producer_id, ProducerId(9));
  EXPECT_EQ(again.next.producer_epoch, ProducerEpoch(0));
}

TEST(TxnMetadata, AnOngoingTransactionTimesOutAfterItsTimeout) {
  TxnMetadata m = in_state(TxnState::kOngoing);
  m.txn_start_ms = 1000;
  m.txn_timeout_ms = 500;
  EXPECT_FALSE(txn_timed_out(m, 1500));
  EXPECT_TRUE(txn_timed_out(m, 1501));
  EXPECT_FALSE(txn_timed_out(in_state(TxnState::kPrepareCommit), 1'000'000)) << "a decided one is not aborted";
  const TxnTransition abort = prepare_abort_by_coordinator(m, 1501);
  EXPECT_EQ(abort.next.state, TxnState::kPrepareAbort);
  EXPECT_EQ(abort.next.producer_epoch, ProducerEpoch(4)) << "the timed-out producer is fenced";
}

TEST(TxnMetadata, RecordsRoundTripAndMalformedBytesAreRefused) {
  TxnMetadata m = in_state(TxnState::kPrepareCommit);
  m.partitions = {kA, kB, TopicPartition{std::string("odd\0|name", 9), PartitionId(41)}};
  m.txn_timeout_ms = 12345;
  m.last_update_ms = 999;
  const Record r = txn_log_record(m, 999);
  ASSERT_TRUE(r.key && r.value);
  EXPECT_EQ(decode_txn_key(*r.key), "tx");
  EXPECT_EQ(decode_txn_value("tx", *r.value), m);
  std::string bad = *r.value;
  EXPECT_FALSE(decode_txn_value("tx", bad + "x").has_value()) << "trailing bytes";
  EXPECT_FALSE(decode_txn_value("tx", bad.substr(0, bad.size() - 1)).has_value()) << "cut short";
  bad[2 + 8 + 2 + 4] = 9;  // the state byte: no such state
  EXPECT_FALSE(decode_txn_value("tx", bad).has_value());
  EXPECT_FALSE(decode_txn_key(std::string("\x00\x01", 2)).has_value());
}

}  // namespace
}  // namespace logsim::engine
