// The transactional producer against scripted coordinator and leader answers: it gets its id
// from its transaction coordinator, adds each partition before the partition's first batch,
// marks its batches transactional, commits only after every send completed, fails unsent
// batches on abort, turns a failed send into an abortable error (and takes the next epoch after
// the abort), retries what is retriable, and stops for good once fenced.
#include <gtest/gtest.h>

#include "engine/tests/client/producer_test_fixture.h"

namespace logsim::engine::producer_testing {
namespace {

const NodeId kCoordinator = kB2;
const std::string kTxnId = "tx-1";

class ProducerTxnTest : public ProducerTest {
 protected:
  static ProducerConfig txn_config() {
    ProducerConfig c = base_config();
    c.enable_idempotence = true;
    c.transactional_id = kTxnId;
    c.transaction_timeout_ms = 10000;
    return c;
  }

  // Starts a transactional producer and answers its metadata, FindCoordinator and InitProducerId.
  void start_txn(std::vector<NodeId> leaders = {kB1, kB3}) {
    make(txn_config());
    producer->start();
    answer_metadata(leaders);
    answer_find();
    const auto init = last<InitProducerIdRequest>();
    EXPECT_EQ(init.transactional_id, std::optional<std::string>(kTxnId));
    EXPECT_EQ(init.transaction_timeout_ms, 10000);
    EXPECT_EQ(target_of(init.correlation_id), kCoordinator) << "InitProducerId goes to the transaction coordinator";
    answer(InitProducerIdResponse{init.correlation_id, ErrorCode::NONE, ProducerId(7), ProducerEpoch(2)});
    EXPECT_EQ(producer->txn_phase(), TxnPhase::kReady);
    env.sent.clear();
  }

  template <typename T>
  T last() {
    const auto all = sent_of<T>();
    EXPECT_FALSE(all.empty()) << "nothing of the type was sent";
    return all.empty() ? T{} : all.back();
  }
  NodeId target_of(CorrelationId c) const {
    for (const Sent& s : env.sent) {
      if (message_correlation(s.msg) == c) return s.to;
    }
    return NodeId(-1);
  }
  void answer(const Message& m) { EXPECT_TRUE(producer->on_message(kCoordinator, m)); }
  void answer_find(NodeId coordinator = kCoordinator) {
    const auto find = last<FindCoordinatorRequest>();
    EXPECT_EQ(find.key_type, CoordinatorKeyType::kTransaction);
    EXPECT_EQ(find.key, kTxnId);
    answer(FindCoordinatorResponse{find.correlation_id, ErrorCode::NONE, coordinator});
  }
  void answer_add(ErrorCode error = ErrorCode::NONE) {
    const auto add = last<AddPartitionsToTxnRequest>();
    AddPartitionsToTxnResponse resp{add.correlation_id, {}};
    for (const TopicPartition& tp : add.partitions) resp.results.push_back({tp, error});
    answer(resp);
  }
  ErrorCode end_result;
  bool ended = false;
  std::function<void(ErrorCode)> on_end() {
    ended = false;
    return [this](ErrorCode e) {
      ended = true;
      end_result = e;
    };
  }
};

TEST_F(ProducerTxnTest, PartitionsAreAddedBeforeTheirBatchesWhichAreTransactional) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send("a", PartitionId(0));
  send("b", PartitionId(1));
  EXPECT_TRUE(sent_of<ProduceRequest>().empty()) << "a batch went before its partition was in the transaction";
  const auto add = last<AddPartitionsToTxnRequest>();
  EXPECT_EQ(add.transactional_id, kTxnId);
  EXPECT_EQ(add.producer_id, ProducerId(7));
  EXPECT_EQ(add.producer_epoch, ProducerEpoch(2));
  EXPECT_EQ(add.partitions, std::vector<TopicPartition>{(TopicPartition{kTopic, PartitionId(0)})})
      << "the first partition goes at once; the next waits for that request";
  answer_add();
  EXPECT_EQ(last<AddPartitionsToTxnRequest>().partitions, std::vector<TopicPartition>{(TopicPartition{kTopic, PartitionId(1)})});
  answer_add();
  const auto sent = produces();
  ASSERT_EQ(sent.size(), 2u);
  for (const ProduceRequest& r : sent_of<ProduceRequest>()) {
    std::string scratch;
    EXPECT_TRUE(parse_batch_header(r.records.contiguous(scratch))->transactional());
  }
  EXPECT_EQ(sent[0].producer_epoch, ProducerEpoch(2));
}

TEST_F(ProducerTxnTest, CommitWaitsForEverySendThenEndsTheTransaction) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send("a", PartitionId(0));
  answer_add();
  producer->commit_transaction(on_end());
  EXPECT_TRUE(sent_of<EndTxnRequest>().empty()) << "EndTxn before the send completed";
  ASSERT_TRUE(respond(produces().at(0), ErrorCode::NONE, 0));
  const auto end = last<EndTxnRequest>();
  EXPECT_TRUE(end.committed);
  EXPECT_EQ(target_of(end.correlation_id), kCoordinator);
  EXPECT_FALSE(ended);
  answer(EndTxnResponse{end.correlation_id, ErrorCode::NONE});
  ASSERT_TRUE(ended);
  EXPECT_EQ(end_result, ErrorCode::NONE);
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kReady);
  // The next transaction adds its partitions again.
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  env.sent.clear();
  send("b", PartitionId(0));
  EXPECT_EQ(sent_of<AddPartitionsToTxnRequest>().size(), 1u);
}

TEST_F(ProducerTxnTest, SendsOutsideATransactionAreRefused) {
  start_txn();
  send("a", PartitionId(0));
  ASSERT_NE(result_of("a"), nullptr);
  EXPECT_EQ(result_of("a")->result.outcome, SendOutcome::kFailed);
  EXPECT_EQ(result_of("a")->result.error, ErrorCode::INVALID_TXN_STATE);
  producer->commit_transaction(on_end());
  EXPECT_EQ(end_result, ErrorCode::INVALID_TXN_STATE);
}

TEST_F(ProducerTxnTest, AFailedSendMakesTheCommitFailAndTheAbortTakesTheNextEpoch) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send("a", PartitionId(0));
  answer_add();
  ASSERT_TRUE(respond(produces().at(0), ErrorCode::INVALID_RECORD));
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kAbortableError);
  producer->commit_transaction(on_end());
  ASSERT_TRUE(ended);
  EXPECT_EQ(end_result, ErrorCode::INVALID_RECORD);
  producer->abort_transaction(on_end());
  const auto end = last<EndTxnRequest>();
  EXPECT_FALSE(end.committed);
  answer(EndTxnResponse{end.correlation_id, ErrorCode::NONE});
  EXPECT_FALSE(ended) << "the abort completes with the next epoch";
  EXPECT_EQ(producer->begin_transaction(), ErrorCode::INVALID_TXN_STATE) << "begun before the next epoch";
  auto bump = last<InitProducerIdRequest>();
  EXPECT_EQ(bump.producer_id, ProducerId(7));
  EXPECT_EQ(bump.producer_epoch, ProducerEpoch(2));
  // The coordinator is still writing the abort's markers: asked again after the backoff.
  answer(InitProducerIdResponse{bump.correlation_id, ErrorCode::CONCURRENT_TRANSACTIONS, ProducerId(-1), ProducerEpoch(-1)});
  advance_to(env.now() + millis(100));
  bump = last<InitProducerIdRequest>();
  EXPECT_EQ(bump.producer_epoch, ProducerEpoch(2));
  answer(InitProducerIdResponse{bump.correlation_id, ErrorCode::NONE, ProducerId(7), ProducerEpoch(3)});
  EXPECT_TRUE(ended);
  EXPECT_EQ(end_result, ErrorCode::NONE);
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  env.sent.clear();
  send("b", PartitionId(0));
  answer_add();
  ASSERT_EQ(produces().size(), 1u);
  EXPECT_EQ(produces()[0].producer_epoch, ProducerEpoch(3));
  EXPECT_EQ(produces()[0].base_sequence, Sequence(0)) << "a new epoch numbers from 0";
}

TEST_F(ProducerTxnTest, AbortFailsTheSendsNotYetSentAndEndsWithAbort) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send("a", PartitionId(0));
  answer_add();
  send("b", PartitionId(1));  // its partition is being added
  producer->abort_transaction(on_end());
  ASSERT_NE(result_of("b"), nullptr);
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kFailed);
  EXPECT_TRUE(sent_of<EndTxnRequest>().empty()) << "aborted while a send was in flight";
  ASSERT_TRUE(respond(produces().at(0), ErrorCode::NONE, 0));
  answer_add();  // the partition being added arrives late: nothing of it is sent
  const auto end = last<EndTxnRequest>();
  EXPECT_FALSE(end.committed);
  answer(EndTxnResponse{end.correlation_id, ErrorCode::NONE});
  EXPECT_TRUE(ended);
  EXPECT_EQ(produces().size(), 1u);
}

TEST_F(ProducerTxnTest, RetriableCoordinatorErrorsAreRetriedAndAMovedCoordinatorIsFoundAgain) {
  make(txn_config());
  producer->start();
  answer_metadata({kB1, kB3});
  answer_find();
  auto init = last<InitProducerIdRequest>();
  answer(InitProducerIdResponse{init.correlation_id, ErrorCode::CONCURRENT_TRANSACTIONS, ProducerId(-1), ProducerEpoch(-1)});
  env.sent.clear();
  advance_to(env.now() + millis(100));
  init = last<InitProducerIdRequest>();
  answer(InitProducerIdResponse{init.correlation_id, ErrorCode::NOT_COORDINATOR, ProducerId(-1), ProducerEpoch(-1)});
  env.sent.clear();
  advance_to(env.now() + millis(100));
  answer_find(kB3);
  init = last<InitProducerIdRequest>();
  EXPECT_EQ(target_of(init.correlation_id), kB3);
  answer(InitProducerIdResponse{init.correlation_id, ErrorCode::NONE, ProducerId(7), ProducerEpoch(0)});
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kReady);
}

TEST_F(ProducerTxnTest, AFencedProducerIsUnusable) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send("a", PartitionId(0));
  answer_add();
  ASSERT_TRUE(respond(produces().at(0), ErrorCode::INVALID_PRODUCER_EPOCH));
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kFatalError);
  producer->abort_transaction(on_end());
  EXPECT_EQ(end_result, ErrorCode::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(producer->begin_transaction(), ErrorCode::INVALID_PRODUCER_EPOCH);
  send("b", PartitionId(0));
  EXPECT_EQ(result_of("b")->result.error, ErrorCode::INVALID_PRODUCER_EPOCH);
}

// Kafka's Sender.maybeAbortBatches: after a fatal error nothing pending waits for its delivery
// timeout; a send never sent fails, one in flight is unknown (it may have been written).
TEST_F(ProducerTxnTest, AFatalErrorFailsEveryPendingSendAtOnce) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send("a", PartitionId(0));
  answer_add();
  ASSERT_EQ(produces().size(), 1u);
  send("b", PartitionId(1));  // its partition is being added
  answer_add(ErrorCode::PRODUCER_FENCED);
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kFatalError);
  advance_to(env.now());
  ASSERT_NE(result_of("b"), nullptr);
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kFailed);
  EXPECT_EQ(result_of("b")->result.error, ErrorCode::PRODUCER_FENCED);
  ASSERT_NE(result_of("a"), nullptr);
  EXPECT_EQ(result_of("a")->result.outcome, SendOutcome::kUnknown) << "in flight: it may have been written";
  EXPECT_EQ(producer->in_flight(), 0u);
}

TEST_F(ProducerTxnTest, AnEmptyTransactionEndsWithoutTheCoordinator) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  producer->commit_transaction(on_end());
  EXPECT_TRUE(ended);
  EXPECT_EQ(end_result, ErrorCode::NONE);
  EXPECT_TRUE(sent_of<EndTxnRequest>().empty());
}

TEST_F(ProducerTxnTest, AnAbortEndsEvenWhenAddingAPartitionFailsOrItsTopicIsUnknown) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send("a", PartitionId(0));  // AddPartitionsToTxn in flight
  producer->send("unknown-topic", rec("u"), std::nullopt, [this](const SendResult& r) { results.push_back({"u", r, env.now()}); });
  producer->abort_transaction(on_end());
  ASSERT_NE(result_of("u"), nullptr) << "a send waiting for metadata is failed by the abort";
  EXPECT_EQ(result_of("u")->result.outcome, SendOutcome::kFailed);
  const auto add = last<AddPartitionsToTxnRequest>();
  answer(AddPartitionsToTxnResponse{add.correlation_id, {{add.partitions.at(0), ErrorCode::CONCURRENT_TRANSACTIONS}}});
  EXPECT_FALSE(ended);
  advance_to(env.now() + millis(100));
  EXPECT_EQ(sent_of<AddPartitionsToTxnRequest>().size(), 1u) << "an aborting transaction adds nothing more";
  EXPECT_TRUE(sent_of<EndTxnRequest>().empty()) << "no partition was added: nothing to end at the coordinator";
  EXPECT_TRUE(ended);
  EXPECT_EQ(end_result, ErrorCode::NONE);
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kReady);
  EXPECT_TRUE(produces().empty());
}

TEST_F(ProducerTxnTest, ASendThatNeverFindsItsTopicFailsTheCommit) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  producer->send("unknown-topic", rec("u"), std::nullopt, [this](const SendResult& r) { results.push_back({"u", r, env.now()}); });
  producer->commit_transaction(on_end());
  EXPECT_FALSE(ended) << "committed before the send's outcome";
  advance_to(env.now() + millis(txn_config().delivery_timeout_ms));
  ASSERT_TRUE(ended);
  EXPECT_EQ(end_result, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kAbortableError);
}

}  // namespace
}  // namespace logsim::engine::producer_testing

// ------------------------------------------------------------------ sendOffsetsToTransaction

namespace logsim::engine::producer_testing {
namespace {

const NodeId kGroupCoordinator = kB3;

class ProducerTxnOffsetsTest : public ProducerTxnTest {
 protected:
  ErrorCode offsets_result = ErrorCode::UNKNOWN_SERVER_ERROR;
  bool offsets_done = false;

  void send_offsets(std::int32_t generation = 4) {
    ConsumerGroupMetadata group{"g", generation, "member-1", std::nullopt};
    offsets_done = false;
    producer->send_offsets_to_transaction({{TopicPartition{"in", PartitionId(0)}, Offset(42), "m"}}, group,
                                          [this](ErrorCode e) {
                                            offsets_done = true;
                                            offsets_result = e;
                                          });
  }
  // Answers AddOffsetsToTxn and the group's FindCoordinator; returns the TxnOffsetCommit sent.
  TxnOffsetCommitRequest add_and_find() {
    const auto add = last<AddOffsetsToTxnRequest>();
    EXPECT_EQ(target_of(add.correlation_id), kCoordinator);
    EXPECT_EQ(add.group_id, "g");
    EXPECT_EQ(add.producer_id, ProducerId(7));
    answer(AddOffsetsToTxnResponse{add.correlation_id, ErrorCode::NONE});
    const auto find = last<FindCoordinatorRequest>();
    EXPECT_EQ(find.key_type, CoordinatorKeyType::kGroup);
    EXPECT_EQ(find.key, "g");
    answer(FindCoordinatorResponse{find.correlation_id, ErrorCode::NONE, kGroupCoordinator});
    return last<TxnOffsetCommitRequest>();
  }
  void answer_commit(const TxnOffsetCommitRequest& req, ErrorCode error) {
    TxnOffsetCommitResponse resp{req.correlation_id, {}};
    for (const TxnOffsetCommitPartition& p : req.partitions) resp.results.push_back({p.tp, error});
    EXPECT_TRUE(producer->on_message(kGroupCoordinator, resp));
  }
};

TEST_F(ProducerTxnOffsetsTest, OffsetsGoToTheGroupsCoordinatorAndTheCommitWaitsForThem) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send_offsets();
  const TxnOffsetCommitRequest commit = add_and_find();
  EXPECT_EQ(target_of(commit.correlation_id), kGroupCoordinator);
  EXPECT_EQ(commit.transactional_id, kTxnId);
  EXPECT_EQ(commit.producer_id, ProducerId(7));
  EXPECT_EQ(commit.producer_epoch, ProducerEpoch(2));
  EXPECT_EQ(commit.generation_id, 4);
  EXPECT_EQ(commit.member_id, "member-1");
  ASSERT_EQ(commit.partitions.size(), 1u);
  EXPECT_EQ(commit.partitions[0].committed_offset, Offset(42));
  producer->commit_transaction(on_end());
  EXPECT_TRUE(sent_of<EndTxnRequest>().empty()) << "EndTxn before the offsets were written";
  EXPECT_FALSE(offsets_done);
  answer_commit(commit, ErrorCode::NONE);
  ASSERT_TRUE(offsets_done);
  EXPECT_EQ(offsets_result, ErrorCode::NONE);
  // No partition was written, but the offsets' partition is in the transaction: it must end.
  const auto end = last<EndTxnRequest>();
  EXPECT_TRUE(end.committed);
  answer(EndTxnResponse{end.correlation_id, ErrorCode::NONE});
  ASSERT_TRUE(ended);
  EXPECT_EQ(end_result, ErrorCode::NONE);
}

TEST_F(ProducerTxnOffsetsTest, AConsumerThatLostItsGenerationMakesTheTransactionAbortable) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send_offsets();
  answer_commit(add_and_find(), ErrorCode::ILLEGAL_GENERATION);
  ASSERT_TRUE(offsets_done);
  EXPECT_EQ(offsets_result, ErrorCode::ILLEGAL_GENERATION);
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kAbortableError);
  producer->commit_transaction(on_end());
  EXPECT_EQ(end_result, ErrorCode::ILLEGAL_GENERATION);
  producer->abort_transaction(on_end());
  const auto end = last<EndTxnRequest>();
  EXPECT_FALSE(end.committed);
  answer(EndTxnResponse{end.correlation_id, ErrorCode::NONE});
  EXPECT_FALSE(ended) << "the abort completes with the next epoch";
  const auto bump = last<InitProducerIdRequest>();
  answer(InitProducerIdResponse{bump.correlation_id, ErrorCode::NONE, ProducerId(7), ProducerEpoch(3)});
  ASSERT_TRUE(ended);
  EXPECT_EQ(end_result, ErrorCode::NONE);
}

TEST_F(ProducerTxnOffsetsTest, AMovedGroupCoordinatorIsFoundAgainAndFencingIsFatal) {
  start_txn();
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send_offsets();
  answer_commit(add_and_find(), ErrorCode::NOT_COORDINATOR);
  EXPECT_FALSE(offsets_done);
  env.sent.clear();
  advance_to(env.now() + millis(100));
  const auto find = last<FindCoordinatorRequest>();
  EXPECT_EQ(find.key_type, CoordinatorKeyType::kGroup) << "the group's coordinator is looked up again";
  answer(FindCoordinatorResponse{find.correlation_id, ErrorCode::NONE, kGroupCoordinator});
  const auto again = last<TxnOffsetCommitRequest>();
  EXPECT_TRUE(sent_of<AddOffsetsToTxnRequest>().empty()) << "the group is added once";
  answer_commit(again, ErrorCode::PRODUCER_FENCED);
  ASSERT_TRUE(offsets_done);
  EXPECT_EQ(offsets_result, ErrorCode::PRODUCER_FENCED);
  EXPECT_EQ(producer->txn_phase(), TxnPhase::kFatalError);
}

TEST_F(ProducerTxnOffsetsTest, RefusedOutsideATransactionAndFailedByAnAbort) {
  start_txn();
  send_offsets();
  ASSERT_TRUE(offsets_done);
  EXPECT_EQ(offsets_result, ErrorCode::INVALID_TXN_STATE);
  ASSERT_EQ(producer->begin_transaction(), ErrorCode::NONE);
  send_offsets();
  send_offsets();  // a second call waits behind the first
  producer->abort_transaction(on_end());
  ASSERT_TRUE(offsets_done);
  EXPECT_EQ(offsets_result, ErrorCode::OPERATION_NOT_ATTEMPTED);
  // The AddOffsetsToTxn in flight is answered; the abort then ends the transaction there.
  const auto add = last<AddOffsetsToTxnRequest>();
  answer(AddOffsetsToTxnResponse{add.correlation_id, ErrorCode::NONE});
  EXPECT_TRUE(sent_of<TxnOffsetCommitRequest>().empty());
  const auto end = last<EndTxnRequest>();
  EXPECT_FALSE(end.committed);
}

}  // namespace
}  // namespace logsim::engine::producer_testing
